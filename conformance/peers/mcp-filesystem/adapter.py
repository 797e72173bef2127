#!/usr/bin/env python3
"""editref adapter (protocol v1) for the reference MCP filesystem server.

For each case the adapter starts the real server (`@modelcontextprotocol/server-filesystem`,
installed in $PEER_HOME) with the sandbox as its one allowed directory and as MCP root, and
talks MCP to it over stdio (mcp_client.py). Each corpus call is renamed to the server's tool and
its arguments to the server's names — nothing more:

    Read       {file_path, limit}                 -> read_text_file {path, head}
    Edit       {file_path, old_string, new_string, dry_run}
                                                  -> edit_file {path, edits: [{oldText, newText}], dryRun}
    MultiEdit  {file_path, edits: [{old_string, new_string}], dry_run}
                                                  -> edit_file {path, edits: [...], dryRun}
    Write      {file_path, content}               -> write_file {path, content}

What the server answers is passed on as it is: its `structuredContent` (else its text) is the
output; an error result's text is the message, with the SPEC code its meaning maps to
unambiguously (error_code below). Calls the server's tools cannot express (`replace_all`, a Read
`offset`, NotebookEdit) get an `invalid_input` error saying so.
"""

import json
import os
import re
import sys

from mcp_client import McpClient, McpError

FEATURES = ["read", "edit", "multi_edit", "write", "dry_run", "crlf", "posix_mode",
            "atomic_write", "root_confinement"]


class Untranslatable(Exception):
    """The call has no counterpart in the server's tools (or its input is malformed)."""


def package_version():
    manifest = os.path.join(os.environ.get("PEER_HOME", ""), "node_modules", "@modelcontextprotocol",
                            "server-filesystem", "package.json")
    try:
        with open(manifest) as fh:
            return str(json.load(fh).get("version", "unknown"))
    except (OSError, ValueError):
        return "unknown"


def server_argv(sandbox):
    script = os.path.join(os.environ.get("PEER_HOME", ""), "node_modules", "@modelcontextprotocol",
                          "server-filesystem", "dist", "index.js")
    return ["node", script, sandbox]


# --- corpus calls to server calls ----------------------------------------------------------


def _check(inp, required, optional=()):
    if not isinstance(inp, dict):
        raise Untranslatable("InputValidationError: the input must be an object")
    for name, kind in required.items():
        if not isinstance(inp.get(name), kind) or isinstance(inp.get(name), bool) != (kind is bool):
            raise Untranslatable(f"InputValidationError: {name} is missing or has the wrong type")
    for name in inp:
        if name not in required and name not in optional:
            raise Untranslatable(f"InputValidationError: unknown field {name}")


def _no_replace_all(value):
    if value not in (None, False):
        raise Untranslatable("edit_file has no replace_all: it replaces the first match only")


def translate(tool, inp):
    """(server tool name, arguments) for one corpus call."""
    if tool == "Read":
        _check(inp, {"file_path": str}, ("offset", "limit"))
        args = {"path": inp["file_path"]}
        if inp.get("offset") not in (None, 0, 1):
            raise Untranslatable("read_text_file cannot start at a line (it has head and tail)")
        if inp.get("limit") is not None:
            args["head"] = inp["limit"]
        return "read_text_file", args
    if tool == "Edit":
        _check(inp, {"file_path": str, "old_string": str, "new_string": str},
               ("replace_all", "dry_run"))
        _no_replace_all(inp.get("replace_all"))
        edits = [{"oldText": inp["old_string"], "newText": inp["new_string"]}]
        return "edit_file", _edit_args(inp, edits)
    if tool == "MultiEdit":
        _check(inp, {"file_path": str, "edits": list}, ("dry_run",))
        edits = []
        for edit in inp["edits"]:
            _check(edit, {"old_string": str, "new_string": str}, ("replace_all",))
            _no_replace_all(edit.get("replace_all"))
            edits.append({"oldText": edit["old_string"], "newText": edit["new_string"]})
        return "edit_file", _edit_args(inp, edits)
    if tool == "Write":
        _check(inp, {"file_path": str, "content": str})
        return "write_file", {"path": inp["file_path"], "content": inp["content"]}
    raise Untranslatable(f"the filesystem server has no tool for {tool}")


def _edit_args(inp, edits):
    args = {"path": inp["file_path"], "edits": edits}
    if inp.get("dry_run") is not None:
        args["dryRun"] = inp["dry_run"]
    return args


# --- server answers to replies -------------------------------------------------------------

# Node's error codes, where one names a single SPEC code.
ERRNO_CODES = {"ENOENT": "file_not_found", "EISDIR": "is_directory", "EACCES": "permission_denied",
               "EPERM": "permission_denied", "EEXIST": "file_exists", "ENOTDIR": "file_not_found"}


def error_code(message):
    if message.startswith("Could not find exact match for edit"):
        return "not_found"
    if "Access denied - path outside allowed directories" in message or \
            "Access denied - symlink target outside allowed directories" in message:
        return "outside_root"
    if "Input validation error" in message:
        return "invalid_input"
    errno = re.search(r"\b(E[A-Z]+):", message)
    if errno:
        return ERRNO_CODES.get(errno.group(1), "io")
    return "io"


def text_of(result):
    return "\n".join(part.get("text", "") for part in result.get("content") or []
                     if isinstance(part, dict) and part.get("type") == "text")


def to_reply(result):
    if result.get("isError"):
        message = text_of(result)
        return {"ok": False, "error": {"code": error_code(message), "message": message}}
    output = result.get("structuredContent")
    return {"ok": True, "output": output if isinstance(output, dict) else {"content": text_of(result)}}


def failure(code, message):
    return {"ok": False, "error": {"code": code, "message": message}}


# --- protocol v1 ---------------------------------------------------------------------------


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class Adapter:
    def __init__(self):
        self.sandbox = None
        self.server = None

    def server_for_case(self):
        """The case's server, started at its first call (a case that fails to start one answers
        each call with an error, and the next call tries again)."""
        if self.server is None:
            self.server = McpClient(server_argv(self.sandbox), self.sandbox, self.sandbox)
        return self.server

    def call(self, tool, inp):
        try:
            name, args = translate(tool, inp)
        except Untranslatable as exc:
            return failure("invalid_input", str(exc))
        try:
            return to_reply(self.server_for_case().call_tool(name, args))
        except McpError as exc:
            self.stop_server()
            return failure("io", f"MCP: {exc}")

    def stop_server(self):
        if self.server is not None:
            self.server.close()
            self.server = None

    def handle(self, msg):
        kind = msg.get("type")
        if kind == "hello":
            send({"type": "hello", "protocol": 1, "features": FEATURES,
                  "implementation": {"name": "MCP filesystem server", "version": package_version()}})
        elif kind == "case_start":
            self.stop_server()
            self.sandbox = str(msg.get("sandbox", os.getcwd()))
            send({"type": "ready"})
        elif kind == "call":
            try:
                reply = self.call(msg.get("tool"), msg.get("input"))
            except Exception as exc:  # an adapter bug must still be an answer, never an exit
                reply = failure("io", f"adapter error: {type(exc).__name__}: {exc}")
            send({"type": "result", "seq": msg.get("seq"), **reply})
        elif kind == "case_end":
            self.stop_server()
            send({"type": "done"})
        elif kind == "bye":
            self.stop_server()
            return False
        else:
            send({"type": "result", "seq": msg.get("seq"),
                  **failure("invalid_input", f"unknown message type {kind!r}")})
        return True


def main():
    adapter = Adapter()
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
        if not adapter.handle(msg):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
