"""What every check of the MCP client tests shares: the registry of checks, assertions, the
ways to start `editref mcp` and connect the official Python SDK to it, and how a result or a
refusal is looked at. `EDITREF` is set by client_test.py before any check runs."""

import asyncio
import contextlib
import os
import subprocess
from pathlib import Path

from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

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


def check(fn):
    CHECKS.append(fn)
    return fn


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def equal(got, want, what):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


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


def server_params(cwd, *args):
    """`editref mcp --no-fsync ARGS` over stdio, started in `cwd`."""
    return StdioServerParameters(
        command=EDITREF, args=["mcp", "--no-fsync", *args], cwd=str(cwd), env=server_env()
    )


@contextlib.asynccontextmanager
async def stdio_discovered(cwd, *args):
    """A client session that negotiates with `server/discover` (the 2026-07-28 revision)."""
    with open(os.devnull, "w") as errlog:
        async with stdio_client(server_params(cwd, *args), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                session.discovered = await session.discover()
                yield session


def roots_callback(roots, fetched):
    """A list_roots callback answering from `roots` (a list the test may change), setting
    `fetched` on each call."""

    async def callback(context):
        fetched.set()
        return types.ListRootsResult(roots=[types.Root(uri=Path(r).as_uri()) for r in roots])

    return callback


@contextlib.asynccontextmanager
async def stdio(cwd, *args, roots=None):
    """A client session with `editref mcp ARGS` started in `cwd`. With `roots` (a list the test
    may change), the client offers roots and answers roots/list from that list."""
    fetched = asyncio.Event()
    callback = roots_callback(roots, fetched) if roots is not None else None
    with open(os.devnull, "w") as errlog:
        async with stdio_client(server_params(cwd, *args), errlog=errlog) as (read, write):
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
async def http_client(url, list_roots_callback=None, **transport):
    async with streamable_http_client(url, **transport) as (read, write):
        async with ClientSession(read, write, list_roots_callback=list_roots_callback) as session:
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
    """A refusal with `code` (SPEC MCP-3): `isError`, the text `refused (CODE): …`, and the
    error object as structuredContent `{"error": {...}}`."""
    expect(result.is_error, f"{what} should be refused with {code}, got: {text_of(result)}")
    got = (result.structured_content or {}).get("error", {}).get("code")
    equal(got, code, f"{what}: error code")
    expect(text_of(result).startswith(f"refused ({code}): "), f"{what}: text {text_of(result)!r}")
    return result


def no_temp_files(root):
    left = [p for p in Path(root).rglob("*") if ".editref-" in p.name and p.name.endswith(".tmp")]
    equal(left, [], "temp files left")
