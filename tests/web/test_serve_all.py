"""`campaign serve --all`: one process serves every campaign of the database under
/c/<slug>/ (campaign.web.multi), over real HTTP, on both backends.

Two campaigns served at once: each page and roll under its own path, with the
server's dice fixed; an invite link as the CLI prints it (/join/<code>) opens its own
campaign's seat with a cookie scoped to that campaign's path; a session carried to the
other campaign gets 403 on its writes and none of its secrets; an unknown campaign
path is 404 in the reader's language; a slug clash is refused at start in one line.
On PostgreSQL, 50 campaigns with a live page each hold a bounded number of
connections (pg_stat_activity), not one per campaign or per page.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import threading
import time
import warnings
from contextlib import contextmanager
from urllib.parse import quote

import httpx
import pytest

from tests.cli.conftest import Cli
from tests.web.table_server import Faces
from tests.web.test_serve import CLI, Server

_keys = itertools.count(1)
A, B = "霧の館", "Second Table"
A_BASE, B_BASE = "/c/%E9%9C%A7%E3%81%AE%E9%A4%A8", "/c/second-table"


@contextmanager
def served_all(db_url: str, faces: list[int] | None = None, names: list[str] | None = None, **options):
    """A real uvicorn on 127.0.0.1 serving the database's campaigns as `serve --all`
    does (its socket and settings), in a thread so the test can fix the dice."""
    import uvicorn

    from campaign.web.multi import create_multi_app
    from campaign.web.serving import listening_socket, server_config

    queue = faces if faces is not None else []
    dice = (lambda: Faces(queue)) if faces is not None else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_multi_app(db_url, names, dice=dice, **options)
    sock = listening_socket("127.0.0.1", 0)
    server = uvicorn.Server(server_config(app))
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
        app.close()


def two_campaigns(db: str) -> Cli:
    """霧の館 (GURPS, Aki plays 鈴音) and Second Table (2d6, Ren plays 刀矢)."""
    cli = Cli(db)
    cli.run("init", A, "--ruleset", "gurps3-ja")
    cli.run("--campaign", A, "player", "add", "Aki")
    cli.run("--campaign", A, "char", "add", "鈴音", "--player", "Aki", "--stat", "IQ=10", "--stat", "Will=11")
    cli.run("init", B, "--ruleset", "2d6-ja")
    cli.run("--campaign", B, "player", "add", "Ren")
    cli.run("--campaign", B, "char", "add", "刀矢", "--player", "Ren")
    return cli


class Player:
    """A browser of the server at `root`: cookies kept, Origin as the server's own page."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.http = httpx.Client(base_url=root, timeout=30, follow_redirects=False)
        self.csrf = ""

    def join(self, join_path: str, base: str) -> httpx.Response:
        assert self.http.get(join_path).status_code == 200
        answer = self.http.post(join_path, data={"confirm": "1"}, headers={"origin": self.root})
        assert answer.status_code == 303, answer.text
        self.csrf = self.http.get(base + "/api/session").json()["csrf"]
        return answer

    def post(self, path: str, body: dict, **headers: str) -> httpx.Response:
        sent = {"origin": self.root, "x-csrf-token": self.csrf, **headers}
        return self.http.post(path, json={"idempotency_key": f"key-{next(_keys):08d}", **body}, headers=sent)


def head(cli: Cli, campaign: str) -> int:
    shown = cli.json("--campaign", campaign, "history", "--limit", "1")
    return shown[0]["seq"] if shown else 0


