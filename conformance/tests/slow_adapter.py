"""A tool that is slow, or hangs, on request: the harness must tell the two apart.

Usage: slow_adapter.py DIR

In a case whose id ends in `slow`, the first call this adapter gets in the whole run is not
answered: it blocks reading DIR/never, a FIFO nobody opens for writing, until the harness gives
up and kills it. It leaves DIR/slow-seen behind first, so every later process answers at once.
It stands for a tool that would answer, but not within the limit on a busy machine. In a case
whose id ends in `hang`, every call blocks so: a tool that never answers. Every other call is
answered at once. No clock is involved: whether a call blocks depends on these names alone.
"""

import json
import os
import sys

work = sys.argv[1]
never = os.path.join(work, "never")
seen = os.path.join(work, "slow-seen")


def block():
    try:
        os.mkfifo(never)
    except FileExistsError:
        pass
    # Opening a FIFO for reading waits for a writer, and there is none.
    with open(never) as f:
        f.read()


case = ""
for line in sys.stdin:
    m = json.loads(line)
    kind = m["type"]
    if kind == "hello":
        # Edit is declared so that there is a tool that writes to certify (the harness refuses
        # to judge one that writes nothing); the test's corpus calls Read alone.
        r = {"type": "hello", "protocol": 1, "implementation": {"name": "slow", "version": "0"},
             "features": ["read", "edit"]}
    elif kind == "case_start":
        case = m["id"]
        r = {"type": "ready"}
    elif kind == "case_end":
        r = {"type": "done"}
    elif kind == "bye":
        break
    else:
        first_slow = case.endswith("slow") and not os.path.exists(seen)
        if first_slow:
            open(seen, "w").close()
        if first_slow or case.endswith("hang"):
            block()
        r = {"type": "result", "seq": m["seq"], "ok": True, "output": {"type": "text"}}
    print(json.dumps(r), flush=True)
