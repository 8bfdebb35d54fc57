"""A game that speaks Arbor's live protocol (docs/PROTOCOL.md) in Python alone, with no
Arbor code: tests/protocol.rs plays it against the editor's listener.

    game.py HOST PORT TOKEN STEPS

It connects, says its hello (the game `pygame`, one agent `bot`), and then steps `bot`
every 20 ms, STEPS times at most, sending each step's events as trace lines. Step K of
`bot`: `patrol` entered, then exited with success (failure when K is a multiple of 3),
then `laps` set to K from outside the tree. It does what the editor asks, as the protocol
says: breakpoints hold `bot` after a step whose events match one, `pause` before its next
step, `step` lets one step through, `continue` lets it go; a hold ends when the editor has
said nothing for 5 seconds or the connection ends.

It prints what it saw on standard output, one JSON object a line: {"welcome": true} or
{"refused": WHY}, {"command": MESSAGE} for each command, {"stepped": K} after each step it
sent, {"held": K} when it holds `bot` after step K, {"released": WHY} when a hold ends
without the editor's word, and {"ended": true} when the connection ends.
"""

import json
import select
import socket
import sys
import time

MAX_LINE = 64 * 1024
RELEASE_AFTER = 5.0
AGENT = "bot"


def say(obj):
    print(json.dumps(obj), flush=True)


def events_of(k):
    """The events of step K of `bot`."""
    status = "failure" if k % 3 == 0 else "success"
    return [
        {"step": k, "agent": AGENT, "event": "enter", "node": "patrol"},
        {"step": k, "agent": AGENT, "event": "exit", "node": "patrol", "status": status},
        {"step": k, "agent": AGENT, "event": "context", "key": "laps", "value": k},
    ]


def matches(breakpoint, event):
    """Whether `event` is one `breakpoint` stops at (docs/PROTOCOL.md)."""
    if breakpoint.get("node") != event.get("node"):
        return False
    if breakpoint.get("agents") is not None and AGENT not in breakpoint["agents"]:
        return False
    on, kind = breakpoint.get("on"), event["event"]
    if on == "enter":
        return kind == "enter"
    if on == "failure":
        return kind == "exit" and event.get("status") == "failure"
    return on == kind


def main():
    host, port, token, steps = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    conn = socket.create_connection((host, port), timeout=5)
    hello = {
        "arbor_live": 2,
        "token": token,
        "game": "pygame",
        "run": {
            "arbor_trace": 1,
            "dt": 0.1,
            "seed": 0,
            "agents": [{"name": AGENT, "tree": "/games/pygame/bot.json"}],
            "files": [],
        },
        "trees": [],
        "libraries": [],
        "streamed": None,
    }
    conn.sendall((json.dumps(hello) + "\n").encode())
    reader = conn.makefile("rb")
    first = json.loads(reader.readline(MAX_LINE))
    if "refused" in first:
        say({"refused": first["refused"]})
        return
    say({"welcome": "welcome" in first})
    conn.setblocking(False)
    pending = b""
    breakpoints = []
    held, told, allowed = False, False, 0
    heard = time.monotonic()
    k = 0
    while True:
        # What the editor said.
        readable, _, _ = select.select([conn], [], [], 0.02)
        if readable:
            try:
                chunk = conn.recv(65536)
            except BlockingIOError:
                chunk = None
            if chunk == b"":
                say({"ended": True})
                if held:
                    say({"released": "the connection ended"})
                return
            if chunk:
                pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            if len(line) > MAX_LINE:
                return
            message = json.loads(line)
            heard = time.monotonic()
            if "alive" in message:
                continue
            say({"command": message})
            if "breakpoints" in message:
                breakpoints = message["breakpoints"]
            elif "pause" in message and message["pause"] in (None, AGENT):
                held = True
            elif "continue" in message and message["continue"] in (None, AGENT):
                held, told, allowed = False, False, 0
            elif "step" in message and message["step"] == AGENT and held:
                allowed += 1
        if held and time.monotonic() - heard > RELEASE_AFTER:
            held, told, allowed = False, False, 0
            say({"released": "the editor said nothing for 5 seconds"})
        if held and not told:
            conn.sendall((json.dumps({"paused": AGENT}) + "\n").encode())
            told = True
        # One step of `bot`, unless it is held.
        if k >= steps or (held and allowed == 0):
            continue
        if held:
            allowed -= 1
        k += 1
        events = events_of(k)
        conn.setblocking(True)
        conn.sendall("".join(json.dumps(e) + "\n" for e in events).encode())
        conn.setblocking(False)
        say({"stepped": k})
        if not held and any(matches(b, e) for b in breakpoints for e in events):
            held = True
            say({"held": k})
        time.sleep(0.02)


if __name__ == "__main__":
    main()
