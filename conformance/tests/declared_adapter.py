#!/usr/bin/env python3
"""A protocol-v1 adapter for the harness's verdict tests (standard library only).

It declares the features given on its command line and refuses every call, cleanly: an error
with the code `io`, and no file touched. Two switches change that, each for one test:

  --unknown TOOL   answer a call of TOOL with the protocol's `unknown_tool`, as an adapter does
                   that declares a tool it does not have.

With no features at all it declares none, as a tool that writes nothing would.
"""
import json
import sys

args = sys.argv[1:]
unknown = None
if args[:1] == ["--unknown"]:
    unknown, args = args[1], args[2:]
features = args


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        reply({"type": "hello", "protocol": 1, "features": features,
               "implementation": {"name": "refuses", "version": "1"}})
    elif kind == "case_start":
        reply({"type": "ready"})
    elif kind == "case_end":
        reply({"type": "done"})
    elif kind == "bye":
        sys.exit(0)
    elif msg["tool"] == unknown:
        reply({"type": "result", "seq": msg["seq"], "ok": False,
               "error": {"code": "unknown_tool", "message": f"no tool {unknown}"}})
    else:
        reply({"type": "result", "seq": msg["seq"], "ok": False,
               "error": {"code": "io", "message": "this tool refuses every call"}})