def test_two_campaigns_pages_and_rolls_each_under_its_own_path(db_url):
    cli = two_campaigns(db_url)
    join_a = cli.json("--campaign", A, "invite", "Aki")["join_path"]
    join_b = cli.json("--campaign", B, "invite", "Ren")["join_path"]
    heads = {A: head(cli, A), B: head(cli, B)}
    with served_all(db_url, faces=[1, 2, 3, 6, 5]) as root:
        listing = httpx.get(root + "/", timeout=30)
        assert listing.status_code == 200
        assert re.findall(r'<a href="(/c/[^"]*)">([^<]*)</a>', listing.text) == [(A_BASE + "/", A), (B_BASE + "/", B)]
        assert "<code>/c/霧の館/</code>" in listing.text

        for base, name in ((A_BASE, A), (B_BASE, B)):
            page = httpx.get(root + base + "/history", timeout=30)
            assert page.status_code == 200
            assert f'<meta name="campaign-base" content="{base}/">' in page.text
            assert f'<a class="brand" href="{base}/">{name}</a>' in page.text
            assert f'data-feed="{base}/api/feed?after=' in page.text
            # every link of the page stays in its campaign (the static files are shared)
            links = re.findall(r'(?:href|action|data-feed|data-chain-url)="(/[^"]*)"', page.text)
            assert links and all(link.startswith((base + "/", "/static/")) for link in links), links
        assert httpx.get(root + B_BASE, timeout=30).headers["location"] == B_BASE + "/"

        aki, ren = Player(root), Player(root)
        joined = aki.join(join_a, A_BASE)  # the path `invite` prints, without the campaign's base
        assert joined.headers["location"] == A_BASE + "/"
        cookie = joined.headers["set-cookie"]
        assert f"Path={A_BASE}/;" in cookie and "HttpOnly" in cookie
        ren.join(join_b, B_BASE)
        rolled = aki.post(A_BASE + "/api/rolls", {"command": "3D6<=12 回避", "character": "鈴音"})
        assert rolled.status_code == 201, rolled.text
        assert (rolled.json()["seq"], rolled.json()["dice"], rolled.json()["total"]) == (heads[A] + 1, [1, 2, 3], 6)
        rolled_b = ren.post(B_BASE + "/api/rolls", {"command": "2D6", "character": "刀矢"})
        assert rolled_b.status_code == 201, rolled_b.text
        assert (rolled_b.json()["seq"], rolled_b.json()["dice"], rolled_b.json()["total"]) == (heads[B] + 1, [6, 5], 11)
        entry_a = aki.http.get(A_BASE + f"/entries/{heads[A] + 1}")
        assert entry_a.status_code == 200 and f'href="{A_BASE}/characters/%E9%88%B4%E9%9F%B3"' in entry_a.text

    shown_a = cli.json("--campaign", A, "history", "--limit", "1")[0]
    shown_b = cli.json("--campaign", B, "history", "--limit", "1")[0]
    assert (shown_a["seq"], shown_a["actor"], shown_a["character"]) == (heads[A] + 1, "Aki", "鈴音")
    assert (shown_b["seq"], shown_b["actor"], shown_b["character"]) == (heads[B] + 1, "Ren", "刀矢")


