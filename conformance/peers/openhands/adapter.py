#!/usr/bin/env python3
"""editref conformance adapter (protocol v1) for OpenHands' file editor (openhands-aci).

Drives the installed package's own ``OHEditor`` — the class behind OpenHands'
``str_replace_editor`` tool — with a new editor for every case, so its undo history starts
empty. The corpus tools map onto its commands:

    Read                          -> view (offset/limit become view_range)
    Edit                          -> str_replace
    Write                         -> create (the editor refuses a path that exists)
    Undo                          -> undo_edit (one step per call)
    str_replace_based_edit_tool   -> the same command, parameters passed as they came
    (and its older name str_replace_editor)

The adapter only renames parameters and turns the editor's replies and exceptions into the
shapes and codes of SPEC.md §12-13. It never touches the files itself: the bytes on disk are
what the editor wrote. The editor's own text is passed on verbatim (its view output keeps its
``cat -n`` header and padded line numbers).

Stdout carries protocol replies only; anything else goes to stderr.
"""

import json
import os
import re
import sys
import threading

IMPLEMENTATION = {"name": "OpenHands (openhands-aci)", "version": "0.3.3"}

FEATURES = [
    "read", "edit", "write",
    "text_editor",      # OHEditor is an implementation of that very tool
    "undo",             # undo_edit: a per-file history of the editor's writes
    "partial_read",     # view_range
    "crlf",             # files are read with universal newlines, so LF text matches CRLF files
    "utf8_bom", "utf16le", "utf16be", "legacy_encoding",  # charset detection per file
    "symlink", "posix_mode",  # create and str_replace rewrite the file in place, through links
]

# The editor module imports pandas and friends (for its Markdown converter), which takes a
# few seconds; start that at once, answer hello meanwhile, and wait for it on case_start.
_editor_mod = {}


def _load():
    try:
        from openhands_aci.editor import editor as mod
        from openhands_aci.editor import exceptions as exc
        _editor_mod["editor"] = mod
        _editor_mod["exc"] = exc
    except Exception as e:  # reported on case_start
        _editor_mod["error"] = e


_loader = threading.Thread(target=_load, daemon=True)
_loader.start()


class Failure(Exception):
    def __init__(self, code, message, **fields):
        super().__init__(message)
        self.error = {"code": code, "message": message, **fields}


# --- calls --------------------------------------------------------------------------------


def _dict(inp):
    if not isinstance(inp, dict):
        raise Failure("invalid_input", "input must be an object")
    return inp


def _extra(inp, known):
    """Keys the corpus sent beyond the ones translated. OHEditor takes **kwargs and ignores
    them, so they are passed on and it decides; names of its own parameters are not
    smuggled in that way."""
    own = {"command", "path", "file_text", "view_range", "old_str", "new_str", "insert_line"}
    return {k: v for k, v in inp.items() if k not in known and k not in own}


def run(editor, tool, inp):
    inp = _dict(inp)
    if tool == "Read":
        offset, limit = inp.get("offset"), inp.get("limit")
        view_range = None
        if offset is not None or limit is not None:
            first = offset if offset is not None else 1
            last = first + limit - 1 if limit is not None else -1
            view_range = [first, last]
        res = editor(command="view", path=inp.get("file_path"), view_range=view_range,
                     **_extra(inp, {"file_path", "offset", "limit"}))
        return read_output(inp.get("file_path"), res)
    if tool == "Edit":
        if inp.get("replace_all") not in (None, False):
            raise Failure("invalid_input", "OHEditor's str_replace has no replace_all")
        res = editor(command="str_replace", path=inp.get("file_path"),
                     old_str=inp.get("old_string"), new_str=inp.get("new_string"),
                     **_extra(inp, {"file_path", "old_string", "new_string", "replace_all"}))
        return {"filePath": res.path, "oldString": inp.get("old_string"),
                "newString": inp.get("new_string"), "replaceAll": False, "replacements": 1,
                "message": res.output}
    if tool == "Write":
        res = editor(command="create", path=inp.get("file_path"), file_text=inp.get("content"),
                     **_extra(inp, {"file_path", "content"}))
        # create only ever makes a new file: it refuses a path that exists.
        return {"type": "create", "filePath": res.path, "content": inp.get("content"),
                "structuredPatch": [], "originalFile": None, "message": res.output}
    if tool == "Undo":
        steps = inp.get("steps", 1)
        if steps != 1:
            raise Failure("invalid_input", "OHEditor's undo_edit takes back one edit per call")
        res = editor(command="undo_edit", path=inp.get("file_path"),
                     **_extra(inp, {"file_path", "steps"}))
        return {"filePath": res.path, "message": res.output}
    if tool in ("str_replace_based_edit_tool", "str_replace_editor"):
        res = editor(**inp)  # the tool's own parameters, as the model would send them
        return editor_output(inp, res)
    raise Failure("invalid_input", f"OpenHands' editor has no tool for {tool!r}")


def read_output(path, res):
    if res.error:
        raise Failure("io", res.error)
    return {"type": "text", "file": {"filePath": path, "content": res.output}}


