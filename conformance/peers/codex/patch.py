"""Corpus calls written as Codex V4A patches: the text a Codex agent would send.

Only text is built here; nothing is written. The one thing read is the file an Edit names, and
only to copy its lines: V4A replaces whole lines, so an `old_string` that starts or ends inside
a line is widened to the whole lines it touches, exactly as they stand in the file — the way an
agent that has looked at the file writes its `-` lines. Which place that is, whether it is the
only one, and what the file becomes, are all left to Codex.
"""

import os
import stat


class Untranslatable(Exception):
    """The call cannot be expressed as a V4A patch (or its input is malformed)."""


def _require_strings(inp, names, optional=()):
    for name in names:
        if not isinstance(inp.get(name), str):
            raise Untranslatable(f"InputValidationError: {name} must be a string")
    for name in inp:
        if name not in names and name not in optional:
            raise Untranslatable(f"InputValidationError: unknown field {name}")


def _header_path(path):
    if "\n" in path or "\r" in path:
        raise Untranslatable("a path with a line break cannot be written in a V4A header")
    return path


def _lines(text):
    """Patch lines of a text: split at LF, where a final LF does not start one more line."""
    if text == "":
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


def _wrap(body):
    if body and not body.endswith("\n"):
        body += "\n"
    return "*** Begin Patch\n" + body + "*** End Patch\n"


def _add_file(path, content):
    return f"*** Add File: {_header_path(path)}\n" + "".join(
        "+" + line + "\n" for line in _lines(content))


# --- apply_patch ---------------------------------------------------------------------------

OPERATIONS = {"create_file": "Add", "update_file": "Update", "delete_file": "Delete"}


def from_apply_patch(inp):
    """The patch text itself; the Responses API operation form gets its V4A header."""
    if "type" in inp:
        kind, path, diff = inp.get("type"), inp.get("path"), inp.get("diff", "")
        if kind not in OPERATIONS or not isinstance(path, str) or not isinstance(diff, str):
            raise Untranslatable("an operation needs a type of create_file, update_file or "
                                 "delete_file, a path and a diff")
        header = f"*** {OPERATIONS[kind]} File: {_header_path(path)}\n"
        return _wrap(header + ("" if kind == "delete_file" else diff))
    # Codex's apply_patch tool takes its patch in `input` and has no other field.
    _require_strings(inp, ["input"])
    return inp["input"]


# --- Edit ----------------------------------------------------------------------------------


def _file_text(path, cwd):
    """The file's text when it is a regular UTF-8 file, else None (nothing to copy lines from)."""
    full = os.path.join(cwd, path)
    try:
        if not stat.S_ISREG(os.stat(full).st_mode):  # never open a FIFO or a device
            return None
        with open(full, "rb") as fh:
            return fh.read().decode("utf-8")
    except (OSError, UnicodeError, ValueError):
        return None


def _widened(text, old, new):
    """The whole lines around the first occurrence of `old`, before and after the change."""
    at = text.find(old)
    if at < 0:
        return None
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at + len(old) - 1)
    end = len(text) if end < 0 else end + 1
    before = text[start:end]
    after = text[start:at] + new + text[at + len(old):end]
    # A change that drops the region's final line break joins it with the next line; take that
    # line in as well, so whole lines go out and whole lines come back.
    while before.endswith("\n") and not after.endswith("\n") and end < len(text):
        nxt = text.find("\n", end)
        nxt = len(text) if nxt < 0 else nxt + 1
        before += text[end:nxt]
        after += text[end:nxt]
        end = nxt
    return before, after


def from_edit(inp, cwd):
    _require_strings(inp, ["file_path", "old_string", "new_string"], optional=["replace_all"])
    if inp.get("replace_all") not in (None, False):
        raise Untranslatable("a V4A patch has no replace_all: each place needs a chunk of its own")
    path, old, new = inp["file_path"], inp["old_string"], inp["new_string"]
    if old == "":
        # Creating a file with Edit: the agent's way to create a file is Add File.
        return _wrap(_add_file(path, new))
    text = _file_text(path, cwd)
    region = _widened(text, old, new) if text is not None else None
    before, after = region if region else (old, new)
    chunk = "".join("-" + line + "\n" for line in _lines(before)) + \
        "".join("+" + line + "\n" for line in _lines(after))
    return _wrap(f"*** Update File: {_header_path(path)}\n@@\n" + chunk)


# --- Write ---------------------------------------------------------------------------------


def from_write(inp, cwd):
    """Add File for a new path; Delete File then Add File, in one patch, for an existing one."""
    _require_strings(inp, ["file_path", "content"])
    path, content = inp["file_path"], inp["content"]
    body = _add_file(path, content)
    if os.path.lexists(os.path.join(cwd, path)):
        body = f"*** Delete File: {_header_path(path)}\n" + body
    return _wrap(body)
