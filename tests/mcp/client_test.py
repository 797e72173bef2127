"""`editref mcp` driven by the official Python MCP SDK, as an MCP client would drive it.

Usage: python client_test.py PATH_TO_EDITREF

Each check starts its own server (stdio, or streamable HTTP on a loopback port the server picks)
in a fresh temporary directory, and looks at the exact bytes on disk afterwards. A refusal must
leave the file untouched and no temp file behind. The last line is "N passed, N failed"; the exit
status is 0 only when every check passed.
"""

import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import traceback
import warnings
from pathlib import Path

import anyio

from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.message import SessionMessage
from mcp.types.version import LATEST_HANDSHAKE_VERSION
from mcp_types.jsonrpc import (
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)

EDITREF = ""
CHECKS = []

TOOLS = ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "Undo"]
ALL_TOOLS = TOOLS + ["LineEdit", "str_replace_based_edit_tool", "search_replace", "apply_patch"]
REQUIRED = {
    "Read": ["file_path"],
    "Edit": ["file_path", "old_string", "new_string"],
    "MultiEdit": ["file_path", "edits"],
    "Write": ["file_path", "content"],
    "NotebookEdit": ["notebook_path"],
    "Undo": ["file_path"],
}


def server_env():
    """What a server gets beside the SDK's few default variables: the check's own state
    directory, where its undo journals live (UNDO-7) — never the home of whoever runs this."""
    return {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]}


def journals():
    """The per-root undo journals in the state directory: {journal name: its root}."""
    base = Path(os.environ["XDG_STATE_HOME"]) / "editref" / "undo"
    if not base.is_dir():
        return {}
    return {j.name: (j / "root").read_bytes() for j in base.iterdir()}


def check(fn):
    CHECKS.append(fn)
    return fn


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def equal(got, want, what):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


@contextlib.asynccontextmanager
async def stdio_discovered(cwd, *args):
    """A client session that negotiates with `server/discover` (the 2026-07-28 revision)."""
    params = StdioServerParameters(
        command=EDITREF, args=["mcp", "--no-fsync", *args], cwd=str(cwd), env=server_env()
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                session.discovered = await session.discover()
                yield session


@contextlib.asynccontextmanager
async def stdio(cwd, *args, roots=None):
    """A client session with `editref mcp ARGS` started in `cwd`. With `roots` (a list the test
    may change), the client offers roots and answers roots/list from that list."""
    params = StdioServerParameters(
        command=EDITREF, args=["mcp", "--no-fsync", *args], cwd=str(cwd), env=server_env()
    )
    callback = None
    fetched = asyncio.Event()
    if roots is not None:

        async def callback(context):
            fetched.set()
            return types.ListRootsResult(
                roots=[types.Root(uri=Path(r).as_uri()) for r in roots]
            )

    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, list_roots_callback=callback) as session:
                await session.initialize()
                session.roots_fetched = fetched
                yield session


