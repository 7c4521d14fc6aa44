"""A webhook receiver for the tests: verifies every delivery with the `standardwebhooks` library.

Usage: webhook_receiver.py <secrets-dir>. Prints "READY <port>". POST /<name> is endpoint <name>,
whose secret is read from <secrets-dir>/<name>.secret at each request. An endpoint named
flaky* answers 500 to the first two attempts of each webhook-id; hang* never answers in time;
slow* takes 20 ms.
GET /_log returns every delivery received, in order.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook

secrets_dir = sys.argv[1]
log = []
attempts = {}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        with lock:
            body = json.dumps(log).encode()
        self.answer(200, body)

    def do_POST(self):
        name = self.path.strip("/")
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with open(os.path.join(secrets_dir, name + ".secret")) as f:
            secrets = f.read().split()
        headers = {k: v for k, v in self.headers.items()}
        verified = False
        for secret in secrets:
            try:
                Webhook(secret).verify(body, headers)
                verified = True
            except Exception:
                pass
        event_id = headers.get("webhook-id") or headers.get("Webhook-Id")
        with lock:
            n = attempts.get((name, event_id), 0) + 1
            attempts[(name, event_id)] = n
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
            log.append({"endpoint": name, "id": event_id, "attempt": n, "verified": verified,
                        "signature": headers.get("webhook-signature") or headers.get("Webhook-Signature"),
                        "at": time.time(), "body": parsed})
        if not verified:
            self.answer(401, b"bad signature")
        elif name.startswith("hang"):
            time.sleep(30)
            self.answer(200)
        elif name.startswith("slow"):
            time.sleep(0.02)
            self.answer(204)
        elif name.startswith("flaky") and n <= 2:
            self.answer(500, b"try again" * 1000)
        else:
            self.answer(204)


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a sender killed mid-request (the SIGKILL test) is expected


server = Server(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("READY", server.server_address[1], flush=True)
server.serve_forever()
