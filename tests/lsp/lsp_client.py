"""A minimal scripted LSP client: starts `ropc lsp`, speaks JSON-RPC 2.0 in Content-Length
frames over its stdin/stdout, and collects what the server sends. Shared by tests/lsp's scripts."""
import json
import subprocess
import threading
import queue


class LspClient:
    def __init__(self, argv, cwd=None, env=None):
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd, env=env
        )
        self.next_id = 1
        self.inbox = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            body = out.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body))

    def send_raw(self, body: bytes, header=None):
        if header is None:
            header = b"Content-Length: %d\r\n\r\n" % len(body)
        self.proc.stdin.write(header + body)
        self.proc.stdin.flush()

    def send(self, message):
        self.send_raw(json.dumps(message).encode("utf-8"))

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=120):
        """Sends a request; returns its response (notifications seen meanwhile are kept)."""
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def wait(self, predicate, timeout=120):
        """The next message that `predicate` accepts; the ones before it are dropped."""
        while True:
            message = self.inbox.get(timeout=timeout)
            if message is None:
                raise AssertionError("the server closed its output")
            if predicate(message):
                return message

    def diagnostics(self, uri, timeout=120):
        message = self.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri,
            timeout,
        )
        return message["params"]["diagnostics"]

    def finish(self, timeout=30):
        return self.proc.wait(timeout=timeout)
