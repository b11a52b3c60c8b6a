#!/usr/bin/env python3
"""A Python client of the intercepting relay, as a guest's python3 would be: http.client on
one keep-alive connection, and urllib. Names resolve to the test's front port on loopback
(--front PORT); the sandbox CA is the only trust (--cafile).

  python_client.py --front PORT --cafile CA signin TOKEN_URL API_URL
      signs in (authorization_code), calls the API, refreshes, calls again, all on one
      http.client connection per host, then once more through urllib; prints JSON lines
      of what it was given and answered.
"""
import argparse
import http.client
import json
import socket
import ssl
import urllib.parse
import urllib.request


def connector(front):
    class Connection(http.client.HTTPSConnection):
        def connect(self):
            raw = socket.create_connection(("127.0.0.1", front), self.timeout)
            self.sock = self._context.wrap_socket(raw, server_hostname=self.host)
    return Connection


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--front", type=int, required=True)
    p.add_argument("--cafile", required=True)
    p.add_argument("mode")
    p.add_argument("token_url")
    p.add_argument("api_url")
    a = p.parse_args()
    ctx = ssl.create_default_context(cafile=a.cafile)
    Connection = connector(a.front)
    token, api = urllib.parse.urlsplit(a.token_url), urllib.parse.urlsplit(a.api_url)
    tc = Connection(token.hostname, token.port or 443, context=ctx, timeout=20)
    ac = Connection(api.hostname, api.port or 443, context=ctx, timeout=20)

    def post(body):
        tc.request("POST", token.path, json.dumps(body), {"Content-Type": "application/json"})
        r = tc.getresponse()
        return r.status, json.loads(r.read())

    def call(access):
        ac.request("GET", api.path, headers={"Authorization": "Bearer " + access})
        r = ac.getresponse()
        return r.status, r.read().decode()

    status, signed = post({"grant_type": "authorization_code", "code": "c", "code_verifier": "v"})
    print(json.dumps({"step": "signin", "status": status, "tokens": signed}))
    print(json.dumps({"step": "call", "result": call(signed["access_token"])}))
    status, refreshed = post({"grant_type": "refresh_token", "refresh_token": signed["refresh_token"]})
    print(json.dumps({"step": "refresh", "status": status, "tokens": refreshed}))
    print(json.dumps({"step": "call", "result": call(refreshed["access_token"])}))

    class Handler(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(Connection, req, context=ctx)
    opener = urllib.request.build_opener(Handler)
    req = urllib.request.Request(a.api_url, headers={"Authorization": "Bearer " + refreshed["access_token"]})
    with opener.open(req, timeout=20) as r:
        print(json.dumps({"step": "urllib", "result": [r.status, r.read().decode()]}))


if __name__ == "__main__":
    main()
