#!/usr/bin/env python3
"""A stand-in for the Anthropic Messages API, so the real Claude Code CLI can
be driven offline (tests/integration/sbxctl.sh): it answers the first turn
with one Read tool call of TARGET and every later turn with "done", and logs
each request's headers and JSON body as one line to LOG. The test then reads, in the
logged second request, the tool_result Claude Code sent back: the file's
content when its PreToolUse hook let the call through, the hook's reason
when it refused it.

    mock-anthropic.py PORTFILE LOG TARGET     (listens on 127.0.0.1, a free port)
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

PORTFILE, LOG, TARGET = sys.argv[1:4]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(404)
        self.end_headers()

    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(n) or b"{}")
        with open(LOG, "a") as f:
            f.write(json.dumps({"path": self.path, "headers": dict(self.headers),
                                "body": body}) + "\n")
        if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
            self.reply_json({"input_tokens": 10})
            return
        msgs = body.get("messages", [])
        last = msgs[-1]["content"] if msgs else ""
        answered = isinstance(last, list) and any(c.get("type") == "tool_result" for c in last)
        tools = [t.get("name") for t in body.get("tools", [])]
        if "Read" in tools and not answered:
            content = [{"type": "tool_use", "id": "toolu_01MOCK", "name": "Read",
                        "input": {"file_path": TARGET}}]
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": "done"}]
            stop = "end_turn"
        msg = {"id": "msg_mock", "type": "message", "role": "assistant",
               "model": body.get("model", "claude"), "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}
        if not body.get("stream"):
            msg["content"], msg["stop_reason"] = content, stop
            self.reply_json(msg)
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.event("message_start", {"type": "message_start", "message": msg})
        for i, c in enumerate(content):
            if c["type"] == "tool_use":
                block = {"type": "tool_use", "id": c["id"], "name": c["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(c["input"])}
            else:
                block = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": c["text"]}
            self.event("content_block_start", {"type": "content_block_start", "index": i,
                                               "content_block": block})
            self.event("content_block_delta", {"type": "content_block_delta", "index": i,
                                               "delta": delta})
            self.event("content_block_stop", {"type": "content_block_stop", "index": i})
        self.event("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 5}})
        self.event("message_stop", {"type": "message_stop"})

    def reply_json(self, obj):
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def event(self, name, data):
        self.wfile.write(("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode())


server = HTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402  (the port file appears whole)
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
