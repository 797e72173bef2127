#!/usr/bin/env python3
"""Conformance adapter for the common "safe edit" pattern.

The tool modelled here is the pattern most hand-written agent edit tools converge on:

1. refuse a missing file;
2. read the file as text;
3. count the occurrences of ``old_string``: none -> ``not_found``, more than one ->
   ``ambiguous`` (with the count), so exactly one occurrence is ever replaced;
4. refuse an edit that would change nothing (``no_change``);
5. write the new text to a temporary file next to the target and ``os.replace`` it over the
   target, so a crash leaves either the old or the new file;
6. answer with a unified diff of the change. ``dry_run`` runs the same checks and returns the
   diff without writing (the pattern's "preview" tool).

It fixes the worst faults of the naive tool, and it keeps the gaps the pattern is known for.
They are intentional, so that the corpus shows where the pattern falls short:

* the temporary file is created with default permissions (0600) and nothing copies the old
  mode, so an edited file loses its mode bits; a read-only file is edited anyway;
* ``os.replace`` on the path given replaces a symlink with a regular file and splits a file
  with several hard links;
* the file is read in Python's default text mode: CRLF and lone CR become LF on disk, and a
  file that is not valid in the locale encoding (UTF-8) is refused with ``encoding``, so
  legacy encodings and UTF-16 cannot be edited; a UTF-8 BOM is carried along as a character;
* nothing is fsynced; there is no read-before-write rule, no staleness check, no curly-quote
  or line-prefix repair, no ``replace_all``, no MultiEdit and no notebook support;
* an empty ``old_string`` counts as occurring everywhere, so it cannot create a file.

Read numbers lines as ``N<TAB>text`` and honours ``offset``/``limit``. Write uses the same
temp-file-and-rename step as Edit and creates missing parent directories.

Speaks adapter protocol v1 (JSON lines on stdin/stdout). Nothing but protocol replies is
written to stdout; diagnostics, if any, go to stderr.
"""

import difflib
import json
import os
import sys
import tempfile
from pathlib import Path

IMPLEMENTATION = {"name": "safe-edit-pattern", "version": "1.0"}

FEATURES = ["read", "edit", "write", "dry_run", "atomic_write"]

# Keep a runaway read (a device such as /dev/zero) from exhausting the host: past this much
# address space Python raises MemoryError, which becomes an `io` error.
MEMORY_CAP = 1 << 30


class ToolFailure(Exception):
    """A refusal with a protocol error code and optional structured fields."""

    def __init__(self, code, message, **fields):
        super().__init__(message)
        self.code = code
        self.message = message
        self.fields = fields


# --- the tool itself ---------------------------------------------------------------------


def unified_diff(path, before, after):
    return "".join(difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"{path} (before)",
        tofile=f"{path} (after)",
        n=3,
    ))


def atomic_write(p, text):
    tmp_fd, tmp_path = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(tmp_fd, "w") as fh:
            fh.write(text)
        os.replace(tmp_path, p)
    except Exception:
        if os.path.exists(tmp_path):
            os.remove(tmp_path)
        raise


def edit_file(path, old, new, dry_run=False):
    if old == new:
        raise ToolFailure("no_change", "old_string and new_string are the same; nothing to do")
    p = Path(path)
    if not p.exists():
        raise ToolFailure("file_not_found", f"file not found: {path}")

    content = p.read_text()

    if old not in content:
        raise ToolFailure("not_found", f"old string not found in {path}; read the file again "
                                       "and copy the text exactly")
    occurrences = content.count(old)
    if occurrences > 1:
        raise ToolFailure("ambiguous", f"old string appears {occurrences} times in {path}; "
                                       "include more surrounding lines so it occurs once",
                          count=occurrences)

    new_content = content.replace(old, new, 1)
    if not dry_run:
        atomic_write(p, new_content)

    result = {
        "filePath": str(p),
        "oldString": old,
        "newString": new,
        "replaceAll": False,
        "replacements": 1,
        "diff": unified_diff(path, content, new_content),
        "repairs": [],
        "userModified": False,
    }
    if dry_run:
        result["dryRun"] = True
    return result


def read_file(path, offset=None, limit=None):
    text = Path(path).read_text()
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # a final newline does not start another line
    start = offset if offset and offset > 1 else 1
    chosen = lines[start - 1:]
    if limit is not None:
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
    p = Path(path)
    existed = p.exists()
    p.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(p, content)
    result = {"type": "update" if existed else "create", "filePath": path, "content": content}
    if not existed:
        result["structuredPatch"] = []
        result["originalFile"] = None
    return result


# --- input checking ----------------------------------------------------------------------


def check_input(inp, required, optional):
    if not isinstance(inp, dict):
        raise ToolFailure("invalid_input", "InputValidationError: input must be an object")
    for name in inp:
        if name not in required and name not in optional:
            raise ToolFailure("invalid_input", f"InputValidationError: unknown field {name}")
    for name, kind in required.items():
        if name not in inp:
            raise ToolFailure("invalid_input", f"InputValidationError: missing field {name}")
        if not isinstance(inp[name], kind) or isinstance(inp[name], bool) != (kind is bool):
            raise ToolFailure("invalid_input", f"InputValidationError: {name} has the wrong type")
    for name, kind in optional.items():
        if name in inp and inp[name] is not None:
            value = inp[name]
            if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
                raise ToolFailure("invalid_input",
                                  f"InputValidationError: {name} has the wrong type")


def run_tool(tool, inp):
    if tool == "Edit":
        check_input(inp, {"file_path": str, "old_string": str, "new_string": str},
                    {"replace_all": bool, "dry_run": bool})
        if inp.get("replace_all"):
            raise ToolFailure("invalid_input", "InputValidationError: replace_all is not "
                                               "supported; make old_string unique instead")
        return edit_file(inp["file_path"], inp["old_string"], inp["new_string"],
                         bool(inp.get("dry_run")))
    if tool == "Read":
        check_input(inp, {"file_path": str}, {"offset": int, "limit": int})
        return read_file(inp["file_path"], inp.get("offset"), inp.get("limit"))
    if tool == "Write":
        check_input(inp, {"file_path": str, "content": str}, {})
        return write_file(inp["file_path"], inp["content"])
    raise ToolFailure("invalid_input", f"tool {tool!r} is not supported by this implementation")


# --- protocol glue -----------------------------------------------------------------------


def error_for(exc):
    if isinstance(exc, ToolFailure):
        return {"code": exc.code, "message": exc.message, **exc.fields}
    if isinstance(exc, FileNotFoundError):
        code = "file_not_found"
    elif isinstance(exc, IsADirectoryError):
        code = "is_directory"
    elif isinstance(exc, PermissionError):
        code = "permission_denied"
    elif isinstance(exc, UnicodeError):
        code = "encoding"
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
