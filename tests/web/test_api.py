"""The verification contract (/api/chain, /api/seals), keyset pagination of the history
and the read token, through Starlette's TestClient on a real database."""

from __future__ import annotations

import hashlib
import re
import sqlite3

from campaign.ledger import GENESIS_HASH
from tests.web.conftest import client_for
from tests.web.test_pages import rows

TOKEN = "table-token-0123456789"


def test_chain_serves_the_hashed_text_byte_exact(table, client):
    cli, seqs = table
    answer = client.get("/api/chain").json()
    assert answer["campaign"] == "テスト卓" and answer["genesis"] == GENESIS_HASH == "0" * 64
    assert answer["next"] is None
    with sqlite3.connect(cli.db) as raw:
        stored = raw.execute("SELECT seq, kind, record, prev_hash, hash FROM ledger ORDER BY seq").fetchall()
    assert [(e["seq"], e["kind"], e["record"], e["prev_hash"], e["hash"]) for e in answer["entries"]] == stored
    previous = answer["genesis"]
    for entry in answer["entries"]:  # what a browser does: SHA-256(prev_hash + record)
        assert entry["prev_hash"] == previous
        assert hashlib.sha256((previous + entry["record"]).encode("utf-8")).hexdigest() == entry["hash"]
        previous = entry["hash"]
    assert list(answer["entries"][0]) == ["seq", "kind", "prev_hash", "hash", "record"]


def test_chain_ranges_and_the_thousand_entry_cap(table, client):
    cli, seqs = table
    part = client.get("/api/chain?from=3&to=5").json()
    assert [e["seq"] for e in part["entries"]] == [3, 4, 5] and part["next"] is None
    assert client.get("/api/chain?from=999").json()["entries"] == []
    assert client.get("/api/chain?from=x").status_code == 400
    from campaign.db.database import Database
    from campaign.services.ledger.browse import chain_slice

    db = Database(cli.db)
    try:
        first = chain_slice(db, None, 1, None, batch=4)
        assert [e.seq for e in first.entries] == [1, 2, 3, 4] and first.next == 5
        assert chain_slice(db, None, 1, 4, batch=4).next is None
    finally:
        db.close()


def test_chain_answers_at_most_a_thousand_entries(table, client):
    from campaign.core.dice_source import ManualDice
    from campaign.db.database import Database
    from campaign.services.checks.rolls import roll

    cli, seqs = table
    db = Database(cli.db)
    try:
        head = seqs["seal"]
        for _ in range(1001 - head):
            roll(db, None, "GM", "1D6", ManualDice([3]))
    finally:
        db.close()
    answer = client.get("/api/chain").json()
    assert len(answer["entries"]) == 1000 and answer["next"] == 1001
    rest = client.get("/api/chain?from=1001").json()
    assert [e["seq"] for e in rest["entries"]] == [1001] and rest["next"] is None
    assert rest["entries"][0]["prev_hash"] == answer["entries"][-1]["hash"]


def test_seals_list_every_seal_head(table, client):
    cli, seqs = table
    second = cli.json("history", "seal")
    seals = client.get("/api/seals").json()["seals"]
    assert [(s["seq"], s["hash"]) for s in seals] == [
        (seqs["seal"], cli.json("history", "show", str(seqs["seal"]))["hash"]),
        (second["seq"], second["head"]),
    ]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z", s["at"]) for s in seals)


def test_history_pages_by_seq_without_gaps_or_repeats(table, client):
    from campaign.core.dice_source import ManualDice
    from campaign.db.database import Database
    from campaign.services.checks.rolls import roll

    cli, seqs = table
    db = Database(cli.db)
    try:
        for face in range(1, 121):
            roll(db, None, "GM", "1D6", ManualDice([face % 6 + 1]))
    finally:
        db.close()
    head = seqs["seal"] + 120
    seen, url = [], "/history"
    while url:
        page = client.get(url).text
        shown = rows(page)
        assert len(shown) <= 50
        seen += shown
        older = re.search(r'<a rel="next" href="([^"]+)"', page)
        url = older.group(1).replace("&amp;", "&") if older else None
        if url:
            assert url == f"/history?before={shown[-1]}"
            assert "data-feed=" not in client.get(url).text and "newest" in client.get(url).text
        # The verify panel starts at the oldest row the page shows.
        assert f'data-from-seq="{shown[-1]}"' in page
    assert seen == list(range(head, 0, -1))
    # Filters stay on the next page's link.
    page = client.get("/history?kind=roll").text
    older = re.search(r'<a rel="next" href="([^"]+)"', page).group(1)
    assert older.startswith("/history?kind=roll&amp;before=")


