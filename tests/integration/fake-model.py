#!/usr/bin/env python3
"""A scripted stand-in for the model APIs, so the real agents from the npm
registry can be driven offline end to end (tests/integration/agents-e2e.sh):
the Anthropic Messages API (Claude Code, /v1/messages), the OpenAI
Responses API (Codex, /v1/responses) and the Gemini API (Gemini CLI,
models/M:generateContent and :streamGenerateContent). SCRIPT is a JSON list
of tool calls, [{"tool": NAME, "input": {...}}, ...]; an input that is a
string is a freeform tool's (Codex's `exec`, JavaScript). The answer to a
request that offers tools is the call after the last tool result the
conversation holds, then "done". Every request body is logged as one JSON
line to LOG; the test reads there the tool results the agent sent back,
which is what the model would have seen.

    fake-model.py PORTFILE LOG SCRIPT    (listens on 127.0.0.1, a free port)
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
PORTFILE, LOG, SCRIPT = sys.argv[1:4]
steps = json.load(open(SCRIPT))
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(404); self.end_headers()
    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(n) or b"{}")
        with open(LOG, "a") as f:
            f.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if self.path.endswith("/responses"):
            return self.openai_responses(body)
        if "generatecontent" in self.path.lower():
            return self.gemini(body)
        if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
            return self.reply({"input_tokens": 10})
        msgs = body.get("messages", [])
        # which step: count tool_results in the conversation
        done = sum(1 for m in msgs if isinstance(m.get("content"), list)
                   for c in m["content"] if c.get("type") == "tool_result")
        tools = [t.get("name") for t in body.get("tools", [])]
        if tools and done < len(steps):
            s = steps[done]
            content = [{"type": "tool_use", "id": "toolu_%02d" % done, "name": s["tool"], "input": s["input"]}]
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": "done"}]; stop = "end_turn"
        msg = {"id": "msg_f", "type": "message", "role": "assistant", "model": body.get("model", "m"),
               "content": [], "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 10, "output_tokens": 5}}
        if not body.get("stream"):
            msg["content"], msg["stop_reason"] = content, stop
            return self.reply(msg)
        self.send_response(200); self.send_header("content-type", "text/event-stream"); self.end_headers()
        self.ev("message_start", {"type": "message_start", "message": msg})
        for i, c in enumerate(content):
            if c["type"] == "tool_use":
                blk = {"type": "tool_use", "id": c["id"], "name": c["name"], "input": {}}
                d = {"type": "input_json_delta", "partial_json": json.dumps(c["input"])}
            else:
                blk = {"type": "text", "text": ""}; d = {"type": "text_delta", "text": c["text"]}
            self.ev("content_block_start", {"type": "content_block_start", "index": i, "content_block": blk})
            self.ev("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})
            self.ev("content_block_stop", {"type": "content_block_stop", "index": i})
        self.ev("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}})
        self.ev("message_stop", {"type": "message_stop"})
    def openai_responses(self, body):
        # which step: count the outputs of earlier calls the input carries
        done = sum(1 for i in body.get("input", []) if isinstance(i, dict)
                   and str(i.get("type", "")).endswith("_call_output"))
        if done < len(steps):
            s = steps[done]
            if isinstance(s["input"], str):  # a freeform (custom) tool: Codex's exec
                item = {"type": "custom_tool_call", "id": "ctc_%02d" % done, "status": "completed",
                        "call_id": "call_%02d" % done, "name": s["tool"], "input": s["input"]}
            else:
                item = {"type": "function_call", "id": "fc_%02d" % done, "status": "completed",
                        "call_id": "call_%02d" % done, "name": s["tool"],
                        "arguments": json.dumps(s["input"])}
        else:
            item = {"type": "message", "role": "assistant", "id": "msg_1",
                    "content": [{"type": "output_text", "text": "done"}]}
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1,
                 "output_tokens_details": None, "total_tokens": 2}
        for d in ({"type": "response.created", "response": {"id": "resp_%d" % done}},
                  {"type": "response.output_item.done", "item": item},
                  {"type": "response.completed", "response": {"id": "resp_%d" % done, "usage": usage}}):
            self.wfile.write(("event: %s\ndata: %s\n\n" % (d["type"], json.dumps(d))).encode())
        self.close_connection = True

    def gemini(self, body):
        # which step: count the functionResponse parts the contents carry
        done = sum(1 for c in body.get("contents", []) for p in c.get("parts", [])
                   if "functionResponse" in p)
        tools = [f.get("name") for t in body.get("tools", []) for f in t.get("functionDeclarations", [])]
        if tools and done < len(steps):
            s = steps[done]
            part = {"functionCall": {"id": "call_%02d" % done, "name": s["tool"], "args": s["input"]}}
        elif body.get("generationConfig", {}).get("responseJsonSchema"):
            # Gemini CLI's own questions (which model to route to, who speaks next)
            part = {"text": json.dumps(fill(body["generationConfig"]["responseJsonSchema"]))}
        else:
            part = {"text": "done"}
        o = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
             "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
             "modelVersion": "fake"}
        if "streamGenerateContent" not in self.path:
            return self.reply(o)
        self.send_response(200); self.send_header("content-type", "text/event-stream"); self.end_headers()
        self.wfile.write(("data: %s\r\n\r\n" % json.dumps(o)).encode())
        self.close_connection = True

    def reply(self, o):
        d = json.dumps(o).encode(); self.send_response(200)
        self.send_header("content-type", "application/json"); self.send_header("content-length", str(len(d)))
        self.end_headers(); self.wfile.write(d)
    def ev(self, n, d):
        self.wfile.write(("event: %s\ndata: %s\n\n" % (n, json.dumps(d))).encode())
def fill(schema):
    """The plainest value a JSON schema accepts: the first of an enum, 1, ..."""
    t = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if t == "object":
        return {k: fill(v) for k, v in schema.get("properties", {}).items()}
    return {"string": "x", "integer": 1, "number": 1, "boolean": False, "array": []}.get(t)
srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
open(PORTFILE + ".tmp", "w").write(str(srv.server_address[1])); os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
