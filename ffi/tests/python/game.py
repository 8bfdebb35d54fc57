"""A game in Python that runs an Arbor tree through the C library with ctypes alone.

    game.py LIBRARY ADDRESS STEPS TRACE

Its own kinds are Python callbacks: Lap (an action: counts `every` steps in the agent's
memory, then succeeds) and Fresh (a condition). It shows its agent `runner` live in the
editor at ADDRESS (`PORT/TOKEN`; `-` finds the editor as a Rust game does), writes the trace to TRACE, and prints what happens as
JSON, a line each. The constants are read from include/arbor.h, so they cannot drift.
"""

import ctypes
import json
import os
import re
import sys
import time
from ctypes import (CFUNCTYPE, POINTER, Structure, c_bool, c_char_p, c_double, c_int32,
                    c_int64, c_size_t, c_uint32, c_uint64, c_void_p)

HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "include", "arbor.h")
C = {name: int(value) for name, value in
     re.findall(r"^#define (ARBOR_\w+) (\d+)$", open(HEADER).read(), re.M)}


class Value(Structure):
    _fields_ = [("type", c_int32), ("boolean", c_bool), ("number", c_double),
                ("integer", c_int64), ("text", c_char_p), ("text_len", c_size_t),
                ("entity", c_uint64), ("position", c_double * 2)]


class Node(Structure):
    _fields_ = [("fields", POINTER(Value)), ("field_count", c_size_t),
                ("memory", POINTER(c_uint64)), ("step", c_uint64), ("reserved", c_void_p)]


EXECUTE = CFUNCTYPE(c_int32, c_void_p, c_void_p, POINTER(Node), c_double)
ENTER = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(Node))
EXIT = CFUNCTYPE(None, c_void_p, c_void_p, POINTER(Node), c_int32)
CHECK = CFUNCTYPE(c_int32, c_void_p, c_void_p, POINTER(Node))


class Action(Structure):
    _fields_ = [("user", c_void_p), ("execute", EXECUTE), ("enter", ENTER), ("exit", EXIT)]


class Runs(Structure):
    _fields_ = [(n, c_uint64) for n in ("steps", "succeeded", "failed", "skipped", "stalls",
                                        "context_missing", "interrupts")]


LIBRARY = json.dumps({"format": "arbor.nodes", "version": 1, "library": "pygame", "kinds": [
    {"kind": "Lap", "category": "leaf", "doc": "Runs a lap of `every` steps.",
     "fields": [{"name": "every", "type": "int", "default": 2, "min": 1, "max": 50}]},
    {"kind": "Fresh", "category": "condition", "doc": "Not tired yet.", "fields": []}]})

TREE = json.dumps({"format": "arbor.tree", "version": 1,
                   "keys": [{"name": "laps", "type": "int"}],
                   "nodes": [
                       {"id": "root", "kind": "Root", "inputs": {"child": ["loop"]}},
                       {"id": "loop", "kind": "Sequence",
                        "inputs": {"conditions": ["fresh"], "children": ["lap"]}},
                       {"id": "fresh", "kind": "Fresh"},
                       {"id": "lap", "kind": "Lap", "fields": {"every": 3}}]})


def say(**what):
    print(json.dumps(what), flush=True)