def test_a_session_of_one_campaign_writes_nothing_in_another_and_reads_no_secret(db_url, monkeypatch):
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    cli = two_campaigns(db_url)
    join_a = cli.json("--campaign", A, "invite", "Aki")["join_path"]
    bot_a = cli.json("--campaign", A, "invite", "bot1", "--bcdice", "--player", "Aki")["base_path"]
    heads = {A: head(cli, A), B: head(cli, B)}
    with served_all(db_url, faces=[4, 4, 4]) as root:
        aki = Player(root)
        aki.join(join_a, A_BASE)
        session = aki.http.cookies["campaign_session"]
        # a browser would not even send the cookie there (its path); a client that does:
        carried = {"cookie": f"campaign_session={session}"}
        roll = {"command": "2D6", "character": "刀矢", "idempotency_key": "k-cross-0001"}
        refused = aki.post(B_BASE + "/api/rolls", roll, **carried)
        assert refused.status_code == 403
        assert refused.json() == {
            "error": "このサインインは別のキャンペーンのものです: このキャンペーン自身の招待リンクを開いてください",
            "code": "other_campaign",
        }
        for path in ("/api/calls", "/api/gm/award"):
            assert aki.post(B_BASE + path, {}, **carried).status_code == 403
        assert aki.http.get(B_BASE + "/api/session", headers=carried).status_code == 401
        table = aki.http.get(B_BASE + "/api/table", headers=carried)
        assert "csrf" not in table.text and session not in table.text
        # A's bot token is A's alone: B's path refuses it, the path `invite bot` prints is A's
        assert httpx.get(f"{root}{B_BASE}{bot_a}v2/version", timeout=30).status_code == 400
        assert httpx.get(f"{root}{bot_a}v2/version", timeout=30).status_code == 200
        # and in its own campaign the same session still writes
        assert aki.post(A_BASE + "/api/rolls", {"command": "3D6", "character": "鈴音"}).status_code == 201
    assert head(cli, B) == heads[B]  # nothing written in B
    assert head(cli, A) == heads[A] + 1


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_an_unknown_campaign_path_is_404_in_the_readers_language(db_url, monkeypatch):
    monkeypatch.delenv("CAMPAIGN_LANG")  # the browser's language, else the rulesets' (Japanese)
    two_campaigns(db_url)
    with served_all(db_url) as root:
        ja = httpx.get(root + "/c/nothing/history", timeout=30)
        en = httpx.get(root + "/c/nothing/", headers={"accept-language": "en"}, timeout=30)
        bare = httpx.get(root + "/c/nothing", headers={"accept-language": "en"}, timeout=30)
        unknown_invite = httpx.get(root + "/join/" + "x" * 43, timeout=30)
    assert (ja.status_code, en.status_code, bare.status_code, unknown_invite.status_code) == (404, 404, 404, 404)
    assert "<h1>404 そのキャンペーンはありません</h1>" in ja.text
    assert "このアドレスで公開中のキャンペーンはありません" in ja.text
    assert "<h1>404 No such campaign</h1>" in en.text and "<h1>404 No such campaign</h1>" in bare.text
    assert ja.headers["x-frame-options"] == "DENY"  # the front's answers carry the security headers too


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_slug_clash_is_refused_at_start_in_one_line_and_campaigns_narrows(db_url, serve, monkeypatch):
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    cli = Cli(db_url)
    cli.run("init", "Foo Bar")
    cli.run("init", "ｆｏｏ＿ｂａｒ")  # NFKC and case-folded: foo-bar too
    cli.run("init", "霧の館")
    refused = subprocess.run(
        [*CLI, "--db", db_url, "serve", "--all", "--port", "0"], capture_output=True, text=True, timeout=120
    )
    assert refused.returncode != 0 and refused.stdout == ""
    assert refused.stderr.strip().splitlines() == [
        "エラー: キャンペーン 'Foo Bar' と 'ｆｏｏ＿ｂａｒ' はどちらも /c/foo-bar/ で公開されることになります: "
        "--campaigns で公開するものを指定し、どちらかを外してください"
    ]
    both = cli.error("serve", "--all", "--campaigns", "Foo Bar", code=2)
    assert both == (
        "エラー: --all はすべてのキャンペーンを公開します: --all か --campaigns のどちらか一方を指定してください"
    )
    unknown = cli.error("serve", "--campaigns", "Foo Bar,Nobody", code=1)
    assert unknown.startswith("エラー: キャンペーン 'Nobody' はありません")
    server = serve(db_url, "--campaigns", "Foo Bar,霧の館")
    root = server.first_line.rstrip("/")
    shown = [server.proc.stdout.readline().strip() for _ in range(2)]
    assert shown == [f"Foo Bar: {root}/c/foo-bar/", f"霧の館: {root}{A_BASE}/"]
    assert httpx.get(root + "/c/foo-bar/", timeout=30).status_code == 200
    assert httpx.get(root + A_BASE + "/", timeout=30).status_code == 200


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_serve_all_behind_a_token_lists_the_campaigns_to_the_token_only(db_url, serve):
    two_campaigns(db_url)
    server = serve(db_url, "--all", "--host", "127.0.0.1", "--token-file", _token_file(db_url))
    root = server.first_line.split("?")[0].rstrip("/")
    assert server.first_line == root + "/?token=table-token-1234"
    assert httpx.get(root + "/", timeout=30).status_code == 401
    assert httpx.get(root + B_BASE + "/", timeout=30).status_code == 401
    assert httpx.get(root + "/c/nothing/", timeout=30).status_code == 401  # nor which campaigns exist
    with httpx.Client(timeout=30, follow_redirects=True) as gm:
        listing = gm.get(server.first_line)
        assert listing.status_code == 200 and str(listing.url) == root + "/"
        assert gm.get(root + B_BASE + "/").status_code == 200  # the token's cookie is the server's


def _token_file(db_url: str) -> str:
    from pathlib import Path

    path = Path(db_url).parent / "token.txt"
    path.write_text("table-token-1234\n")
    return str(path)


