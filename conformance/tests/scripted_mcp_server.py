#!/usr/bin/env python3
"""A scripted MCP server for the harness's MCP adapter tests (standard library only).

It speaks JSON-RPC, one message per line, over stdio, and lists two tools under names of its
own: edit_file and read_text_file. What a call does is chosen by its `how` argument, so a test
can make the server answer in each shape the adapter must map: a plain result, a structured
one, the arguments it got, a refusal with or without an error object, a JSON-RPC error, an exit
mid-call, a hang, and a result holding a lone surrogate escape (valid JSON that strict decoders
refuse).
"""
import json
import os
import sys
import time

TOOLS = ["edit_file", "read_text_file"]


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def text(t):
    return [{"type": "text", "text": t}]


def ask_roots():
    """Asks the client for its roots and returns them (answering nothing else meanwhile)."""
    send({"jsonrpc": "2.0", "id": "roots-1", "method": "roots/list"})
    while True:
        msg = receive()
        if msg.get("id") == "roots-1" and "method" not in msg:
            return msg.get("result", {}).get("roots")


def call(name, args):
    """The result of a tools/call, or None for a JSON-RPC error."""
    how = args.get("how")
    if how == "plain":
        return {"content": text("done: " + name)}
    if how == "structured":
        return {"content": text("done"), "structuredContent": {"tool": name, "cwd": os.getcwd()}}
    if how == "refuse":
        return {"content": text("no such file"), "isError": True}
    if how == "refuse_structured":
        error = {"code": "ambiguous", "message": "twice", "count": 2}
        return {"content": text("refused"), "isError": True, "structuredContent": {"error": error}}
    if how == "echo":
        return {"content": text("echo"), "structuredContent": {"arguments": args}}
    if how == "lone_surrogate":
        # json.dumps writes U+D800 as the escape \ud800: valid JSON text, a lone surrogate.
        return {"content": text("read"), "structuredContent": {"file": {"content": "1\t\ud800"}}}
    if how == "roots":
        return {"content": text("roots"), "structuredContent": {"roots": ask_roots()}}
    if how == "exit":
        sys.stderr.write("scripted server: exiting mid-call\n")
        sys.stderr.flush()
        os._exit(3)
    if how == "hang":
        time.sleep(120)
    return None


def main():
    while True:
        msg = receive()
        method, mid = msg.get("method"), msg.get("id")
        if mid is None or method is None:
            continue  # a notification, or an answer nobody waits for
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": mid, "result": {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "scripted", "version": "0.0.1"},
            }})
        elif method == "tools/list":
            tools = [{"name": t, "inputSchema": {"type": "object"}} for t in TOOLS]
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": tools}})
        elif method == "tools/call":
            name = msg["params"]["name"]
            result = call(name, msg["params"].get("arguments", {})) if name in TOOLS else None
            if result is None:
                send({"jsonrpc": "2.0", "id": mid,
                      "error": {"code": -32602, "message": "unknown tool or how: " + name}})
            else:
                send({"jsonrpc": "2.0", "id": mid, "result": result})
        else:
            send({"jsonrpc": "2.0", "id": mid,
                  "error": {"code": -32601, "message": "method not found: " + method}})


main()
