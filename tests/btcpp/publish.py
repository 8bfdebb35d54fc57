"""A BehaviorTree.CPP program to attach to: it runs a patrol tree with scripted leaves and
a Groot2Publisher on the port named on the command line, for tests/groot2.rs; with a
second argument, it also records its run there with BehaviorTree.CPP's FileLogger2
(a `.btlog`, written whole when it quits).

It prints `ready` once the publisher listens, then reads commands on standard input, one a
line, and answers each on standard output, one JSON object a line:
- `tick N MS`: ticks the tree N times, MS milliseconds apart; after each tick it prints
  {"tick": I, "status": STATUS, "laps": LAPS, "label": LABEL}, the blackboard's values
  as the tree left them. A tick held by a breakpoint prints only when it is let go.
- `counts`: prints {"counts": {LEAF: [RESULT, ...]}}: each scripted leaf's results, in
  order, each time it was ticked (RUNNING, SUCCESS or FAILURE).
- `quit`: ends the program.

The leaves: `walk` runs for two ticks and succeeds at the third; `see_enemy` fails but
every third time it is ticked, when it succeeds; `done` succeeds.
"""

import json
import sys

import behaviortreepy as bt

XML = """<root BTCPP_format="4" main_tree_to_execute="Patrol">
  <BehaviorTree ID="Patrol">
    <Sequence name="patrol">
      <Script name="count" code="laps := laps + 1; label := 'lap' "/>
      <SubTree ID="Look" name="look"/>
      <Walk name="walk"/>
      <Inverter name="not_done"><Done name="done"/></Inverter>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Look">
    <Fallback name="look_around">
      <SeeEnemy name="see_enemy"/>
      <AlwaysSuccess name="all_clear"/>
    </Fallback>
  </BehaviorTree>
</root>"""

counts = {"walk": [], "see_enemy": [], "done": []}


def result(leaf, status):
    counts[leaf].append(str(status).split(".")[-1])
    return status


walked = [0]


def walk_start(node):
    walked[0] = 0
    return result("walk", bt.NodeStatus.RUNNING)


def walk_running(node):
    walked[0] += 1
    done = walked[0] >= 2
    return result("walk", bt.NodeStatus.SUCCESS if done else bt.NodeStatus.RUNNING)


def see_enemy(node):
    seen = len(counts["see_enemy"]) % 3 == 2
    return result("see_enemy", bt.NodeStatus.SUCCESS if seen else bt.NodeStatus.FAILURE)


def done(node):
    return result("done", bt.NodeStatus.SUCCESS)


def main():
    port = int(sys.argv[1])
    factory = bt.BehaviorTreeFactory()
    factory.register_simple_stateful_action("Walk", walk_start, walk_running, lambda node: None)
    factory.register_simple_condition("SeeEnemy", see_enemy)
    factory.register_simple_condition("Done", done)
    factory.register_behavior_tree_from_text(XML)
    tree = factory.create_tree("Patrol")
    board = tree.root_blackboard()
    board.set_int("laps", 0)
    publisher = bt.Groot2Publisher(tree, port)
    logger = bt.FileLogger(tree, sys.argv[2]) if len(sys.argv) > 2 else None
    print("ready", flush=True)
    ticks = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "tick":
            for _ in range(int(words[1])):
                status = tree.tick_once()
                ticks += 1
                print(json.dumps({
                    "tick": ticks,
                    "status": str(status).split(".")[-1],
                    "laps": board.get_int("laps"),
                    "label": board.get_string("label"),
                }), flush=True)
                tree.sleep(int(words[2]))
        elif words[0] == "counts":
            print(json.dumps({"counts": counts}), flush=True)
        elif words[0] == "quit":
            break
    del logger
    del publisher
    print("bye", flush=True)


if __name__ == "__main__":
    main()