def test_a_history_page_is_one_indexed_range_query(table):
    """At a million entries a page must not scan or count the ledger: every statement the
    page runs on the ledger is an index search (SQLite's plan), none a COUNT."""
    from sqlalchemy import event

    cli, seqs = table
    client = client_for(cli.db)
    db = client.app.app.state.db
    statements: list[tuple[str, tuple]] = []

    def record(conn, cursor, statement, parameters, context, executemany):
        statements.append((statement, parameters))

    event.listen(db.engine, "before_cursor_execute", record)
    for url in (
        "/history",
        "/history?before=10",
        "/history?kind=roll&before=10",
        "/history?outcome=success",
        "/history?scenario=1",
    ):
        statements.clear()
        assert client.get(url).status_code == 200
        ledger_reads = [(s, p) for s, p in statements if "FROM ledger" in s]
        assert ledger_reads, url
        with sqlite3.connect(cli.db) as raw:
            for statement, parameters in ledger_reads:
                assert "count(" not in statement.lower(), url
                plan = " / ".join(row[3] for row in raw.execute("EXPLAIN QUERY PLAN " + statement, parameters))
                assert "SCAN" not in plan and "TEMP B-TREE" not in plan, (url, plan)
        assert sum("LIMIT" in s for s, _ in ledger_reads) == 1, url


def test_without_the_token_every_path_is_refused(table):
    cli, seqs = table
    client = client_for(cli.db, TOKEN)
    for path in (
        "/",
        "/history",
        "/entries/1",
        "/api/chain",
        "/api/seals",
        "/api/feed",
        "/api/table",
        "/api/session",
        "/?token=wrong",
        "/?token=" + TOKEN[:-1],
    ):
        answer = client.get(path)
        assert answer.status_code == 401, path
        assert "テスト卓" not in answer.text
        if path.startswith("/api/"):  # the API's refusals are JSON with a code
            assert answer.json()["code"] == "no_session"
        else:
            assert "Token required" in answer.text
        assert answer.headers["referrer-policy"] == "same-origin"
    client.cookies.set("campaign_token", "wrong")
    assert client.get("/").status_code == 401
    # the package's own static files hold no campaign data: the invite's confirmation page is styled
    assert client.get("/static/style.css").status_code == 200
    assert client.get("/join/" + "x" * 43).status_code == 404


def test_the_token_link_sets_a_strict_cookie_and_drops_the_parameter(table):
    cli, seqs = table
    client = client_for(cli.db, TOKEN)
    answer = client.get(f"/history?kind=roll&token={TOKEN}")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/history?kind=roll"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"campaign_token={TOKEN};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert client.get("/history?kind=roll").status_code == 200  # the cookie, kept by the client
    assert client.get("/api/chain").status_code == 200
    assert client.get(f"/?token={TOKEN}").headers["location"] == "/"
    assert (
        client.get(f"/characters/%E9%88%B4%E9%9F%B3?token={TOKEN}").headers["location"]
        == "/characters/%E9%88%B4%E9%9F%B3"
    )


def test_the_feed_row_is_the_history_row(table, client):
    """The live feed renders a new entry with the history page's own macro."""
    import asyncio

    cli, seqs = table
    feed = client.app.app.state.feed
    sent = asyncio.run(feed.rows_after(seqs["seal"] - 2))
    assert [seq for seq, _ in sent] == [seqs["seal"] - 1, seqs["seal"]]
    page = client.get("/history").text
    for _seq, html in sent:
        assert html.strip() in page


def test_the_feed_stream_sends_entries_then_keepalives(table, client, monkeypatch):
    import asyncio

    from campaign.web import feed as feed_module

    cli, seqs = table
    monkeypatch.setattr(feed_module, "KEEPALIVE", 0.3)
    stream = client.app.app.state.feed.stream(seqs["seal"] - 1)

    async def first(n):
        return [await stream.__anext__() for _ in range(n)]

    retry, entry, state, keepalive = asyncio.run(first(4))
    assert retry == "retry: 1000\n\n"
    head, event, data = entry.splitlines()[:3]
    assert (head, event) == (f"id: {seqs['seal']}", "event: entry") and data.startswith(
        f'data: {{"seq": {seqs["seal"]}, '
    )
    assert state.startswith(f'event: state\ndata: {{"seq": {seqs["seal"]}, "characters": ')
    assert keepalive == ": keepalive\n\n"
