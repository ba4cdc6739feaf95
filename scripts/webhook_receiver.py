#!/usr/bin/env python3
"""A webhook receiver for trying the ledger on one machine: `python3 scripts/webhook_receiver.py PORT SECRET`.

Listens on 127.0.0.1:PORT, checks each POST's Standard Webhooks signature against SECRET (the `whsec_…` the endpoint's
creation showed) with the standard library alone, answers 204 to a valid message and 401 to any other, and prints one
line per message: `verified <type> user <app_user_id> sequence <n>`. For production, use a Standard Webhooks library
(README, "Live status and webhooks")."""
import base64
import hashlib
import hmac
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


def signature_matches(secret: str, headers, body: bytes) -> bool:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    message_id, timestamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > 300:
        return False
    signed = f"{message_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    offered = [entry.split(",", 1)[1] for entry in headers.get("webhook-signature", "").split() if entry.startswith("v1,")]
    return any(hmac.compare_digest(expected, candidate) for candidate in offered)


class Receiver(BaseHTTPRequestHandler):
    secret = ""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if not signature_matches(self.secret, self.headers, body):
            self.send_response(401)
            self.end_headers()
            print("refused: the signature does not match", flush=True)
            return
        self.send_response(204)
        self.end_headers()
        message = json.loads(body)
        data = message.get("data", {})
        print(f"verified {message.get('type')} user {data.get('app_user_id')} sequence {data.get('sequence')}", flush=True)

    def log_message(self, *arguments):
        pass


if __name__ == "__main__":
    if len(sys.argv) != 3 or not sys.argv[1].isdigit() or not sys.argv[2].startswith("whsec_"):
        sys.exit("usage: webhook_receiver.py PORT whsec_SECRET")
    Receiver.secret = sys.argv[2]
    HTTPServer(("127.0.0.1", int(sys.argv[1])), Receiver).serve_forever()