@contextlib.asynccontextmanager
async def http_server(cwd, *args):
    """`editref mcp --http 127.0.0.1:0 ARGS`; yields the endpoint URL the server announces."""
    proc = await asyncio.create_subprocess_exec(
        EDITREF, "mcp", "--no-fsync", "--http", "127.0.0.1:0", *args,
        cwd=str(cwd), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
        expect("listening on " in line, f"server did not announce its address: {line!r}")
        yield line.split("listening on ", 1)[1].strip()
    finally:
        proc.terminate()
        await proc.wait()


@contextlib.asynccontextmanager
async def http_client(url):
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def call(session, tool, **args):
    return await session.call_tool(tool, args)


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def ok(result, what):
    expect(not result.is_error, f"{what} was refused: {text_of(result)}")
    return result


def refused(result, code, what):
    expect(result.is_error, f"{what} should be refused with {code}, got: {text_of(result)}")
    got = (result.structured_content or {}).get("error", {}).get("code")
    equal(got, code, f"{what}: error code")
    expect(text_of(result).startswith(f"refused ({code}): "), f"{what}: text {text_of(result)!r}")


def no_temp_files(root):
    left = [p for p in Path(root).rglob("*") if ".editref-" in p.name and p.name.endswith(".tmp")]
    equal(left, [], "temp files left")


# --- the checks -------------------------------------------------------------------------------


@check
async def lists_the_tools_with_schemas_and_hints(tmp):
    async with stdio(tmp) as s:
        tools = (await s.list_tools()).tools
        equal([t.name for t in tools], TOOLS, "tool names")
        for t in tools:
            equal(t.input_schema.get("type"), "object", f"{t.name} inputSchema type")
            equal(t.input_schema.get("required"), REQUIRED[t.name], f"{t.name} required")
            expect(t.output_schema is not None, f"{t.name} has an outputSchema")
            equal(t.output_schema.get("type"), "object", f"{t.name} outputSchema type")
            expect(t.title and t.description, f"{t.name} has a title and a description")
            equal(t.annotations.read_only_hint, t.name == "Read", f"{t.name} readOnlyHint")
            equal(t.annotations.idempotent_hint, t.name == "Read", f"{t.name} idempotentHint")
        by_name = {t.name: t for t in tools}
        expect("oneOf" in by_name["Read"].output_schema, "Read's outputSchema keeps its variants")
        equal(by_name["Write"].annotations.destructive_hint, True, "Write destructiveHint")
        equal(by_name["Edit"].annotations.destructive_hint, False, "Edit destructiveHint")
        expect("unique" in by_name["Edit"].description, "Edit's description states the rules")


@check
async def dialects_and_undo_over_mcp(tmp):
    """apply_patch across two files (one CRLF) and Undo of the whole patch, byte for byte."""
    a, b = tmp / "a.txt", tmp / "b.txt"
    a.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    b.write_bytes(b"alpha\n")
    patch = ("*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n"
             "*** Update File: b.txt\n@@\n-alpha\n+beta\n*** End Patch\n")
    async with stdio(tmp, "--tools", "all", "--undo-dir", str(tmp / "journal")) as s:
        equal([t.name for t in (await s.list_tools()).tools], ALL_TOOLS, "--tools all")
        r = ok(await call(s, "apply_patch", input=patch), "apply_patch")
        equal([f["action"] for f in r.structured_content["files"]], ["updated", "updated"],
              "files updated")
        equal(a.read_bytes(), b"one\r\nTWO\r\nthree\r\n", "a.txt after the patch")
        equal(b.read_bytes(), b"beta\n", "b.txt after the patch")
        ok(await call(s, "Undo", file_path="b.txt"), "Undo")
    equal(a.read_bytes(), b"one\r\ntwo\r\nthree\r\n", "a.txt undone with b.txt")
    equal(b.read_bytes(), b"alpha\n", "b.txt undone")
    no_temp_files(tmp)


@check
async def undo_takes_an_edit_back_from_the_journal_of_the_root(tmp):
    f = tmp / "a.txt"
    f.write_bytes(b"one\r\ntwo\r\n")
    async with stdio(tmp) as s:
        ok(await call(s, "Read", file_path="a.txt"), "Read")
        ok(await call(s, "Edit", file_path="a.txt", old_string="two", new_string="2"), "Edit")
        r = ok(await call(s, "Undo", file_path="a.txt"), "Undo")
        equal(r.structured_content["undone"][0]["tool"], "Edit", "the step undone")
        r = await call(s, "Undo", file_path="a.txt")
        expect(r.is_error, "a second undo has nothing left")
        equal(r.structured_content["error"]["code"], "nothing_to_undo", "error code")
    equal(f.read_bytes(), b"one\r\ntwo\r\n", "bytes on disk")
    equal(sorted(p.name for p in tmp.iterdir()), ["a.txt"], "nothing but the file in the root")
    found = journals()
    equal(list(found.values()), [bytes(tmp) + b"\n"],
          "one journal, in the state directory, naming the root (UNDO-7)")
    name = next(iter(found))
    # A temporary directory's name (tmpXXXXXXXX) is already safe as it is.
    prefix, digits = name.rsplit("-", 1)
    equal((prefix, len(digits)), (tmp.name, 16), "the journal's name: <root name>-<16 hex>")
    no_temp_files(tmp)


@check
async def tools_option_selects_the_tools(tmp):
    (tmp / "a.txt").write_bytes(b"a\n")
    async with stdio(tmp, "--tools", "Read,Edit") as s:
        equal([t.name for t in (await s.list_tools()).tools], ["Read", "Edit"], "tools")
        try:
            await call(s, "Write", file_path="b.txt", content="x")
            raise AssertionError("a tool not offered must be a protocol error")
        except MCPError:
            pass
    expect(not (tmp / "b.txt").exists(), "nothing written by a tool not offered")


@check
async def edits_a_crlf_file_byte_exactly(tmp):
    f = tmp / "crlf.txt"
    f.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    async with stdio(tmp) as s:
        r = ok(await call(s, "Read", file_path="crlf.txt"), "Read")
        equal(r.structured_content["type"], "text", "Read result type")
        expect("two" in text_of(r), "Read shows the lines")
        r = ok(await call(s, "Edit", file_path="crlf.txt", old_string="two\nthree",
                          new_string="2\n3"), "Edit")
        expect(text_of(r).startswith("Replaced 1 occurrence in "), f"summary: {text_of(r)!r}")
        expect("-two" in text_of(r) and "+2" in text_of(r), "the diff is shown")
        equal(r.structured_content["replacements"], 1, "structured replacements")
    equal(f.read_bytes(), b"one\r\n2\r\n3\r\n", "bytes on disk")
    no_temp_files(tmp)


@check
async def edits_a_utf16le_bom_file_byte_exactly(tmp):
    f = tmp / "wide.txt"
    f.write_bytes(b"\xff\xfe" + "h\u00e9llo\nw\u00f6rld\n".encode("utf-16-le"))
    async with stdio(tmp) as s:
        r = ok(await call(s, "Read", file_path=str(f)), "Read")
        expect("w\u00f6rld" in text_of(r), "decoded text")
        ok(await call(s, "Edit", file_path=str(f), old_string="w\u00f6rld",
                      new_string="welt \u2713"), "Edit")
    equal(f.read_bytes(), b"\xff\xfe" + "h\u00e9llo\nwelt \u2713\n".encode("utf-16-le"),
          "bytes on disk")
    no_temp_files(tmp)


@check
async def write_multiedit_and_notebook_edit(tmp):
    async with stdio(tmp) as s:
        r = ok(await call(s, "Write", file_path="new.txt", content="a\nb\nc\n"), "Write")
        expect(text_of(r).startswith("Created "), f"summary: {text_of(r)!r}")
        r = ok(await call(s, "MultiEdit", file_path="new.txt", edits=[
            {"old_string": "a", "new_string": "A"},
            {"old_string": "c", "new_string": "C"},
        ]), "MultiEdit")
        expect(text_of(r).startswith("Applied 2 edits (2 replacements) to "), text_of(r))
        r = ok(await call(s, "Write", file_path="new.txt", content="z\n"), "Write over")
        expect(text_of(r).startswith("Updated "), f"summary: {text_of(r)!r}")
        nb = tmp / "n.ipynb"
        nb.write_text('{"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, '
                      '"source": ["print(1)"], "outputs": [], "execution_count": null}], '
                      '"metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n')
        ok(await call(s, "Read", file_path="n.ipynb"), "Read notebook")
        r = ok(await call(s, "NotebookEdit", notebook_path="n.ipynb", cell_id="c1",
                          new_source="print(2)"), "NotebookEdit")
        expect("c1" in text_of(r), text_of(r))
    equal((tmp / "new.txt").read_bytes(), b"z\n", "Write bytes")
    expect('"print(2)"' in nb.read_text(), "notebook cell replaced")
    no_temp_files(tmp)


@check
async def an_image_reads_as_an_image(tmp):
    png = bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a3e2a3e600"
        "00000049454e44ae426082"
    )
    (tmp / "dot.png").write_bytes(png)
    async with stdio(tmp) as s:
        r = ok(await call(s, "Read", file_path="dot.png"), "Read an image")
        equal(r.structured_content["type"], "image", "structured type")
        equal([c.type for c in r.content], ["image"], "content kinds")
        equal(r.content[0].mime_type, "image/png", "mime type")
    equal((tmp / "dot.png").read_bytes(), png, "image untouched")


