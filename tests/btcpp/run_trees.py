"""Runs BehaviorTree.CPP files in the real BehaviorTree.CPP (the behaviortreepy bindings)
for tests/btcpp.rs, and prints what its leaves did.

Reads a JSON list of jobs on standard input, each {"xml": TEXT, "ticks": N, "first_run":
BOOL}, and prints a JSON list with, for each, {"executes": [[LEAF, RESULT], ...]} or
{"error": MESSAGE}.

BehaviorTree.CPP's Python leaves take no ports, so each `<MockAction script="…">` and
`<MockCondition script="…">` of a file becomes a leaf of its own, `MockAction_3`
(numbered in document order, as Arbor names the nodes `mock_action_3`): an action that
on its start runs on, as Arbor's leaves do when entered, and then, at each tick,
returns the next letter of its script (R running, S success, F failure; the last
repeating); a condition that returns the first letter of its script (T or F), or, for a
job of the first run only, the letter of the tick (the first at tick 1; the last
repeating). Each result an action returns at a tick is recorded, in order. The tree is
ticked exactly once per tick, N times or, for a first run, until it finishes.
"""

import json
import sys
import xml.etree.ElementTree as ET

import behaviortreepy as bt

LETTERS = {"R": bt.NodeStatus.RUNNING, "S": bt.NodeStatus.SUCCESS, "F": bt.NodeStatus.FAILURE}
WORDS = {"R": "running", "S": "success", "F": "failure"}


def run(job):
    root = ET.fromstring(job["xml"])
    factory = bt.BehaviorTreeFactory()
    executes = []
    counts = {"MockAction": 0, "MockCondition": 0}
    first_run = job.get("first_run", False)
    tick = [0]
    for element in root.iter():
        kind = element.tag
        if kind not in counts:
            continue
        counts[kind] += 1
        name = f"{kind}_{counts[kind]}"
        script = element.attrib.pop("script", "S" if kind == "MockAction" else "T")
        element.tag = name
        if kind == "MockCondition":
            if not first_run:
                script = script[:1]

            def answer(node, script=script):
                letter = script[min(tick[0] - 1, len(script) - 1)]
                return bt.NodeStatus.FAILURE if letter == "F" else bt.NodeStatus.SUCCESS

            factory.register_simple_condition(name, answer)
            continue
        done = [0]

        def on_start(node, done=done):
            done[0] = 0
            return bt.NodeStatus.RUNNING

        def on_running(node, name=name, script=script, done=done):
            letter = script[min(done[0], len(script) - 1)]
            done[0] += 1
            executes.append([name, WORDS[letter]])
            return LETTERS[letter]

        factory.register_simple_stateful_action(name, on_start, on_running, lambda node: None)
    tree = factory.create_tree_from_text(ET.tostring(root, encoding="unicode"))
    for _ in range(job["ticks"]):
        tick[0] += 1
        status = tree.tick_exactly_once()
        if first_run and status in (bt.NodeStatus.SUCCESS, bt.NodeStatus.FAILURE):
            break
    tree.halt_tree()
    return {"executes": executes}


def main():
    out = []
    for job in json.load(sys.stdin):
        try:
            out.append(run(job))
        except Exception as e:  # a tree BehaviorTree.CPP refuses: said, not fatal
            out.append({"error": f"{type(e).__name__}: {e}"})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
