"""What a request may hold without a 500 or a trip off-site.

- The live feed's Last-Event-ID header: a reconnecting EventSource sends the id of the
  last event it saw; a header that is not such an id (thousands of digits, beyond the
  ledger's 32-bit seq, not ASCII digits) is as if none was sent; `?after=` that is not
  a seq is a 400 with one line.
- The token link's redirect stays on this server, whatever path the link had: a path
  starting `//host` or `/\\host` would be read by a browser as another host.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import pytest

from campaign.web.security import Guard
from tests.web.conftest import client_for

TOKEN = "table-token-0123456789"


@pytest.fixture
def feed_client(table, monkeypatch):
    """The app with a feed stream that says where it would start, then ends."""
    cli, seqs = table
    client = client_for(cli.db)
    state = client.app.app.state

    async def finite(after):
        yield f"after={after}\n"

    monkeypatch.setattr(state.feed, "stream", finite)
    return client, asyncio.run(state.feed.head())


@pytest.mark.parametrize(
    "header",
    [
        "5" * 5000,
        "9" * 11,
        "2147483648",
        "99999999999999999999",
        "-3",
        "3.0",
        "1e3",
        " ",
        "0x10",
        b"\xb2",
        "\u0661\u0662".encode("utf-8"),
        b"\xef\xbc\x91",  # superscript two, Arabic-Indic, fullwidth digits
    ],
)
def test_a_last_event_id_that_is_no_seq_is_ignored(feed_client, header):
    client, head = feed_client
    answer = client.get("/api/feed", headers={"last-event-id": header})
    assert answer.status_code == 200 and answer.text == f"after={head}\n"
    answer = client.get("/api/feed?after=2", headers={"last-event-id": header})
    assert answer.status_code == 200 and answer.text == "after=2\n"


def test_a_last_event_id_that_is_a_seq_wins(feed_client):
    client, head = feed_client
    assert client.get("/api/feed?after=1", headers={"last-event-id": "3"}).text == "after=3\n"
    assert client.get("/api/feed", headers={"last-event-id": "2147483647"}).text == "after=2147483647\n"
    assert client.get("/api/feed", headers={"last-event-id": "0"}).text == "after=0\n"


@pytest.mark.parametrize("after", ["5" * 5000, "2147483648", "x", "1.5", "\u0661"])
def test_an_after_that_is_no_seq_is_a_400(feed_client, after):
    client, _head = feed_client
    answer = client.get("/api/feed", params={"after": after})
    assert answer.status_code == 400
    message = answer.json()["error"]
    assert "after: " in message and "\n" not in message
    assert len(message) < 160


def test_chain_bounds_are_400_or_clamped(table):
    client = client_for(table[0].db)
    assert client.get("/api/chain?from=" + "7" * 5000).status_code == 400
    assert client.get("/api/chain?to=99999999999").status_code == 200


def _redirect(raw_path: bytes, root_path: str = "") -> str:
    """The Location the guard answers a token link for `raw_path` with."""
    sent = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    async def never(scope, receive, send):  # the guard answers a token link itself
        raise AssertionError("the app was called")

    path = raw_path.decode("latin-1")
    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": raw_path,
        "root_path": root_path,
        "query_string": f"token={TOKEN}&kind=roll".encode(),
        "headers": [(b"host", b"127.0.0.1:8000")],
    }
    asyncio.run(Guard(never, TOKEN)(scope, receive, send))
    assert sent[0]["status"] == 303
    return dict(sent[0]["headers"])[b"location"].decode("ascii")


@pytest.mark.parametrize(
    "raw_path, expected",
    [
        (b"//evil.example/", "/evil.example/"),
        (b"///evil.example/x", "/evil.example/x"),
        (b"/\\evil.example/", "/evil.example/"),
        (b"\\\\evil.example", "/evil.example"),
        (b"/\t/evil.example", "/%09/evil.example"),
        (b"/\n//evil.example", "/%0A//evil.example"),
        (b"https://evil.example/", "/https://evil.example/"),
        (b"/history", "/history"),
        (b"/characters/%E9%88%B4%E9%9F%B3", "/characters/%E9%88%B4%E9%9F%B3"),
        (b"/characters/\xe9\x88\xb4", "/characters/%E9%88%B4"),
        (b"", "/"),
    ],
)
def test_the_token_redirect_stays_on_this_server(raw_path, expected):
    location = _redirect(raw_path)
    assert location == expected + "?kind=roll"
    parts = urlsplit(location)
    assert (parts.scheme, parts.netloc) == ("", "") and location.startswith("/") and location[1] not in "/\\"


def test_the_token_redirect_of_a_real_request(table):
    client = client_for(table[0].db, TOKEN)
    answer = client.get(f"/history?kind=roll&token={TOKEN}")
    assert answer.status_code == 303 and answer.headers["location"] == "/history?kind=roll"
