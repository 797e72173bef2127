#!/usr/bin/env python3
"""editref conformance adapter (protocol v1) for Aider's SEARCH/REPLACE edit format.

Aider edits files by reading SEARCH/REPLACE blocks out of the model's reply. This adapter
hands such a reply to the installed aider-chat's own ``EditBlockCoder.apply_updates`` — the
method Aider runs after every model answer: it parses the blocks
(``find_original_update_blocks``), checks each file may be edited (``prepare_to_edit``: with
``--yes`` a missing file is created empty, as Aider does), and applies them (``do_replace``)
through Aider's own ``InputOutput.read_text`` / ``write_text``.

No model is involved: the coder is built without ``Coder.create`` (which would need an LLM
and would scan a git repository), with just the state ``apply_updates`` reads — the sandbox
as root, no repo, no files added to the chat, Aider's answers to its own questions set to
``--yes``. Aider's console output is captured and passed on as the message.

The corpus tools become replies:

    search_replace   the reply text, as it came
    Edit             one block naming the file: SEARCH = old_string, REPLACE = new_string
    MultiEdit        one block per edit, in order, in one reply
    Write            one block naming the file with an empty SEARCH (Aider's way to create)
    Read             not an Aider tool: the file's text as Aider's ``read_text`` loads it for
                     the chat, unnumbered

A SEARCH/REPLACE block holds whole lines, so a text that does not end with a line break gets
one in the block (the format cannot say otherwise). Nothing else is changed, and the adapter
never writes a file: the bytes on disk are Aider's.

Stdout carries protocol replies only; Aider's own prints are kept off it.
"""

import contextlib
import io as _io
import json
import os
import sys
import threading

IMPLEMENTATION = {"name": "Aider (SEARCH/REPLACE)", "version": "0.86.2"}

FEATURES = [
    "read",            # answered by Aider's read_text, see above
    "edit", "multi_edit", "write",
    "search_replace",  # the format itself
    "dry_run",         # Aider's --dry-run: every step runs, write_text writes nothing
    "crlf",            # files are read with universal newlines: LF text matches CRLF files
    "symlink", "posix_mode",  # write_text rewrites the file in place, through links
]

# The protocol's stream, kept aside: Aider's own prints are redirected to stderr while it
# runs, and replies must never follow them there.
PROTOCOL_OUT = sys.stdout

# Importing aider's coders takes a couple of seconds; do it while the harness says hello.
_aider = {}


def _load():
    try:
        from aider.coders.editblock_coder import EditBlockCoder
        from aider.io import InputOutput
        from rich.console import Console
        _aider.update(EditBlockCoder=EditBlockCoder, InputOutput=InputOutput, Console=Console)
    except Exception as e:
        _aider["error"] = e


_loader = threading.Thread(target=_load, daemon=True)
_loader.start()


class Failure(Exception):
    def __init__(self, code, message, **fields):
        super().__init__(message)
        self.error = {"code": code, "message": message, **fields}


# --- a coder without a model ------------------------------------------------------------


class Session:
    def __init__(self, root):
        self.root = root

    def coder(self, dry_run):
        """A fresh EditBlockCoder holding exactly the state apply_updates uses."""
        log = _io.StringIO()
        aio = _aider["InputOutput"](pretty=False, yes=True, fancy_input=False, root=self.root,
                                    dry_run=dry_run)
        aio.console = _aider["Console"](file=log, force_terminal=False, no_color=True, width=200)
        coder = object.__new__(_aider["EditBlockCoder"])
        coder.io = aio
        coder.root = self.root
        coder.repo = None
        coder.abs_fnames = set()
        coder.abs_read_only_fnames = set()
        coder.abs_root_path_cache = {}
        coder.shell_commands = []
        coder.dry_run = dry_run
        coder.dirty_commits = False
        coder.need_commit_before_edits = set()
        coder.num_malformed_responses = 0
        coder.reflected_message = None
        coder.warning_given = True  # the "too many files in the chat" warning counts tokens
        coder.verbose = False
        return coder, log

    def apply(self, reply, dry_run=False):
        coder, log = self.coder(bool(dry_run))
        coder.partial_response_content = reply
        with contextlib.redirect_stdout(sys.stderr):
            edited = coder.apply_updates()
        text = log.getvalue().strip()
        if coder.reflected_message is not None:
            # What Aider sends back to the model: a malformed reply or blocks that failed.
            raise Failure(*classify(coder.reflected_message))
        if coder.io.num_error_outputs:
            # Errors Aider only shows the user (OS and I/O errors while updating files,
            # a file it cannot read): apply_updates prints them and returns.
            raise Failure(console_code(text), text)
        return sorted(edited or []), text, coder


def console_code(text):
    """The code for an error Aider printed, where its wording makes the meaning plain."""
    if "is a directory" in text:
        return "is_directory"
    if "Permission denied" in text:
        return "permission_denied"
    if "codec can't" in text:
        return "encoding"
    if "file not found" in text:
        return "file_not_found"
    return "io"