@check
async def a_stale_edit_is_refused(tmp):
    f = tmp / "s.txt"
    f.write_bytes(b"alpha\nbeta\n")
    async with stdio(tmp) as s:
        ok(await call(s, "Read", file_path="s.txt"), "Read")
        f.write_bytes(b"alpha\nbeta\ngamma, added by someone else\n")
        refused(await call(s, "Edit", file_path="s.txt", old_string="beta",
                           new_string="BETA"), "stale", "Edit after a change on disk")
    equal(f.read_bytes(), b"alpha\nbeta\ngamma, added by someone else\n", "file untouched")
    no_temp_files(tmp)


@check
async def an_ambiguous_edit_is_refused(tmp):
    f = tmp / "amb.txt"
    f.write_bytes(b"x = 1\nx = 1\n")
    async with stdio(tmp) as s:
        ok(await call(s, "Read", file_path="amb.txt"), "Read")
        refused(await call(s, "Edit", file_path="amb.txt", old_string="x = 1",
                           new_string="x = 2"), "ambiguous", "Edit of a repeated string")
    equal(f.read_bytes(), b"x = 1\nx = 1\n", "file untouched")
    no_temp_files(tmp)


@check
async def malformed_arguments_are_invalid_input(tmp):
    f = tmp / "m.txt"
    f.write_bytes(b"keep\n")
    async with stdio(tmp) as s:
        ok(await call(s, "Read", file_path="m.txt"), "Read")
        refused(await call(s, "Edit", file_path="m.txt", old_string="keep", new_string="x",
                           bogus=True), "invalid_input", "unknown field")
        refused(await call(s, "Edit", file_path="m.txt", old_string="keep", new_string="x",
                           replace_all="perhaps"), "invalid_input", "wrong type")
        refused(await call(s, "Edit", file_path="m.txt", old_string="keep"),
                "invalid_input", "missing field")
    equal(f.read_bytes(), b"keep\n", "file untouched")
    no_temp_files(tmp)


