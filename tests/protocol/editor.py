"""An editor that speaks Arbor's live protocol (docs/PROTOCOL.md) in Python alone, with no
Arbor code: tests/protocol.rs connects a Rust game's GameLink to it.

    editor.py TOKEN AGENT NODE

It listens on a free port of the loopback address and prints {"listening": PORT}. It
takes one game: checks its hello (the version, TOKEN), welcomes it, and says it is there
once a second. Then, with the game's agent AGENT stepping:
1. after 20 of its steps, it sets a breakpoint on entering NODE and waits for the game's
   {"paused": AGENT}; for a second, no step of AGENT may come;
2. it asks for one step: exactly one more step comes, and none for half a second after;
3. it falls silent (no `alive`) while AGENT is held: the game must let it go 5 seconds
   after the editor's last word, and its steps come again;
4. it says `continue` and closes.

It prints one JSON object: {"report": {...}} with what it saw, for the test to check, or
{"failed": WHY} at the first thing the protocol does not allow.
"""

import json
import socket
import sys
import time

MAX_HELLO = 8 * 1024 * 1024
MAX_LINE = 64 * 1024


class Failed(Exception):
    pass


class Game:
    def __init__(self, conn, agent):
        self.conn = conn
        self.agent = agent
        self.pending = b""
        self.steps = []  # (step, time it came)
        self.paused = []
        self.alive = True
        self.last_alive = 0.0
        self.last_said = time.monotonic()

    def hello(self):
        """The game's first line: its hello, within 5 seconds."""
        end = time.monotonic() + 5
        while b"\n" not in self.pending:
            if len(self.pending) > MAX_HELLO or time.monotonic() > end:
                raise Failed("no whole hello of at most 8 MB within 5 s")
            self.conn.settimeout(max(0.01, end - time.monotonic()))
            try:
                chunk = self.conn.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise Failed("the game ended the connection in its hello")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line

    def send(self, message):
        self.conn.sendall((json.dumps(message) + "\n").encode())
        self.last_said = time.monotonic()

    def pump(self, seconds):
        """Reads what the game sends for `seconds`, saying `alive` once a second unless
        silent."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.alive and time.monotonic() - self.last_alive >= 1.0:
                self.send({"alive": {}})
                self.last_alive = time.monotonic()
            self.conn.settimeout(0.02)
            try:
                chunk = self.conn.recv(65536)
            except socket.timeout:
                chunk = None
            if chunk == b"":
                raise Failed("the game ended the connection")
            if chunk:
                self.pending += chunk
            while b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                if len(line) > MAX_LINE:
                    raise Failed(f"a line of {len(line)} bytes")
                self.take(json.loads(line))

    def take(self, message):
        if "paused" in message:
            self.paused.append(message["paused"])
            return
        if "dropped" in message:
            return
        for key in ("step", "agent", "event"):
            if key not in message:
                raise Failed(f"neither an event nor a game's message: {message}")
        if message["agent"] == self.agent:
            step = message["step"]
            if not self.steps or self.steps[-1][0] != step:
                if self.steps and step < self.steps[-1][0]:
                    raise Failed(f"step {step} after step {self.steps[-1][0]}")
                self.steps.append((step, time.monotonic()))

    def wait_for(self, what, done, seconds=15):
        end = time.monotonic() + seconds
        while not done():
            if time.monotonic() > end:
                raise Failed(f"waited {seconds} s for {what}")
            self.pump(0.05)

    def last(self):
        return self.steps[-1][0] if self.steps else 0


def main():
    token, agent, node = sys.argv[1], sys.argv[2], sys.argv[3]
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    print(json.dumps({"listening": server.getsockname()[1]}), flush=True)
    server.settimeout(30)
    conn, _ = server.accept()
    report = {}
    try:
        game = Game(conn, agent)
        hello = json.loads(game.hello())
        if hello.get("arbor_live") != 2:
            raise Failed(f"a hello of version {hello.get('arbor_live')}")
        if hello.get("token") != token:
            raise Failed("a hello without this editor's token")
        agents = [a["name"] for a in hello["run"]["agents"]]
        report["hello"] = {"game": hello["game"], "agents": agents, "dt": hello["run"]["dt"]}
        conn.sendall(b'{"welcome":{}}\n')
        game.wait_for("20 steps", lambda: len(game.steps) >= 20)
        # 1. A breakpoint holds the agent.
        game.send({"breakpoints": [{"node": node, "on": "enter", "agents": None}]})
        game.wait_for("the agent held", lambda: agent in game.paused)
        held_at = game.last()
        game.pump(1.0)
        report["held"] = {"at": held_at, "steps_while_held": game.last() - held_at}
        # 2. One step.
        game.send({"step": agent})
        game.wait_for("the step asked", lambda: game.last() > held_at)
        game.pump(0.5)
        report["stepped"] = game.last() - held_at
        # 3. Silent: the game lets the agent go after 5 seconds.
        game.alive = False
        before = game.last()
        game.wait_for("the agent let go", lambda: game.last() > before, seconds=12)
        # Seconds from the editor's last word to the agent's next step.
        report["released_after"] = round(time.monotonic() - game.last_said, 2)
        game.alive = True
        # 4. Continue, and done.
        game.send({"continue": None})
        game.pump(0.3)
        report["steps"] = len(game.steps)
        print(json.dumps({"report": report}), flush=True)
    except (Failed, ValueError, KeyError, OSError) as e:
        print(json.dumps({"failed": str(e), "report": report}), flush=True)
    finally:
        conn.close()


if __name__ == "__main__":
    main()
