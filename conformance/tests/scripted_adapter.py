#!/usr/bin/env python3
"""A scripted protocol-v1 adapter for the harness's tests (standard library only).

It offers Read, and a plain Write so that it has a tool that writes (the harness judges no
tool that writes nothing), and shows files the way some shipping tools do: without line
numbers, which it declares in its hello as "read_format": "plain". A file whose name starts with
"lone" is answered with a lone surrogate (json.dumps writes it as the escape \\ud800), as a
tool might for a UTF-16 file holding an unpaired surrogate.
"""
import json
import os
import sys


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def read(path):
    if os.path.basename(path).startswith("lone"):
        lines = ["\ud800"]
    else:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    return {"type": "text", "file": {"filePath": path, "content": "\n".join(lines),
                                     "numLines": len(lines), "startLine": 1,
                                     "totalLines": len(lines)}}


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        reply({"type": "hello", "protocol": 1, "read_format": "plain",
               "implementation": {"name": "scripted", "version": "0"}, "features": ["read", "write"]})
    elif kind == "case_start":
        reply({"type": "ready"})
    elif kind == "case_end":
        reply({"type": "done"})
    elif kind == "bye":
        sys.exit(0)
    elif msg["tool"] == "Read":
        reply({"type": "result", "seq": msg["seq"], "ok": True, "output": read(msg["input"]["file_path"])})
    elif msg["tool"] == "Write":
        with open(msg["input"]["file_path"], "w", encoding="utf-8") as f:
            f.write(msg["input"]["content"])
        reply({"type": "result", "seq": msg["seq"], "ok": True, "output": {}})
    else:
        reply({"type": "result", "seq": msg["seq"], "ok": False,
               "error": {"code": "invalid_input", "message": "only Read and Write"}})
