"""Streamable HTTP: the revisions offered, one editref session per MCP session, large requests,
clients that misbehave or go away, and two clients served at the same time."""

import asyncio
import json
import signal
import subprocess

from mcp import types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import support
from support import (TOOLS, call, check, equal, expect, http_client, http_server,
                     no_temp_files, ok, refused, text_of)


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


@check
async def http_takes_a_write_larger_than_4_mib(tmp):
    """A Write of 6 MiB over HTTP is answered with its result (the transport's default cap of
    4 MiB would answer 413), and the file holds exactly the content sent. The result (which
    holds the content, SPEC 13.1) comes as one server-sent event, larger than the 1 MiB the
    SDK accepts by default: the client lifts that limit, as a client writing large files
    over HTTP must."""
    content = "line of text\r\n" * ((6 << 20) // 14 + 1)
    expect(len(content.encode()) > 6 << 20, "the argument is over 6 MiB")
    old = b"old\n"
    (tmp / "big.txt").write_bytes(old)
    async with http_server(tmp, "--root", str(tmp)) as url:
        async with http_client(url, max_sse_event_size=None) as s:
            ok(await call(s, "Read", file_path="big.txt"), "Read")
            r = ok(await call(s, "Write", file_path="big.txt", content=content), "6 MiB Write")
            expect(text_of(r).startswith("Updated "), f"summary: {text_of(r)[:80]!r}")
            ok(await call(s, "Write", file_path="new.txt", content=content), "6 MiB new file")
    equal((tmp / "big.txt").read_bytes(), content.encode(), "big.txt on disk")
    equal((tmp / "new.txt").read_bytes(), content.encode(), "new.txt on disk")
    no_temp_files(tmp)


class RawHttp:
    """A hand-made MCP client over plain HTTP/1.1, for what no SDK does: sending garbage, or
    going away in the middle of a request or before its answer."""

    VERSION = "2025-11-25"

    def __init__(self, url):
        rest = url.split("://", 1)[1]
        hostport, path = rest.split("/", 1)
        self.host, port = hostport.rsplit(":", 1)
        self.port, self.path, self.session = int(port), "/" + path, None

    def head(self, length):
        lines = [f"POST {self.path} HTTP/1.1", f"Host: {self.host}:{self.port}",
                 "Content-Type: application/json", "Accept: application/json, text/event-stream",
                 f"Content-Length: {length}", f"MCP-Protocol-Version: {self.VERSION}"]
        if self.session:
            lines.append(f"Mcp-Session-Id: {self.session}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    async def post(self, body, *, want_id=None):
        """Sends `body` (bytes); returns (status, headers, the JSON message with `want_id`)."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            writer.write(self.head(len(body)) + body)
            await writer.drain()
            status_line = (await asyncio.wait_for(reader.readline(), 30)).decode()
            status = int(status_line.split()[1])
            headers = {}
            while (line := (await reader.readline()).decode().strip()):
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
            message = None
            if want_id is not None and status == 200:
                # The answer comes as server-sent events (in chunks); read up to its line.
                while message is None:
                    line = await asyncio.wait_for(reader.readline(), 30)
                    expect(line, "the connection closed before the answer")
                    text = line.decode().strip()
                    if text.startswith("data:") and text[5:].strip():
                        msg = json.loads(text[5:])
                        if msg.get("id") == want_id:
                            message = msg
            return status, headers, message
        finally:
            writer.close()

    async def initialize(self):
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": self.VERSION, "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}).encode()
        status, headers, message = await self.post(body, want_id=1)
        equal(status, 200, "initialize status")
        expect("result" in message, f"initialize answered: {message}")
        self.session = headers.get("mcp-session-id")
        expect(self.session, f"a session id: {headers}")
        status, _, _ = await self.post(json.dumps(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
        equal(status, 202, "initialized accepted")

    async def send_and_leave(self, body, sent=None):
        """Sends the request head and `sent` bytes of `body` (all of it by default), then
        closes the connection without reading anything."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        writer.write(self.head(len(body)) + body[:sent])
        await writer.drain()
        writer.close()
        await writer.wait_closed()


def tool_call(id_, tool, **args):
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                       "params": {"name": tool, "arguments": args}}).encode()


