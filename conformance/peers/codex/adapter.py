#!/usr/bin/env python3
"""editref adapter (protocol v1) for Codex's apply_patch.

Codex edits files with one tool only: `apply_patch`, which takes a patch in its V4A format.
This adapter turns every corpus call into such a patch, pipes it to Codex's own binary run as
`apply_patch` (the symlink $PEER_HOME/bin/apply_patch, made by peer.sh), and reports what the
binary answered. It never touches a file itself: the bytes on disk are the ones Codex wrote.

How each corpus tool becomes a patch (patch.py holds the details):

* apply_patch — the patch text (`input`) is sent as it is; the Responses API operation form
  (`type` + `path` + `diff`) is wrapped in the matching `*** Add/Update/Delete File:` header.
* Edit — `*** Update File:` with one chunk: `-` for the lines `old_string` touches, `+` for
  the same lines with `new_string` in its place. An empty `old_string` is `*** Add File:`.
* Write — `*** Add File:` for a path where nothing exists; for an existing file,
  `*** Delete File:` followed by `*** Add File:` in one patch.

Codex has no Read tool (its agent reads files with shell commands), no MultiEdit, no
`replace_all` and no dry run; those calls are answered with an `invalid_input` error that says
so, and the features are not declared.
"""

import json
import os
import subprocess
import sys

import patch as v4a


def installed_version():
    """The version of the @openai/codex package installed in $PEER_HOME."""
    manifest = os.path.join(os.environ.get("PEER_HOME", ""), "node_modules", "@openai", "codex",
                            "package.json")
    try:
        with open(manifest) as fh:
            return str(json.load(fh).get("version", "unknown"))
    except (OSError, ValueError):
        return "unknown"


IMPLEMENTATION = {"name": "Codex apply_patch", "version": installed_version()}

# What Codex really has: an edit tool (apply_patch), through which Edit and Write are
# expressed. See README.md for why nothing else is declared.
FEATURES = ["edit", "write", "apply_patch"]

# Per-call ceiling for the binary; the harness's own timeout is 10 s.
RUN_TIMEOUT = 8


def apply_patch_binary():
    home = os.environ.get("PEER_HOME", "")
    return os.path.join(home, "bin", "apply_patch")


def failure(code, message):
    return {"ok": False, "error": {"code": code, "message": message}}


def error_code(message):
    """The SPEC code for one of Codex's failure messages, where its meaning is unambiguous."""
    if message.startswith("Invalid patch"):
        return "invalid_patch"
    if message.startswith("Failed to find expected lines") or \
            message.startswith("Failed to find context"):
        return "not_found"
    if "(os error 2)" in message:          # ENOENT on the file to update
        return "file_not_found"
    if "(os error 21)" in message:         # EISDIR
        return "is_directory"
    if "(os error 13)" in message:         # EACCES
        return "permission_denied"
    return "io"


def run_patch(text, cwd):
    """Pipes a V4A patch to Codex's apply_patch in `cwd` and turns its answer into a reply."""
    try:
        run = subprocess.run([apply_patch_binary()], input=text.encode("utf-8", "surrogatepass"),
                             cwd=cwd, capture_output=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return failure("io", "apply_patch did not finish in time")
    except OSError as exc:
        return failure("io", f"cannot run apply_patch: {exc}")
    out = run.stdout.decode("utf-8", "replace")
    err = run.stderr.decode("utf-8", "replace").strip()
    if run.returncode == 0:
        # Codex answers with text only ("Success. Updated the following files: ..."); that text
        # is the whole output, nothing is made up on its behalf.
        return {"ok": True, "output": {"message": out}}
    message = err or out.strip() or f"apply_patch exited with status {run.returncode}"
    return failure(error_code(message), message)


class Session:
    """One case: the sandbox is the working directory Codex runs in."""

    def __init__(self, sandbox):
        self.cwd = sandbox

    def call(self, tool, inp):
        if not isinstance(inp, dict):
            return failure("invalid_input", "the input must be an object")
        try:
            if tool == "apply_patch":
                text = v4a.from_apply_patch(inp)
            elif tool == "Edit":
                text = v4a.from_edit(inp, self.cwd)
            elif tool == "Write":
                text = v4a.from_write(inp, self.cwd)
            else:
                return failure("invalid_input",
                               f"Codex has no {tool} tool; it edits files only through apply_patch")
        except v4a.Untranslatable as exc:
            return failure("invalid_input", str(exc))
        return run_patch(text, self.cwd)


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def handle(msg, state):
    """Answers one protocol message; returns False once the session is over."""
    kind = msg.get("type")
    if kind == "hello":
        send({"type": "hello", "protocol": 1, "implementation": IMPLEMENTATION,
              "features": FEATURES})
    elif kind == "case_start":
        state["session"] = Session(str(msg.get("sandbox", ".")))
        send({"type": "ready"})
    elif kind == "call":
        session = state.get("session") or Session(os.getcwd())
        try:
            reply = session.call(msg.get("tool"), msg.get("input"))
        except Exception as exc:  # an adapter bug must still be an answer, never an exit
            reply = failure("io", f"adapter error: {type(exc).__name__}: {exc}")
        send({"type": "result", "seq": msg.get("seq"), **reply})
    elif kind == "case_end":
        state.pop("session", None)
        send({"type": "done"})
    elif kind == "bye":
        return False
    else:
        send({"type": "result", "seq": msg.get("seq"), **failure(
            "invalid_input", f"unknown message type {kind!r}")})
    return True


def main():
    state = {}
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        try:
            msg = json.loads(raw.decode("utf-8", "replace"))
            if not isinstance(msg, dict):
                raise ValueError("not an object")
        except ValueError as exc:
            send({"type": "result", "seq": None, **failure("invalid_input", f"bad line: {exc}")})
            continue
        if not handle(msg, state):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
