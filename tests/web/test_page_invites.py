"""Seats from the page over real HTTP (SQLite and PostgreSQL): the GM makes, lists and
revokes invites as `campaign invite` does, each link whole with its QR code; a seated
player makes a one-time device link that signs a second device into the same seat."""

from __future__ import annotations

import warnings
from datetime import timedelta
from urllib.parse import unquote

import pytest

from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_table_server import head, table  # noqa: F401 (fixtures)

CODE_CHARS = 43  # token_urlsafe(32)


def made_link(answer, base: str) -> str:
    """The link of a 201 answer, checked whole: on the players' address, with its QR code."""
    assert answer.status_code == 201, answer.text
    made = answer.json()
    assert made["url"].startswith(base + "/join/") and len(made["url"]) == len(base + "/join/") + CODE_CHARS
    assert made["join_path"] == made["url"].removeprefix(base)
    assert made["qr"].startswith("data:image/svg+xml") and "<svg" in unquote(made["qr"])
    return made["join_path"]


def test_the_gm_makes_lists_and_revokes_invites_from_the_page(table):
    cli, base, _, browser = table
    gm = browser("GM", "--gm")
    before = head(cli)
    path = made_link(gm.post("/api/invites", {"player": "Aki", "expires": "2day"}), base)
    listed = gm.http.get("/api/invites").json()
    assert [(r["player"], r["gm"], r["state"]) for r in listed["invites"]] == [
        ("GM", True, "used"),
        ("Aki", False, "pending"),
    ]
    assert cli.json("invite", "list")["invites"][1]["expires"] == listed["invites"][1]["expires"]
    aki = browser()
    assert aki.join(path).status_code == 303 and aki.http.get("/api/session").json()["player"] == "Aki"
    helper = made_link(gm.post("/api/invites", {"player": "副GM", "gm": True}), base)
    assert [(r["player"], r["gm"], r["state"]) for r in cli.json("invite", "list")["invites"]][-1] == (
        "副GM",
        True,
        "pending",
    )
    revoked = gm.post("/api/invites/revoke", {"player": "Aki"})
    assert revoked.status_code == 200 and revoked.json() == {"player": "Aki", "invites": 0, "sessions": 1}
    assert aki.http.get("/api/session").status_code == 401
    assert gm.post("/api/invites/revoke", {"player": "副GM"}).json()["invites"] == 1
    assert browser().http.get(helper).status_code == 410
    assert head(cli) == before  # seats are no ledger entries


def test_an_invite_link_is_on_the_public_address_when_one_is_set(table):
    cli, _, _, browser = table
    gm = browser("GM", "--gm")
    cli.run("settings", "public_url=https://table.example/kyoto")
    made_link(gm.post("/api/invites", {"player": "Aki"}), "https://table.example/kyoto")


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"player": "誰か"}, 404, "誰か"),
        ({"player": ""}, 400, "player: text of 1 to 200"),
        ({"player": "A" * 201}, 400, "player: text of 1 to 200"),
        ({"player": "Aki", "expires": "100day"}, 400, "--expires must be between"),
        ({"player": "Aki", "expires": "3D6"}, 400, "expires"),
        ({"player": "Aki", "gm": "yes"}, 400, "gm: true or false"),
        ({"player": "Aki", "seat": 1}, 400, "seat"),
    ],
)
def test_a_bad_invite_is_refused_in_one_line_and_none_is_made(table, body, status, words):
    cli, _, _, browser = table
    gm = browser("GM", "--gm")
    answer = gm.post("/api/invites", body)
    assert answer.status_code == status, answer.text
    assert words in answer.json()["error"] and "\n" not in answer.json()["error"]
    assert len(cli.json("invite", "list")["invites"]) == 1  # the GM's own


def test_players_are_refused_invites_in_their_language(table, monkeypatch):
    cli, _, _, browser = table
    monkeypatch.delenv("CAMPAIGN_LANG")  # the page's language: the browser's
    aki = browser("Aki")
    for path, body in [("/api/invites", {"player": "Ren"}), ("/api/invites/revoke", {"player": "Ren"})]:
        denied = aki.http.post(
            path,
            json={**body, "idempotency_key": "k-denied-01"},
            headers={"origin": aki.base, "x-csrf-token": aki.csrf or "", "accept-language": "ja"},
        )
        assert denied.status_code == 403 and denied.json() == {"error": "GMだけができる操作です", "code": "gm_only"}
    english = aki.http.get("/api/invites", headers={"accept-language": "en"})
    assert english.status_code == 403 and english.json()["code"] == "gm_only"
    assert browser().http.get("/api/invites").status_code == 401
    assert len(cli.json("invite", "list")["invites"]) == 1


