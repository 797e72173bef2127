#!/usr/bin/env python3
"""Conformance adapter for the naive edit tool: the baseline every case should catch.

The tool modelled here is the smallest edit tool one can write: read the file as text, call
``str.replace(old, new)`` on it and write the result back in place. It is kept exactly that
simple on purpose, so the conformance corpus shows what such a tool gets wrong:

* every occurrence is replaced, whatever ``replace_all`` says (no uniqueness check);
* an ``old_string`` that does not occur still "succeeds" and rewrites the file unchanged;
* an empty ``old_string`` inserts ``new_string`` between every pair of characters;
* the file is truncated before the new text is written (no temp file, no atomic rename), so a
  failure in between leaves it empty;
* there is no read-before-write rule and no staleness check;
* files are read and written in Python's default text mode: CRLF and lone CR turn into LF, a
  BOM is kept as a character, bytes that are not valid in the locale encoding are an error.

Read numbers lines as ``N<TAB>text`` and honours ``offset``/``limit``; Write writes the content
as given. Errors are mapped from Python exceptions: FileNotFoundError -> file_not_found,
IsADirectoryError -> is_directory, anything else -> io. Input that cannot even be picked apart
(a missing field, an input that is not an object) is invalid_input.

Speaks adapter protocol v1 (JSON lines on stdin/stdout). Nothing but protocol replies is
written to stdout; diagnostics, if any, go to stderr.
"""

import json
import os
import sys

IMPLEMENTATION = {"name": "naive-replace", "version": "1.0"}

# What this tool really has. It replaces every occurrence every time, so cases that ask for
# replace_all are within its reach; everything else (uniqueness, atomic writes, encodings...)
# it lacks, and the cases for the core contract need nothing but `edit`.
FEATURES = ["read", "edit", "write", "replace_all"]

# Keep a runaway read (a device such as /dev/zero) from exhausting the host: past this much
# address space Python raises MemoryError, which becomes an `io` error.
MEMORY_CAP = 1 << 30


class ToolFailure(Exception):
    """A refusal with a protocol error code."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


# --- the tool itself ---------------------------------------------------------------------


def edit_file(path, old, new):
    with open(path) as fh:
        content = fh.read()
    with open(path, "w") as fh:
        fh.write(content.replace(old, new))
    return f"edited {path}"


def read_file(path, offset=None, limit=None):
    with open(path) as fh:
        text = fh.read()
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # a final newline does not start another line
    start = offset if isinstance(offset, int) and offset > 1 else 1
    chosen = lines[start - 1:]
    if isinstance(limit, int) and limit >= 0:
        chosen = chosen[:limit]
    numbered = "\n".join(f"{start + i}\t{line}" for i, line in enumerate(chosen))
    return {
        "type": "text",
        "file": {
            "filePath": path,
            "content": numbered,
            "numLines": len(chosen),
            "startLine": start,
            "totalLines": len(lines),
        },
    }


def write_file(path, content):
    existed = os.path.exists(path)
    with open(path, "w") as fh:
        fh.write(content)
    result = {"type": "update" if existed else "create", "filePath": path, "content": content}
    if not existed:
        result["structuredPatch"] = []
        result["originalFile"] = None
    return result


# --- protocol glue -----------------------------------------------------------------------


def field(inp, name):
    try:
        return inp[name]
    except (KeyError, TypeError, IndexError):
        raise ToolFailure("invalid_input", f"InputValidationError: missing field {name}")


def run_tool(tool, inp):
    if tool == "Edit":
        path = field(inp, "file_path")
        old = field(inp, "old_string")
        new = field(inp, "new_string")
        return {"filePath": path, "message": edit_file(path, old, new)}
    if tool == "Read":
        path = field(inp, "file_path")
        return read_file(path, inp.get("offset"), inp.get("limit"))
    if tool == "Write":
        return write_file(field(inp, "file_path"), field(inp, "content"))
    raise ToolFailure("invalid_input", f"tool {tool!r} is not supported by this implementation")


def error_for(exc):
    if isinstance(exc, ToolFailure):
        return {"code": exc.code, "message": exc.message}
    if isinstance(exc, FileNotFoundError):
        code = "file_not_found"
    elif isinstance(exc, IsADirectoryError):
        code = "is_directory"
    else:
        code = "io"
    return {"code": code, "message": f"{type(exc).__name__}: {exc}"}


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def handle(line):
    """Answers one protocol line; returns False when the session is over."""
    try:
        msg = json.loads(line)
    except Exception as exc:
        send({"type": "result", "seq": None, "ok": False,
              "error": {"code": "invalid_input", "message": f"not a JSON line: {exc}"}})
        return True
    kind = msg.get("type") if isinstance(msg, dict) else None
    seq = msg.get("seq") if isinstance(msg, dict) else None
    if kind == "hello":
        send({"type": "hello", "protocol": 1, "implementation": IMPLEMENTATION,
              "features": FEATURES})
    elif kind == "case_start":
        try:
            os.chdir(msg["sandbox"])
        except Exception as exc:
            send({"type": "result", "seq": seq, "ok": False,
                  "error": {"code": "io", "message": f"cannot enter the sandbox: {exc}"}})
            return True
        send({"type": "ready"})
    elif kind == "call":
        try:
            output = run_tool(msg.get("tool"), msg.get("input"))
        except Exception as exc:
            send({"type": "result", "seq": seq, "ok": False, "error": error_for(exc)})
        else:
            send({"type": "result", "seq": seq, "ok": True, "output": output})
    elif kind == "case_end":
        send({"type": "done"})
    elif kind == "bye":
        return False
    else:
        send({"type": "result", "seq": seq, "ok": False,
              "error": {"code": "invalid_input", "message": f"unknown message type {kind!r}"}})
    return True


def cap_memory():
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or hard > MEMORY_CAP:
            if soft == resource.RLIM_INFINITY or soft > MEMORY_CAP:
                resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, hard))
    except Exception:
        pass


def main():
    cap_memory()
    stdin = sys.stdin.buffer
    while True:
        raw = stdin.readline()
        if not raw:
            break
        if not raw.strip():
            continue
        try:
            keep_going = handle(raw.decode("utf-8", "replace"))
        except Exception as exc:  # never let one bad line end the session
            send({"type": "result", "seq": None, "ok": False,
                  "error": {"code": "io", "message": f"adapter error: {exc}"}})
            keep_going = True
        if not keep_going:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
