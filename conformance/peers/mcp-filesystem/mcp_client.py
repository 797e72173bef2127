"""A minimal MCP client over stdio: starts a server, initializes it, calls its tools.

JSON-RPC 2.0, one message per line. The client declares the `roots` capability and answers
`roots/list` with the one directory it was given, as an editor would. Every wait is bounded, so
a server that hangs costs a timeout error, never a hung adapter.
"""

import json
import pathlib
import queue
import subprocess
import threading
import time


class McpError(Exception):
    """The server could not be reached, answered nothing in time, or broke the protocol."""


class McpClient:
    def __init__(self, argv, cwd, root, timeout=8.0):
        self.timeout = timeout
        self.root_uri = pathlib.Path(root).as_uri()
        self.next_id = 0
        self.lines = queue.Queue()
        try:
            # The server's stderr is ours: the harness records it per case.
            self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE)
        except OSError as exc:
            raise McpError(f"cannot start the server: {exc}") from exc
        threading.Thread(target=self._pump, daemon=True).start()
        self.request("initialize", {
            "protocolVersion": "2025-06-18",
            "capabilities": {"roots": {"listChanged": False}},
            "clientInfo": {"name": "editref-conform-adapter", "version": "1"},
        })
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)  # end of stream

    def _send(self, msg):
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except OSError as exc:
            raise McpError(f"the server closed its input: {exc}") from exc

    def request(self, method, params):
        """Sends one request and returns its `result`; a JSON-RPC error raises McpError."""
        self.next_id += 1
        my_id = self.next_id
        self._send({"jsonrpc": "2.0", "id": my_id, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise McpError(f"no answer to {method} within {self.timeout} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise McpError(f"the server exited during {method}")
            try:
                msg = json.loads(line)
            except ValueError:
                continue  # not a protocol line
            if not isinstance(msg, dict):
                continue
            if msg.get("method") == "roots/list" and "id" in msg:
                self._send({"jsonrpc": "2.0", "id": msg["id"],
                            "result": {"roots": [{"uri": self.root_uri, "name": "sandbox"}]}})
            elif "method" in msg and "id" in msg:  # any other server request: not supported
                self._send({"jsonrpc": "2.0", "id": msg["id"],
                            "error": {"code": -32601, "message": "method not supported"}})
            elif msg.get("id") == my_id:
                if "error" in msg:
                    err = msg["error"] or {}
                    raise McpError(f"JSON-RPC error {err.get('code')}: {err.get('message')}")
                return msg.get("result") or {}

    def call_tool(self, name, arguments):
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