def editor_output(inp, res):
    command = inp.get("command")
    if command == "view":
        if os.path.isdir(res.path or ""):
            if res.error:
                raise Failure("io", res.error)
            return {"command": "view_directory", "path": res.path, "listing": res.output}
        result = read_output(res.path, res)
    elif command == "create":
        result = {"type": "create", "filePath": res.path, "content": inp.get("file_text"),
                  "structuredPatch": [], "originalFile": None}
    else:
        result = {"filePath": res.path, "message": res.output}
    return {"command": command, "path": res.path, "result": result}


# --- OHEditor's exceptions -> SPEC codes ----------------------------------------------------


def error_for(e):
    if isinstance(e, Failure):
        return e.error
    exc = _editor_mod.get("exc")
    msg = getattr(e, "message", None) or str(e) or type(e).__name__
    if exc and isinstance(e, exc.EditorToolParameterInvalidError):
        if e.parameter == "path":
            if "does not exist" in msg:
                return {"code": "file_not_found", "message": msg}
            if "already exists" in msg:
                return {"code": "file_exists", "message": msg}
            if "is a directory" in msg:
                return {"code": "is_directory", "message": msg}
            if "absolute path" in msg:
                return {"code": "invalid_path", "message": msg}
            if "binary file" in msg:
                return {"code": "binary", "message": msg}
        if e.parameter == "new_str" and "must be different" in msg:
            return {"code": "no_change", "message": msg}
        return {"code": "invalid_input", "message": msg, "field": e.parameter}
    if exc and isinstance(e, exc.EditorToolParameterMissingError):
        return {"code": "invalid_input", "message": msg, "field": e.parameter}
    if exc and isinstance(e, exc.FileValidationError):
        if "binary" in e.reason:
            return {"code": "binary", "message": msg}
        if "too large" in e.reason:
            return {"code": "too_large", "message": msg}
        return {"code": "io", "message": msg}
    if exc and isinstance(e, exc.ToolError):
        if "did not appear verbatim" in msg:
            return {"code": "not_found", "message": msg}
        m = re.search(r"Multiple occurrences of old_str .* in lines (\[[\d, ]*\])", msg, re.S)
        if m:
            # The editor names the lines (each once), not the number of hits.
            return {"code": "ambiguous", "message": msg, "lines": json.loads(m.group(1))[:10]}
        if msg.startswith("No edit history found"):
            return {"code": "nothing_to_undo", "message": msg}
        if msg.startswith("Unrecognized command"):
            return {"code": "invalid_input", "message": msg, "field": "command"}
        if "codec can't decode" in msg or "codec can't encode" in msg:
            return {"code": "encoding", "message": msg}
        if "Permission denied" in msg:
            return {"code": "permission_denied", "message": msg}
        return {"code": "io", "message": msg}
    if isinstance(e, FileNotFoundError):
        return {"code": "file_not_found", "message": msg}
    if isinstance(e, IsADirectoryError):
        return {"code": "is_directory", "message": msg}
    if isinstance(e, PermissionError):
        return {"code": "permission_denied", "message": msg}
    if isinstance(e, UnicodeError):
        return {"code": "encoding", "message": f"{type(e).__name__}: {msg}"}
    if isinstance(e, (TypeError, ValueError)):
        # Wrong types reach the editor unchecked and fail inside it.
        return {"code": "invalid_input", "message": f"{type(e).__name__}: {msg}"}
    return {"code": "io", "message": f"{type(e).__name__}: {msg}"}


# --- protocol loop --------------------------------------------------------------------------


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    editor = None
    for raw in sys.stdin:
        if not raw.strip():
            continue
        try:
            msg = json.loads(raw)
        except Exception as e:
            send({"type": "result", "seq": None, "ok": False,
                  "error": {"code": "invalid_input", "message": f"not JSON: {e}"}})
            continue
        kind = msg.get("type") if isinstance(msg, dict) else None
        seq = msg.get("seq") if isinstance(msg, dict) else None
        try:
            if kind == "hello":
                send({"type": "hello", "protocol": 1, "implementation": IMPLEMENTATION,
                      "features": FEATURES})
            elif kind == "case_start":
                _loader.join()
                if "error" in _editor_mod:
                    raise Failure("io", f"cannot import openhands_aci: {_editor_mod['error']}")
                os.chdir(msg["sandbox"])
                # workspace_root only feeds its "did you mean" hint for relative paths.
                editor = _editor_mod["editor"].OHEditor(workspace_root=msg["sandbox"])
                send({"type": "ready"})
            elif kind == "call":
                if editor is None:
                    raise Failure("io", "no case started")
                try:
                    out = run(editor, msg.get("tool"), msg.get("input"))
                except Exception as e:
                    send({"type": "result", "seq": seq, "ok": False, "error": error_for(e)})
                else:
                    send({"type": "result", "seq": seq, "ok": True, "output": out})
            elif kind == "case_end":
                editor = None
                send({"type": "done"})
            elif kind == "bye":
                return 0
            else:
                raise Failure("invalid_input", f"unknown message type {kind!r}")
        except Exception as e:
            send({"type": "result", "seq": seq, "ok": False, "error": error_for(e)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