def test_a_device_link_signs_a_second_device_into_the_same_seat_once(table):
    cli, base, faces, browser = table
    aki = browser("Aki")
    path = made_link(aki.post("/api/device-link", {}), base)
    made = cli.json("invite", "list")["invites"][-1]
    assert (made["player"], made["gm"], made["state"]) == ("Aki", False, "pending")
    phone = browser()
    assert phone.join(path).status_code == 303
    assert phone.http.get("/api/session").json()["player"] == "Aki"
    faces[:] = [1, 2, 3]
    rolled = phone.post("/api/rolls", {"command": "3D6<=12 回避", "character": "鈴音"})
    assert rolled.status_code == 201 and rolled.json()["actor"] == "Aki"
    # used twice: refused, no session
    third = browser()
    assert third.http.get(path).status_code == 410
    again = third.http.post(path, data={"confirm": "1"}, headers={"origin": base})
    assert again.status_code == 410 and "set-cookie" not in again.headers
    assert [s["player"] for s in cli.json("invite", "list")["sessions"]] == ["Aki", "Aki"]


def test_a_device_link_expires_in_minutes(table, monkeypatch):
    _, base, _, browser = table
    aki = browser("Aki")
    path = made_link(aki.post("/api/device-link", {}), base)
    import campaign.services.table.invites as invites

    real_now = invites._now
    monkeypatch.setattr(invites, "_now", lambda: real_now() + timedelta(minutes=11))
    late = browser()
    assert late.http.get(path).status_code == 410
    refused = late.http.post(path, data={"confirm": "1"}, headers={"origin": base})
    assert refused.status_code == 410 and "has expired" in refused.text and "set-cookie" not in refused.headers


def test_revoking_the_player_ends_an_unused_device_link(table):
    cli, base, _, browser = table
    aki = browser("Aki")
    path = made_link(aki.post("/api/device-link", {}), base)
    assert cli.json("invite", "revoke", "Aki") == {"player": "Aki", "invites": 1, "sessions": 1}
    phone = browser()
    assert phone.http.get(path).status_code == 410
    assert phone.http.post(path, data={"confirm": "1"}, headers={"origin": base}).status_code == 410
    assert aki.post("/api/device-link", {}).status_code == 401  # the seat is gone too


def test_a_spectator_cannot_make_a_device_link_and_a_link_opens_no_other_campaign(table):
    cli, base, _, browser = table
    spectator = browser()
    refused = spectator.http.post(
        "/api/device-link", json={}, headers={"origin": base, "content-type": "application/json"}
    )
    assert refused.status_code == 401 and refused.json()["code"] == "no_session"
    assert len(cli.json("invite", "list")["invites"]) == 0
    path = made_link(browser("Aki").post("/api/device-link", {}), base)
    cli.run("init", "別の卓")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        from campaign.web.app import create_app

        other = TestClient(create_app(cli.db, "別の卓", hosts=("testserver",)), follow_redirects=False)
    with other:
        assert other.get(path).status_code == 404
        taken = other.post(path, data={"confirm": "1"}, headers={"origin": "http://testserver"})
        assert taken.status_code == 404 and "set-cookie" not in taken.headers
    assert [r["state"] for r in cli.json("--campaign", "テスト卓", "invite", "list")["invites"]] == ["used", "pending"]


def test_the_gm_seat_may_add_a_device_with_the_gms_rights(table):
    _, base, _, browser = table
    gm = browser("GM", "--gm")
    laptop = browser()
    assert laptop.join(made_link(gm.post("/api/device-link", {}), base)).status_code == 303
    assert laptop.http.get("/api/session").json() | {"csrf": "", "session": 0} == {
        "player": "GM",
        "gm": True,
        "csrf": "",
        "session": 0,
    }