def main():
    lib = ctypes.CDLL(sys.argv[1])
    address = None if sys.argv[2] == "-" else sys.argv[2].encode()
    steps, trace_path = int(sys.argv[3]), sys.argv[4].encode()
    lib.arbor_last_error.restype = c_char_p
    lib.arbor_abi_version.restype = c_uint32
    lib.arbor_agent_step.argtypes = [c_uint64, c_double, c_void_p]
    lib.arbor_agent_set.argtypes = [c_uint64, c_char_p, Value]
    lib.arbor_agent_get.argtypes = [c_uint64, c_char_p, POINTER(Value)]
    lib.arbor_tree_load_text.argtypes = [c_uint64, c_char_p, c_char_p, c_size_t,
                                         POINTER(c_uint64)]
    lib.arbor_runtime_load_library_text.argtypes = [c_uint64, c_char_p, c_char_p, c_size_t]
    lib.arbor_runtime_register_action.argtypes = [c_uint64, c_char_p, POINTER(Action)]
    lib.arbor_runtime_register_condition.argtypes = [c_uint64, c_char_p, CHECK, c_void_p]
    lib.arbor_agent_new.argtypes = [c_uint64, c_char_p, c_uint64, POINTER(c_uint64)]
    lib.arbor_trace_open.argtypes = [c_char_p, c_double, c_uint64, POINTER(c_uint64), c_size_t,
                                     POINTER(c_uint64)]
    lib.arbor_link_connect.argtypes = [c_char_p, c_double, c_uint64, POINTER(c_uint64),
                                       c_size_t, c_char_p, POINTER(c_uint64)]
    lib.arbor_link_connected.argtypes = [c_uint64, POINTER(c_int32)]
    lib.arbor_agent_runs.argtypes = [c_uint64, POINTER(Runs)]
    for f in ("arbor_trace_close", "arbor_link_free", "arbor_agent_free", "arbor_tree_free",
              "arbor_runtime_free"):
        getattr(lib, f).argtypes = [c_uint64]

    def ok(code):
        if code != C["ARBOR_OK"]:
            raise SystemExit(f"error {code}: {lib.arbor_last_error().decode()}")

    assert lib.arbor_abi_version() == C["ARBOR_ABI_VERSION"]
    laps = [0]

    @EXECUTE
    def lap(user, agent, node, dt):
        n = node.contents
        every = n.fields[0].integer
        n.memory[0] += 1
        if n.memory[0] >= every:
            n.memory[0] = 0
            laps[0] += 1
            return C["ARBOR_SUCCESS"]
        return C["ARBOR_RUNNING"]

    @CHECK
    def fresh(user, agent, node):
        return 1

    runtime, tree, agent, trace, link = (c_uint64() for _ in range(5))
    ok(lib.arbor_runtime_new(ctypes.byref(runtime)))
    ok(lib.arbor_runtime_load_library_text(runtime, b"pygame.nodes.json", LIBRARY.encode(), 0))
    action = Action(execute=lap)
    ok(lib.arbor_runtime_register_action(runtime, b"Lap", ctypes.byref(action)))
    ok(lib.arbor_runtime_register_condition(runtime, b"Fresh", fresh, None))
    ok(lib.arbor_tree_load_text(runtime, b"runner.json", TREE.encode(), 0, ctypes.byref(tree)))
    ok(lib.arbor_agent_new(tree, b"runner", 0, ctypes.byref(agent)))
    agents = (c_uint64 * 1)(agent.value)
    ok(lib.arbor_trace_open(trace_path, 0.1, 0, agents, 1, ctypes.byref(trace)))
    ok(lib.arbor_link_connect(b"pygame-ffi", 0.1, 0, agents, 1, address, ctypes.byref(link)))
    say(ready=True)
    stepped, held, deadline = 0, False, time.time() + 120
    while stepped < steps and time.time() < deadline:
        code = lib.arbor_agent_step(agent, 0.1, None)
        if code == C["ARBOR_HELD"]:
            if not held:
                say(held=stepped)
            held = True
        else:
            ok(code)
            if held:
                say(resumed=stepped)
            held = False
            stepped += 1
            # The blackboard by type, between steps.
            ok(lib.arbor_agent_set(agent, b"laps", Value(type=C["ARBOR_INT"], integer=laps[0])))
            got = Value()
            ok(lib.arbor_agent_get(agent, b"laps", ctypes.byref(got)))
            assert (got.type, got.integer) == (C["ARBOR_INT"], laps[0]), (got.type, got.integer)
        time.sleep(0.01)
    runs = Runs()
    ok(lib.arbor_agent_runs(agent, ctypes.byref(runs)))
    ok(lib.arbor_trace_close(trace))
    ok(lib.arbor_link_free(link))
    ok(lib.arbor_agent_free(agent))
    # A handle freed is refused, with a message.
    code = lib.arbor_agent_step(agent, 0.1, None)
    say(done=laps[0], succeeded=runs.succeeded, steps=stepped, freed=code,
        freed_says=lib.arbor_last_error().decode())
    ok(lib.arbor_tree_free(tree))
    ok(lib.arbor_runtime_free(runtime))


main()