def classify(message):
    """Aider's refusals -> (code, message). apply_updates reports them all as one message."""
    if "failed to match" in message:
        return "not_found", message
    # Everything else that reaches reflected_message is find_original_update_blocks
    # refusing the reply's syntax (or an exception while updating files).
    if "SEARCH" in message or "REPLACE" in message or "filename" in message.lower():
        return "invalid_patch", message
    return "io", message


# --- corpus calls -> replies ---------------------------------------------------------------


def _lines(text):
    """Block body for a text: whole lines, each ending with a line break."""
    if not isinstance(text, str):
        raise Failure("invalid_input", "old_string/new_string/content must be strings")
    return text if text == "" or text.endswith("\n") else text + "\n"


def block(path, search, replace):
    return f"{path}\n```\n<<<<<<< SEARCH\n{_lines(search)}=======\n{_lines(replace)}>>>>>>> REPLACE\n```\n"


def name_in_reply(session, path):
    if not isinstance(path, str) or not path:
        raise Failure("invalid_input", "file_path must be a non-empty string")
    rel = os.path.relpath(path, session.root) if os.path.isabs(path) else path
    return path if rel.startswith("..") else rel


def _dict(inp):
    if not isinstance(inp, dict):
        raise Failure("invalid_input", "input must be an object")
    return inp


def run(session, tool, inp):
    inp = _dict(inp)
    if tool == "search_replace":
        text = inp.get("text")
        if not isinstance(text, str):
            raise Failure("invalid_input", "text must be a string")
        edited, msg, _ = session.apply(text, inp.get("dry_run"))
        return {"files": [{"filePath": p} for p in edited], "message": msg}
    if tool == "Edit":
        if inp.get("replace_all") not in (None, False):
            raise Failure("invalid_input", "a SEARCH/REPLACE block replaces one place")
        path = name_in_reply(session, inp.get("file_path"))
        edited, msg, _ = session.apply(block(path, inp.get("old_string"), inp.get("new_string")),
                                       inp.get("dry_run"))
        # Aider answers with its message alone; no field of the result is made up here.
        return {"message": msg}
    if tool == "MultiEdit":
        path = name_in_reply(session, inp.get("file_path"))
        edits = inp.get("edits")
        if not isinstance(edits, list) or not edits:
            raise Failure("invalid_input", "edits must be a non-empty list")
        blocks = []
        for e in edits:
            e = _dict(e)
            if e.get("replace_all") not in (None, False):
                raise Failure("invalid_input", "a SEARCH/REPLACE block replaces one place")
            blocks.append(block(path, e.get("old_string"), e.get("new_string")))
        edited, msg, _ = session.apply("".join(blocks), inp.get("dry_run"))
        return {"message": msg}
    if tool == "Write":
        path = name_in_reply(session, inp.get("file_path"))
        edited, msg, _ = session.apply(block(path, "", inp.get("content")))
        return {"message": msg}
    if tool == "Read":
        path = inp.get("file_path")
        if not isinstance(path, str):
            raise Failure("invalid_input", "file_path must be a string")
        coder, log = session.coder(False)
        with contextlib.redirect_stdout(sys.stderr):
            text = coder.io.read_text(path)
        if text is None:
            msg = log.getvalue().strip()
            raise Failure(console_code(msg), msg)
        return {"type": "text", "file": {"filePath": path, "content": text}}
    raise Failure("invalid_input", f"Aider has no tool for {tool!r}")


# --- protocol loop ----------------------------------------------------------------------------


def error_for(e):
    if isinstance(e, Failure):
        return e.error
    if isinstance(e, FileNotFoundError):
        return {"code": "file_not_found", "message": str(e)}
    if isinstance(e, IsADirectoryError):
        return {"code": "is_directory", "message": str(e)}
    if isinstance(e, PermissionError):
        return {"code": "permission_denied", "message": str(e)}
    if isinstance(e, UnicodeError):
        return {"code": "encoding", "message": str(e)}
    return {"code": "io", "message": f"{type(e).__name__}: {e}"}


def send(obj):
    PROTOCOL_OUT.write(json.dumps(obj) + "\n")
    PROTOCOL_OUT.flush()


def main():
    session = None
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
                # Aider's text of a file carries no line numbers: Read is judged in that form.
                send({"type": "hello", "protocol": 1, "implementation": IMPLEMENTATION,
                      "features": FEATURES, "read_format": "plain"})
            elif kind == "case_start":
                _loader.join()
                if "error" in _aider:
                    raise Failure("io", f"cannot import aider: {_aider['error']}")
                os.chdir(msg["sandbox"])
                session = Session(msg["sandbox"])
                send({"type": "ready"})
            elif kind == "call":
                if session is None:
                    raise Failure("io", "no case started")
                try:
                    out = run(session, msg.get("tool"), msg.get("input"))
                except Exception as e:
                    send({"type": "result", "seq": seq, "ok": False, "error": error_for(e)})
                else:
                    send({"type": "result", "seq": seq, "ok": True, "output": out})
            elif kind == "case_end":
                session = None
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
