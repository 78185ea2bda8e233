"""Helpers for the table-server tests: the app served by a real uvicorn on 127.0.0.1
(in a thread of the test process, so a test can give it fixed dice), and a player's
browser (an httpx client that joins with an invite and sends its writes like the page)."""

from __future__ import annotations

import itertools
import threading
import time
import warnings
from contextlib import contextmanager

import httpx

_keys = itertools.count(1)


class Faces:
    """The server's dice, with faces fixed by the test (recorded as `server`, like ServerDice)."""

    kind = "server"

    def __init__(self, queue: list[int]) -> None:
        self.queue = queue

    def roll(self, sides: int) -> int:
        face = self.queue.pop(0)
        assert 1 <= face <= sides, f"test face {face} on a d{sides}"
        return face

    def ensure_all_used(self) -> None:
        return None


@contextmanager
def served(db_url: str, faces: list[int] | None = None, port: int = 0, **options):
    """A real HTTP server on 127.0.0.1 for the campaign; yields its base URL. `port`: a
    fixed one (a test that stops the server and starts it again on the same address);
    open event streams are cut a second after the stop."""
    import uvicorn

    from campaign.web.app import create_app
    from campaign.web.serving import listening_socket, server_config

    queue = faces if faces is not None else []
    dice = (lambda: Faces(queue)) if faces is not None else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(db_url, None, dice=dice, **options)
    sock = listening_socket("127.0.0.1", port)  # as `campaign serve` listens (no Nagle)
    server = uvicorn.Server(server_config(app))  # as `campaign serve` runs it
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        app.app.state.db.close()


class Browser:
    """One person's browser: cookies kept, Origin sent as a page of this server would."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = httpx.Client(base_url=base, timeout=30, follow_redirects=False)
        self.csrf: str | None = None

    def join(self, join_path: str) -> httpx.Response:
        page = self.http.get(join_path, headers={"referer": "https://discord.example/channels/1"})
        assert page.status_code == 200, page.text
        answer = self.http.post(join_path, data={"confirm": "1"}, headers={"origin": self.base})
        if answer.status_code == 303:
            self.csrf = self.http.get("/api/session").json()["csrf"]
        return answer

    def post(
        self, path: str, body: dict, *, origin: str | None = "same", csrf: str | None = "same", key: str | None = "new"
    ) -> httpx.Response:
        headers = {}
        if origin is not None:
            headers["origin"] = self.base if origin == "same" else origin
        if csrf is not None:
            headers["x-csrf-token"] = (self.csrf or "") if csrf == "same" else csrf
        if key is not None:
            body = {**body, "idempotency_key": f"k{next(_keys):08d}" if key == "new" else key}
        return self.http.post(path, json=body, headers=headers)

    def close(self) -> None:
        self.http.close()
