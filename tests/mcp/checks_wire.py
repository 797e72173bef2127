"""The protocol itself over stdio: a call cancelled by the SDK the way a client cancels one, and
malformed JSON-RPC sent through the SDK's transport."""

import asyncio
import os
import warnings

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp.shared.message import SessionMessage
from mcp.types.version import LATEST_HANDSHAKE_VERSION
from mcp_types.jsonrpc import (
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)

from support import TOOLS, call, check, equal, expect, no_temp_files, ok, server_params


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
    params = server_params(tmp)
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
    params = server_params(tmp)

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