@check
async def http_a_client_that_drops_or_sends_garbage_leaves_other_sessions_served(tmp):
    """One HTTP session sends garbage, abandons a request half sent, and goes away while its
    4 MiB Write is being served; another session is served after each, byte for byte. Once the
    server has exited (and so finished every call), the abandoned Write's file holds the old or
    the new bytes, whole, and no temp file is left."""
    a, b = tmp / "a.txt", tmp / "b.txt"
    old_a = b"a, old\r\n"
    a.write_bytes(old_a)
    b.write_bytes(b"b = 0\r\n")
    new_a = "a, new\r\n" * (4 << 17)
    proc = await asyncio.create_subprocess_exec(
        support.EDITREF, "mcp", "--no-fsync", "--http", "127.0.0.1:0", "--root", str(tmp),
        cwd=str(tmp), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE)
    try:
        line = (await asyncio.wait_for(proc.stderr.readline(), 30)).decode()
        url = line.split("listening on ", 1)[1].strip()
        raw = RawHttp(url)
        await raw.initialize()
        async with http_client(url) as other:
            ok(await call(other, "Read", file_path="b.txt"), "the other session reads")
            status, _, reply = await raw.post(tool_call(2, "Read", file_path="a.txt"), want_id=2)
            expect(reply and not reply["result"]["isError"], f"raw Read: {status} {reply}")

            status, _, _ = await raw.post(b"this is { not json")
            expect(400 <= status < 500, f"garbage answered with {status}")
            ok(await call(other, "Edit", file_path="b.txt", old_string="b = 0",
                          new_string="b = 1"), "served after the garbage")

            big = tool_call(3, "Write", file_path="a.txt", content=new_a)
            await raw.send_and_leave(big, sent=len(big) // 2)
            ok(await call(other, "Edit", file_path="b.txt", old_string="b = 1",
                          new_string="b = 2"), "served after a request left half sent")

            await raw.send_and_leave(tool_call(4, "Write", file_path="a.txt", content=new_a))
            ok(await call(other, "Edit", file_path="b.txt", old_string="b = 2",
                          new_string="b = 3"), "served after a client left mid-call")
            r = ok(await call(other, "Read", file_path="b.txt"), "Read after all that")
            expect("b = 3" in text_of(r), text_of(r))
    finally:
        # SIGINT: the server stops taking connections and finishes the calls it runs.
        proc.send_signal(signal.SIGINT)
        status = await asyncio.wait_for(proc.wait(), 60)
    equal(status, 0, "the server's exit status")
    equal(b.read_bytes(), b"b = 3\r\n", "the other session's edits on disk")
    got = a.read_bytes()
    expect(got in (old_a, new_a.encode()), f"a.txt is neither old nor new ({len(got)} bytes)")
    no_temp_files(tmp)


@check
async def http_two_clients_call_at_the_same_time(tmp):
    """Two HTTP sessions with calls in flight at once. A's Write waits inside the server for
    A's answer to roots/list, which A holds back until B has Read and Edited a file: B's calls
    can only complete while A's call is in flight, and a server that served one session at a
    time would hang here. Then A answers and its Write completes. Bytes of both checked."""
    (tmp / "b.txt").write_bytes(b"b\r\nstays\r\n")
    a_waiting, b_done = asyncio.Event(), asyncio.Event()
    order = []

    async def a_roots(context):
        order.append("A's call in flight")
        a_waiting.set()
        await b_done.wait()
        return types.ListRootsResult(roots=[types.Root(uri=tmp.as_uri())])

    async with http_server(tmp) as url:
        async with http_client(url, list_roots_callback=a_roots) as a, http_client(url) as b:

            async def a_writes():
                r = ok(await call(a, "Write", file_path="a.txt", content="from A\r\n"), "A's Write")
                order.append("A's call answered")
                return r

            async def b_works():
                await a_waiting.wait()
                ok(await call(b, "Read", file_path="b.txt"), "B's Read")
                ok(await call(b, "Edit", file_path="b.txt", old_string="b", new_string="B"),
                   "B's Edit")
                order.append("B's calls answered")
                b_done.set()

            await asyncio.wait_for(asyncio.gather(a_writes(), b_works()), 60)
    equal(order, ["A's call in flight", "B's calls answered", "A's call answered"], "order")
    equal((tmp / "a.txt").read_bytes(), b"from A\r\n", "A's file")
    equal((tmp / "b.txt").read_bytes(), b"B\r\nstays\r\n", "B's file")
    no_temp_files(tmp)