@pytest.fixture
def serve():
    started: list[Server] = []

    def start(db: str, *args: str) -> Server:
        started.append(Server(db, *args) if "--all" in args or "--campaigns" in args else Server(db, "--all", *args))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_fifty_campaigns_with_a_live_page_each_hold_a_bounded_pool(db_url, monkeypatch):
    """One engine and one LISTEN connection for the process: pg_stat_activity counts the
    server's connections (its application_name) with 50 campaigns served, a page read
    and a live feed open on each, and a roll committed elsewhere reaching its own feed.
    The notification wakes all fifty feeds, which read their heads together
    (HeadsProbe): no feed probes its own head."""
    import psycopg
    from sqlalchemy.engine import make_url

    from campaign.services.ledger import browse
    from campaign.services.table import calls

    own_probes: list[int] = []
    together: list[int] = []
    head_seq, heads_and_calls = browse.head_seq, calls.heads_and_calls

    def counted_head_seq(db, campaign_id):
        own_probes.append(campaign_id)
        return head_seq(db, campaign_id)

    def counted_heads_and_calls(db, campaign_ids):  # one campaign: a feed's probe of its own head
        campaign_ids = list(campaign_ids)
        (together if len(campaign_ids) > 1 else own_probes).append(
            len(set(campaign_ids)) if len(campaign_ids) > 1 else campaign_ids[0]
        )
        return heads_and_calls(db, campaign_ids)

    monkeypatch.setattr(browse, "head_seq", counted_head_seq)
    monkeypatch.setattr(calls, "heads_and_calls", counted_heads_and_calls)

    from tests.web.test_feed_listen import Events

    cli = Cli(db_url)
    names = [f"卓{number:02d}" for number in range(50)]
    for name in names:
        cli.run("init", name)
    served_url = make_url(db_url).update_query_dict({"application_name": "serve_all_test"})
    served_url_text = served_url.render_as_string(hide_password=False)
    dsn = make_url(db_url).set(drivername="postgresql").render_as_string(hide_password=False)

    def connections() -> int:
        with psycopg.connect(dsn, autocommit=True) as probe:
            found = probe.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'serve_all_test'"
            ).fetchone()
        return int(found[0]) if found else 0

    before = head(cli, names[37])
    with served_all(served_url_text) as root:
        streams = []
        for name in names:
            base = "/c/" + quote(name)
            assert httpx.get(root + base + "/history", timeout=30).status_code == 200
            streams.append(Events(f"{root}{base}/api/feed?after={before if name == names[37] else 10**6}"))
        time.sleep(1.0)  # every feed probed its head; the shared listener connected
        held = connections()
        probes_before, own_before = len(together), len(own_probes)
        Cli(db_url).run("--campaign", names[37], "roll", "3D6", "--dice", "1,2,3")
        data, ident, _at = streams[37].entry(timeout=10)
        assert (data["seq"], ident) == (before + 1, before + 1)
        assert all(item[0] != "entry" for stream in streams[:37] for item in list(stream.queue.queue))
        assert together[-1] == 50 and len(together) > probes_before  # every open campaign in one read
        rolled_in = set(own_probes[own_before:])
        assert len(rolled_in) <= 1, rolled_in  # only the rolled campaign's table state reads its own head
        held = max(held, connections())
        for stream in streams:
            stream.closed = True
    assert 2 <= held <= 16, held  # at least the LISTEN connection and one pooled; never one per campaign


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Second Table", "second-table"),
        ("霧の館", "霧の館"),
        ("ｆｏｏ＿ｂａｒ", "foo-bar"),
        ("  Foo -- Bar!  ", "foo-bar"),
        ("第２話：霧", "第2話-霧"),
        ("!!!", "campaign-7"),
    ],
)
def test_a_campaigns_slug(name, slug):
    from campaign.web.multi import slug_of

    assert slug_of(name, 7) == slug


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_served_alone_a_page_names_no_base_and_its_links_are_as_before(db_url):
    from starlette.testclient import TestClient

    from campaign.web.app import create_app

    two_campaigns(db_url)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = create_app(db_url, A, hosts=("testserver",))
    page = TestClient(app).get("/history")
    app.app.state.db.close()
    assert page.status_code == 200
    assert "campaign-base" not in page.text and "/c/" not in page.text
    assert '<a class="brand" href="/">霧の館</a>' in page.text and 'data-feed="/api/feed?after=' in page.text