@check
async def paths_outside_the_root_are_refused(tmp):
    root = tmp / "project"
    root.mkdir()
    (tmp / "secret.txt").write_bytes(b"secret\n")
    (root / "link").symlink_to(tmp / "secret.txt")
    async with stdio(root, "--root", str(root)) as s:
        refused(await call(s, "Read", file_path="../secret.txt"), "outside_root", "Read outside")
        refused(await call(s, "Read", file_path="link"), "outside_root", "Read through a link")
        refused(await call(s, "Write", file_path=str(tmp / "new.txt"), content="x"),
                "outside_root", "Write outside")
        ok(await call(s, "Write", file_path="inside.txt", content="in\n"), "Write inside")
    expect(not (tmp / "new.txt").exists(), "nothing created outside")
    equal((tmp / "secret.txt").read_bytes(), b"secret\n", "outside file untouched")
    equal((root / "inside.txt").read_bytes(), b"in\n", "inside file written")
    no_temp_files(tmp)


@check
async def several_roots_each_accept_their_files(tmp):
    a, b = tmp / "a", tmp / "b"
    a.mkdir()
    b.mkdir()
    async with stdio(tmp, "--root", str(a), "--root", str(b)) as s:
        ok(await call(s, "Write", file_path=str(a / "1.txt"), content="1\n"), "Write in a")
        ok(await call(s, "Write", file_path=str(b / "2.txt"), content="2\n"), "Write in b")
        ok(await call(s, "Read", file_path=str(b / "2.txt")), "Read in b")
        ok(await call(s, "Edit", file_path=str(b / "2.txt"), old_string="2",
                      new_string="two"), "Edit in b")
        # The working directory lies under neither root: relative paths start at the first.
        ok(await call(s, "Write", file_path="c.txt", content="c\n"), "relative Write")
        refused(await call(s, "Write", file_path=str(tmp / "d.txt"), content="x"),
                "outside_root", "Write outside both roots")
        refused(await call(s, "Write", file_path=str(a / ".." / "d.txt"), content="x"),
                "outside_root", "Write out of a root through ..")
    equal((a / "1.txt").read_bytes(), b"1\n", "a/1.txt")
    equal((b / "2.txt").read_bytes(), b"two\n", "b/2.txt")
    equal((a / "c.txt").read_bytes(), b"c\n", "a/c.txt")
    expect(not (tmp / "d.txt").exists(), "nothing written outside the roots")
    no_temp_files(tmp)


@check
async def the_clients_roots_confine_and_follow_changes(tmp):
    first, second = tmp / "first", tmp / "second"
    first.mkdir()
    second.mkdir()
    roots = [str(first)]
    async with stdio(tmp, roots=roots) as s:
        ok(await call(s, "Write", file_path=str(first / "f.txt"), content="f\n"), "in root")
        refused(await call(s, "Write", file_path=str(second / "s.txt"), content="s\n"),
                "outside_root", "outside the client's root")
        roots[:] = [str(second)]
        s.roots_fetched.clear()
        with warnings.catch_warnings():
            # Roots are deprecated in the newest revision; this session negotiated an older one.
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await s.send_roots_list_changed()
        await asyncio.wait_for(s.roots_fetched.wait(), 30)
        ok(await call(s, "Write", file_path=str(second / "s.txt"), content="s\n"), "new root")
        refused(await call(s, "Write", file_path=str(first / "g.txt"), content="g\n"),
                "outside_root", "the old root after the change")
    equal((first / "f.txt").read_bytes(), b"f\n", "first/f.txt")
    equal((second / "s.txt").read_bytes(), b"s\n", "second/s.txt")
    expect(not (first / "g.txt").exists(), "nothing written in the old root")
    no_temp_files(tmp)


