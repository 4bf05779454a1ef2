#!/usr/bin/env python3
"""A fake OpenAI-compatible server for run_model_pipeline.sh.

fake_model_server.py PORT_FILE MODE: listens on 127.0.0.1 (a free port, written to PORT_FILE)
and answers POST /v1/chat/completions with "answer N" (N counts requests). MODE:
  flaky      the first two requests get 503, the rest answers
  fail_after the first two requests get answers, every later one 500
"""
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, mode = sys.argv[1], sys.argv[2]
lock = threading.Lock()
count = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        global count
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        with lock:
            count += 1
            n = count
        if (mode == "flaky" and n <= 2) or (mode == "fail_after" and n > 2):
            status = 503 if mode == "flaky" else 500
            body = json.dumps({"error": {"message": "fake failure %d" % n}})
        else:
            status = 200
            body = json.dumps(
                {
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": "answer %d" % n},
                        }
                    ]
                }
            )
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # the client's probe connects and closes without a request


server = Server(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
