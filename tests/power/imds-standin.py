#!/usr/bin/env python3
"""Stand-in EC2 instance metadata service (IMDSv2 only) for the slo-spot-watch
tests, on 127.0.0.1 and a free port (written to DIR/port once listening).

Shapes, as the EC2 User Guide documents them ("Use the Instance Metadata
Service", "Spot Instance interruption notices", "EC2 instance rebalance
recommendations"):
  PUT /latest/api/token with X-aws-ec2-metadata-token-ttl-seconds: 1..21600
      -> 200, the token as text/plain; without the header or out of range
      -> 400; with X-Forwarded-For -> 403 (IMDS refuses proxied token requests)
  GET /latest/meta-data/... without a valid token -> 401
  GET /latest/meta-data/spot/instance-action -> 404 until DIR/instance-action
      exists, then 200 with its content ({"action": "terminate", "time": ...})
  GET /latest/meta-data/events/recommendations/rebalance -> 404 until
      DIR/rebalance exists, then 200 with it ({"noticeTime": ...})
Control (files in DIR): instance-action, rebalance (the bodies to serve);
expire-tokens (invalidate every token issued so far, then the file is
removed). Every request is logged to DIR/requests.log as
"METHOD PATH token=yes|no|bad STATUS".
"""
import http.server
import os
import secrets
import sys

DIR = sys.argv[1]
tokens = set()


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "EC2ws"
    sys_version = ""

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, body=b"", ctype="text/plain"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def record(self, tok, status):
        with open(os.path.join(DIR, "requests.log"), "a") as f:
            f.write("%s %s token=%s %d\n" % (self.command, self.path, tok, status))

    def do_PUT(self):
        if self.path != "/latest/api/token":
            self.record("-", 404)
            return self.reply(404, b"Not Found")
        if self.headers.get("X-Forwarded-For"):
            self.record("-", 403)
            return self.reply(403, b"Forbidden")
        ttl = self.headers.get("X-aws-ec2-metadata-token-ttl-seconds", "")
        if not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
            self.record("-", 400)
            return self.reply(400, b"Bad Request")
        tok = secrets.token_urlsafe(40)
        tokens.add(tok)
        self.record("new", 200)
        self.reply(200, tok.encode())

    def do_GET(self):
        expire = os.path.join(DIR, "expire-tokens")
        if os.path.exists(expire):
            tokens.clear()
            os.unlink(expire)
        tok = self.headers.get("X-aws-ec2-metadata-token")
        if tok is None or tok not in tokens:
            state = "no" if tok is None else "bad"
            self.record(state, 401)
            return self.reply(401, b"")
        items = {
            "/latest/meta-data/spot/instance-action": "instance-action",
            "/latest/meta-data/events/recommendations/rebalance": "rebalance",
        }
        name = items.get(self.path)
        path = os.path.join(DIR, name) if name else None
        if path and os.path.exists(path):
            with open(path, "rb") as f:
                body = f.read()
            self.record("yes", 200)
            return self.reply(200, body)
        self.record("yes", 404)
        self.reply(404, b"<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>\n<html><head>"
                   b"<title>404 - Not Found</title></head><body><h1>404 - Not Found</h1>"
                   b"</body></html>\n", "text/html")


def main():
    srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    tmp = os.path.join(DIR, "port.tmp")
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, os.path.join(DIR, "port"))
    srv.serve_forever()


if __name__ == "__main__":
    main()
