"""A small real reverse proxy for the tests (run as its own process): forwards every request to an upstream
HTTP server and appends the peer's address to X-Forwarded-For, as nginx's `$proxy_add_x_forwarded_for` does.

    python -m tests.integration.reverse_proxy UPSTREAM_URL PORT_FILE [--proto https]
"""

from __future__ import annotations

import argparse
import http.client
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("upstream")
    parser.add_argument("port_file")
    parser.add_argument("--proto", default="http", help="X-Forwarded-Proto to send (https: TLS ends here)")
    args = parser.parse_args(argv)
    up = urlsplit(args.upstream)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            prior = self.headers.get("X-Forwarded-For")
            headers["X-Forwarded-For"] = f"{prior}, {self.client_address[0]}" if prior else self.client_address[0]
            headers["X-Forwarded-Proto"] = args.proto
            conn = http.client.HTTPConnection(up.hostname or "127.0.0.1", up.port or 80, timeout=30)
            try:
                conn.request(self.command, self.path, body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
            finally:
                conn.close()
            self.send_response(response.status, response.reason)
            for key, value in response.getheaders():
                if key.lower() not in HOP_BY_HOP and key.lower() != "content-length":
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_HEAD = _forward

        def log_message(self, format: str, *a: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Path(args.port_file).write_text(str(server.server_address[1]))
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
