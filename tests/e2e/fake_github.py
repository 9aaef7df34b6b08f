#!/usr/bin/python3
"""A loopback stand-in for the parts of GitHub's REST API relforge calls, for e2e tests.

Usage: fake_github.py LOG_FILE [--release-exists TAG] [--labels N=label,label ...] [--token T]
                      [--comment N=LOGIN:TYPE:ASSOCIATION:BODY ...] [--filler N=COUNT] [--read-only]
Prints "port <N>" once listening on 127.0.0.1. Every request is appended to LOG_FILE as one JSON
line (method, path, authorization, api_version, body). Answers:
  GET   /repos/o/r/issues/N          labels given with --labels N=…, else 404
  GET   /repos/o/r/releases/tags/T   200 when T was given with --release-exists or created, else 404
  POST  /repos/o/r/releases          201 (the release is then known)
  PATCH /repos/o/r/releases/ID       200
  GET   /repos/o/r/issues/N/comments?per_page=P&page=K   that page of PR N's comments (seeded with
        --comment, or COUNT plain ones with --filler), oldest first
  POST  /repos/o/r/issues/N/comments   201, written by the token's user (relforge-bot, a Bot)
  PATCH /repos/o/r/issues/comments/ID  200; 403 when someone else wrote it; 404 when unknown
With --read-only every POST/PATCH answers 403 (a token without write access).
A request without "Authorization: Bearer <--token>" gets 401. POST /shutdown stops the server.
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

args = sys.argv[1:]
log_path = args.pop(0)
releases = {}
labels = {}
token = "test-token"
comments = {}  # PR number -> [comment]
comment_ids = [100]
read_only = False


def add_comment(number, login, kind, association, body):
    comment_ids[0] += 1
    comment = {"id": comment_ids[0], "body": body, "user": {"login": login, "type": kind},
               "author_association": association,
               "html_url": f"https://github.com/o/r/pull/{number}#issuecomment-{comment_ids[0]}"}
    comments.setdefault(number, []).append(comment)
    return comment


while args:
    flag = args.pop(0)
    if flag == "--release-exists":
        tag = args.pop(0)
        releases[tag] = {"id": 41, "tag_name": tag, "html_url": f"https://github.com/o/r/releases/tag/{tag}"}
    elif flag == "--labels":
        number, names = args.pop(0).split("=", 1)
        labels[int(number)] = [n for n in names.split(",") if n]
    elif flag == "--token":
        token = args.pop(0)
    elif flag == "--comment":
        number, rest = args.pop(0).split("=", 1)
        login, kind, association, body = rest.split(":", 3)
        add_comment(int(number), login, kind, association, body.replace("\\n", "\n"))
    elif flag == "--filler":
        number, count = args.pop(0).split("=", 1)
        for i in range(int(count)):
            add_comment(int(number), "someone", "User", "NONE", f"comment {i}")
    elif flag == "--read-only":
        read_only = True
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        with lock, open(log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"method": method, "path": self.path,
                                  "authorization": self.headers.get("Authorization"),
                                  "api_version": self.headers.get("X-GitHub-Api-Version"),
                                  "body": json.loads(body) if body else None}) + "\n")
        if self.path == "/shutdown":
            self.answer(200, {})
            threading.Thread(target=self.server.shutdown).start()
            return
        if self.headers.get("Authorization") != f"Bearer {token}":
            return self.answer(401, {"message": "Bad credentials"})
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        parts = url.path.strip("/").split("/")
        if len(parts) < 4 or parts[0] != "repos":
            return self.answer(404, {"message": "Not Found"})
        rest = parts[3:]
        if read_only and method in ("POST", "PATCH"):
            return self.answer(403, {"message": "Resource not accessible by integration"})
        if rest[0] == "issues" and len(rest) == 3 and rest[2] == "comments":
            number = int(rest[1])
            if method == "GET":
                per_page = int(query.get("per_page", ["30"])[0])
                page = int(query.get("page", ["1"])[0])
                with lock:
                    listed = comments.get(number, [])[(page - 1) * per_page:page * per_page]
                return self.answer(200, listed)
            if method == "POST":
                with lock:
                    created = add_comment(number, "relforge-bot", "Bot", "NONE", json.loads(body)["body"])
                return self.answer(201, created)
        if method == "PATCH" and rest[:2] == ["issues", "comments"] and len(rest) == 3:
            with lock:
                for thread in comments.values():
                    for comment in thread:
                        if str(comment["id"]) == rest[2]:
                            if comment["user"]["login"] != "relforge-bot":
                                return self.answer(403, {"message": "Must have admin rights to Repository."})
                            comment["body"] = json.loads(body)["body"]
                            return self.answer(200, comment)
            return self.answer(404, {"message": "Not Found"})
        if method == "GET" and rest[0] == "issues" and len(rest) == 2:
            number = int(rest[1])
            if number not in labels:
                return self.answer(404, {"message": "Not Found"})
            return self.answer(200, {"number": number, "labels": [{"name": n} for n in labels[number]]})
        if method == "GET" and rest[:2] == ["releases", "tags"] and len(rest) == 3:
            if rest[2] in releases:
                return self.answer(200, releases[rest[2]])
            return self.answer(404, {"message": "Not Found"})
        if method == "POST" and rest == ["releases"]:
            created = json.loads(body)
            release = {"id": 42, "tag_name": created["tag_name"],
                       "html_url": f"https://github.com/o/r/releases/tag/{created['tag_name']}"}
            releases[created["tag_name"]] = release
            return self.answer(201, release)
        if method == "PATCH" and rest[0] == "releases" and len(rest) == 2:
            for release in releases.values():
                if str(release["id"]) == rest[1]:
                    return self.answer(200, release)
            return self.answer(404, {"message": "Not Found"})
        return self.answer(404, {"message": "Not Found"})

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"port {server.server_address[1]}", flush=True)
timer = threading.Timer(120, server.shutdown)  # never outlives a test
timer.daemon = True
timer.start()
server.serve_forever()