@check
async def the_newest_revision_keeps_the_session_over_stdio(tmp):
    f = tmp / "n.txt"
    f.write_bytes(b"a\r\nb\r\n")
    async with stdio_discovered(tmp) as s:
        expect("2026-07-28" in s.discovered.supported_versions,
               f"revisions: {s.discovered.supported_versions}")
        ok(await call(s, "Read", file_path="n.txt"), "Read")
        ok(await call(s, "Edit", file_path="n.txt", old_string="b", new_string="c"), "Edit")
    equal(f.read_bytes(), b"a\r\nc\r\n", "bytes on disk")


@check
async def http_offers_only_revisions_with_sessions(tmp):
    f = tmp / "h.txt"
    f.write_bytes(b"one\n")
    async with http_server(tmp) as url:
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as s:
                try:
                    await s.discover()
                    raise AssertionError("server/discover over HTTP must be refused")
                except MCPError as e:
                    equal(e.error.code, -32022, "unsupported protocol version")
                # What a client does then: the handshake, which has a session id.
                await s.initialize()
                ok(await call(s, "Read", file_path="h.txt"), "Read")
                ok(await call(s, "Edit", file_path="h.txt", old_string="one", new_string="two"),
                   "Edit after Read in the same session")
    equal(f.read_bytes(), b"two\n", "bytes on disk")


@check
async def http_clients_have_their_own_sessions(tmp):
    f = tmp / "shared.txt"
    f.write_bytes(b"value = 1\n")
    async with http_server(tmp, "--root", str(tmp)) as url:
        async with http_client(url) as a, http_client(url) as b:
            equal([t.name for t in (await a.list_tools()).tools], TOOLS, "tools over HTTP")
            ok(await call(a, "Read", file_path="shared.txt"), "A reads")
            refused(await call(b, "Edit", file_path="shared.txt", old_string="value = 1",
                               new_string="value = 2"), "not_read", "B edits on A's read")
            equal(f.read_bytes(), b"value = 1\n", "untouched after B's refusal")
            no_temp_files(tmp)
            ok(await call(a, "Edit", file_path="shared.txt", old_string="value = 1",
                          new_string="value = 3"), "A edits")
            refused(await call(a, "Read", file_path="/etc/hostname"), "outside_root",
                    "Read outside the root over HTTP")
    equal(f.read_bytes(), b"value = 3\n", "A's edit on disk")
    no_temp_files(tmp)


def is_write_call(message):
    return getattr(message, "method", None) == "tools/call" and (
        (message.params or {}).get("name") == "Write"
    )


class Tap:
    """The client's write stream, watched: records every message the SDK sends and sets
    `issued` once a `tools/call` of Write has been handed to the transport."""

    def __init__(self, inner):
        self.inner = inner
        self.sent = []
        self.issued = asyncio.Event()

    async def send(self, item):
        await self.inner.send(item)
        message = item.message
        self.sent.append(message)
        if is_write_call(message):
            self.issued.set()

    async def aclose(self):
        await self.inner.aclose()

    async def __aenter__(self):
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc):
        return await self.inner.__aexit__(*exc)


@check
async def a_cancelled_write_leaves_old_or_new_bytes_and_no_temp_file(tmp):
    """The SDK cancels a call the way a client does when its user interrupts it: the awaiting
    task is cancelled and the SDK sends `notifications/cancelled` for the request. The 8 MB
    Write may have started or not; either way the file holds exactly the old or exactly the
    new bytes, no temp file is left, and the same connection goes on serving."""
    f = tmp / "big.txt"
    old = b"old content\n"
    new = "n" * (8 << 20)
    f.write_bytes(old)
    params = StdioServerParameters(
        command=EDITREF, args=["mcp", "--no-fsync"], cwd=str(tmp), env=server_env()
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            tap = Tap(write)
            async with ClientSession(read, tap) as s:
                await s.initialize()
                ok(await call(s, "Read", file_path="big.txt"), "Read")
                answered = []

                async def write_big():
                    answered.append(await call(s, "Write", file_path="big.txt", content=new))

                # Cancelled the way an anyio-based client cancels: through the task group's
                # scope, once the request is on its way.
                async with anyio.create_task_group() as tg:
                    tg.start_soon(write_big)
                    await tap.issued.wait()
                    tg.cancel_scope.cancel()
                equal(answered, [], "an answer to the cancelled call reached the caller")
                request = next(m for m in tap.sent if is_write_call(m))
                notes = [m for m in tap.sent if getattr(m, "method", None) == "notifications/cancelled"]
                equal([n.params.get("requestId") for n in notes], [request.id],
                      "notifications/cancelled sent for the request")
                ok(await call(s, "Read", file_path="big.txt", limit=1), "Read after the cancel")
    # The server has exited, so a write that had started has finished.
    got = f.read_bytes()
    expect(got == old or got == new.encode(),
           f"big.txt is neither the old nor the new content ({len(got)} bytes)")
    no_temp_files(tmp)
    partial = [p for p in tmp.rglob("*") if p.name.endswith(".partial")]
    equal(partial, [], "journal temp files left")


@check
async def malformed_json_rpc_through_the_sdk_transport(tmp):
    """Raw JSON-RPC over the SDK's stdio transport, without its session (which would never send
    anything malformed): after a hand-made handshake, a tools/call whose params are not an
    object and a request for an unknown method each get the protocol's error for their id,
    and the server goes on answering."""
    params = StdioServerParameters(
        command=EDITREF, args=["mcp", "--no-fsync"], cwd=str(tmp), env=server_env()
    )

    async def reply(read, id_):
        while True:
            item = await asyncio.wait_for(read.receive(), 30)
            expect(not isinstance(item, Exception), f"unparsable line from the server: {item!r}")
            message = item.message
            if getattr(message, "id", "no id") == id_ or (
                isinstance(message, JSONRPCError) and message.id is None
            ):
                return message

    with open(os.devnull, "w") as errlog, warnings.catch_warnings():
        # Serializing the deliberately ill-typed request makes pydantic warn.
        warnings.simplefilter("ignore")
        async with stdio_client(params, errlog=errlog) as (read, write):
            await write.send(SessionMessage(JSONRPCRequest(
                jsonrpc="2.0", id=1, method="initialize",
                params={"protocolVersion": LATEST_HANDSHAKE_VERSION, "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"}})))
            init = await reply(read, 1)
            expect(isinstance(init, JSONRPCResponse), f"initialize answered: {init!r}")
            await write.send(SessionMessage(JSONRPCNotification(
                jsonrpc="2.0", method="notifications/initialized")))
            bad = JSONRPCRequest.model_construct(
                jsonrpc="2.0", id=2, method="tools/call", params="not an object")
            await write.send(SessionMessage(bad))
            got = await reply(read, 2)
            expect(isinstance(got, JSONRPCError), f"params that are no object: {got!r}")
            expect(got.error.code in (-32600, -32602), f"error code {got.error.code}")
            await write.send(SessionMessage(JSONRPCRequest(
                jsonrpc="2.0", id=3, method="no/such/method")))
            got = await reply(read, 3)
            expect(isinstance(got, JSONRPCError), f"unknown method: {got!r}")
            equal(got.error.code, -32601, "unknown method: error code")
            await write.send(SessionMessage(JSONRPCRequest(
                jsonrpc="2.0", id=4, method="tools/list")))
            listed = await reply(read, 4)
            expect(isinstance(listed, JSONRPCResponse), f"tools/list after them: {listed!r}")
            equal([t["name"] for t in listed.result["tools"]], TOOLS, "tools after bad input")
    equal(list(tmp.iterdir()), [], "nothing written")


async def main():
    passed, failed = 0, 0
    only = sys.argv[2:]
    for fn in CHECKS:
        if only and fn.__name__ not in only:
            continue
        with tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as state:
            os.environ["XDG_STATE_HOME"] = state
            try:
                await asyncio.wait_for(fn(Path(d).resolve()), 120)
                print(f"ok   {fn.__name__}", flush=True)
                passed += 1
            except BaseException:  # noqa: BLE001 - report every failure, then go on
                print(f"FAIL {fn.__name__}\n{traceback.format_exc()}", flush=True)
                failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    EDITREF = os.path.abspath(sys.argv[1])
    sys.exit(asyncio.run(main()))
