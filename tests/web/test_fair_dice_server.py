"""Provably fair dice through the table server, SQLite and PostgreSQL: a committed seed
per scenario, dice derived from it and the player's share, the seed revealed at the end,
and `history verify` recomputing every die (docs/fair-dice.md)."""

from __future__ import annotations

import pytest

from campaign.core.fair_dice import face_v2, seed_commitment
from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import Browser, served
from tests.web.test_table_server import head, invite

SHARE_A = "a1" * 32
SHARE_B = "b2" * 32
SHARE_C = "c3" * 32


@pytest.fixture
def table(gurps):
    """The gurps party served with the server's real dice source; (cli, browser)."""
    opened: list[Browser] = []
    with served(gurps.db) as base:

        def browser(player: str, *extra: str) -> Browser:
            opened.append(Browser(base))
            assert opened[-1].join(invite(gurps, player, *extra)).status_code == 303
            return opened[-1]

        yield gurps, browser
        for each in opened:
            each.close()


PINNED_SEED = "71" * 32  # this test's check rolls above 4 with it


def start_fair(cli: Cli) -> dict:
    started = cli.json("scenario", "start", "第一話", "--with", "鈴音", "--with", "刀矢", "--fair")
    commit = started["seed_commit"]
    assert commit["seq"] == started["seq"] + 1 and len(commit["commitment"]) == 64
    shown = cli.json("history", "show", str(commit["seq"]))
    assert shown["kind"] == "seed_commit" and shown["detail"]["commitment"] == commit["commitment"]
    return commit


def end_fair(cli: Cli, commit: dict) -> str:
    ended = cli.json("scenario", "end")
    reveal = ended["seed_reveal"]
    assert reveal["reveals"] == commit["seq"] and seed_commitment(reveal["seed"]) == commit["commitment"]
    assert cli.json("history", "show", str(reveal["seq"]))["kind"] == "seed_reveal"
    return reveal["seed"]


def test_a_players_share_makes_provable_dice_that_verify_recomputes(table):
    cli, browser = table
    aki, ren = browser("Aki"), browser("Ren")
    commit = start_fair(cli)
    first = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": SHARE_A.upper()})
    again = aki.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": SHARE_C})
    other = ren.post("/api/rolls", {"command": "3D6<=12", "character": "刀矢", "share": SHARE_B})
    bare = ren.post("/api/rolls", {"command": "1D20", "character": "刀矢"})
    assert [r.status_code for r in (first, again, other, bare)] == [201] * 4, first.text
    entries = [r.json() for r in (first, again, other, bare)]
    assert [e["fairness"] for e in entries] == ["provable", "provable", "provable", "server"]
    fair = {"v": 2, "commit": commit["seq"], "share": SHARE_A, "from": 0, "draws": [[6, d] for d in entries[0]["dice"]]}
    shown = cli.json("history", "show", str(entries[0]["seq"]))
    assert shown["fairness"] == "provable" and shown["detail"]["fair"] == fair
    # the answer echoes the recorded share and each entry the request wrote, for the receipt
    assert entries[0]["share"] == SHARE_A and entries[0]["entries"] == [
        {
            "seq": entries[0]["seq"],
            "dice": entries[0]["dice"],
            "total": sum(entries[0]["dice"]),
            "outcome": shown["outcome"],
            "fair": fair,
        }
    ]
    # without a share nothing of the player's goes in: the server's own dice, not derived
    assert entries[3]["share"] is None and entries[3]["entries"][0]["fair"] is None
    assert {e["seq"]: e["fairness"] for e in cli.json("history", "--json")}[entries[3]["seq"]] == "server"
    seed = end_fair(cli, commit)
    for entry, share in zip(entries[:3], (SHARE_A, SHARE_C, SHARE_B)):
        assert entry["dice"] == [face_v2(seed, share, i, 6) for i in range(3)]
    report = cli.json("history", "verify")
    assert report["ok"] and report["fair"] == {
        "ok": True,
        "seq": None,
        "problem": None,
        "revealed": 1,
        "checked": 3,
        "pending": 0,
        "abandoned": 0,
        "judged": 4,
        "unlinked": 0,
    }
    assert "3 fair-dice entries recompute from their seeds" in cli.run("history", "verify").stdout
    # honest labels: history marks them, stats keeps them apart and can count only them
    listed = cli.run("history", "--limit", "8").stdout
    assert listed.count("⟨fair⟩") == 3
    shown = cli.run("history", "show", str(entries[0]["seq"])).stdout
    assert "provable" in shown
    counted = {row["source"]: row["dice"] for row in cli.json("stats")["sources"]}
    assert counted["provable"] == 9 and counted["server"] == 1
    assert [row["source"] for row in cli.json("stats", "--fair-only")["sources"]] == ["provable"]


@pytest.mark.dialect  # the primary key of fair_shares refuses a second use on each backend
def test_a_share_used_twice_under_one_seed_is_refused_and_nothing_is_written(table):
    from tests.integration.rawdb import execute

    cli, browser = table
    aki, ren = browser("Aki"), browser("Ren")
    start_fair(cli)
    assert aki.post("/api/rolls", {"command": "3D6", "character": "鈴音", "share": SHARE_A}).status_code == 201
    before = head(cli)
    for player, character, share in ((aki, "鈴音", SHARE_A), (ren, "刀矢", SHARE_A.upper())):
        refused = player.post("/api/rolls", {"command": "3D6<=12", "character": character, "share": share})
        assert refused.status_code == 409, refused.text
        assert "\n" not in refused.json()["error"] and "share" in refused.json()["error"]
    assert head(cli) == before
    # the database itself refuses the row the write path adds, whatever code tries
    with pytest.raises(Exception, match="(?i)unique|primary|duplicate"):
        execute(
            cli.db,
            "INSERT INTO fair_shares (campaign_id, commit_seq, share, seq) "
            "SELECT campaign_id, commit_seq, share, seq + 1 FROM fair_shares",
        )


def test_a_called_fright_check_and_its_table_roll_share_the_requests_inputs(table, monkeypatch):
    """Sub-rolls (the fright table after a failed check) use the request's first seq and
    continue its index sequence, each entry recording its own draws. The seed is pinned:
    a drawn one gives 3 or 4 (a critical success, no table roll) one time in 54."""
    from campaign.core import fair_dice

    monkeypatch.setattr(fair_dice, "new_seed", lambda: PINNED_SEED)
    cli, browser = table
    aki = browser("Aki")
    commit = start_fair(cli)
    call = cli.json("call", "fright", "鈴音", "--mod", "-10")  # Will 1: it fails, the table rolls
    before = head(cli)
    rolled = aki.post(f"/api/calls/{call['call_id']}/roll", {"share": SHARE_A})
    assert rolled.status_code == 201, rolled.text
    assert rolled.json()["fairness"] == "provable"
    entries = [cli.json("history", "show", str(seq)) for seq in range(before + 1, head(cli) + 1)]
    assert len(entries) >= 2, [(e["outcome"], e["dice"], e["total"], e["target"]) for e in entries]
    assert entries[1]["parent_seq"] == entries[0]["seq"]
    fairs = [e["detail"]["fair"] for e in entries]
    assert {f["v"] for f in fairs} == {2} and {f["share"] for f in fairs} == {SHARE_A}
    assert [e["seq"] for e in rolled.json()["entries"]] == [e["seq"] for e in entries]
    assert [e["fair"] for e in rolled.json()["entries"]] == fairs
    starts = [f["from"] for f in fairs]
    assert starts == [sum(len(e["dice"]) for e in entries[:n]) for n in range(len(entries))]
    seed = end_fair(cli, commit)
    for entry, start in zip(entries, starts):
        assert entry["dice"] == [face_v2(seed, SHARE_A, start + i, 6) for i in range(len(entry["dice"]))]
    assert cli.json("history", "verify")["fair"]["checked"] == len(entries)


def test_a_bad_share_is_refused_and_a_secret_roll_is_never_derived(table):
    cli, browser = table
    aki = browser("Aki")
    start_fair(cli)
    before = head(cli)
    for share in ("abc", "zz" * 32, "a" * 63, "a" * 65, "a1" * 16, 12):
        refused = aki.post("/api/rolls", {"command": "3D6", "character": "鈴音", "share": share})
        assert refused.status_code == 400 and "share" in refused.json()["error"], refused.text
        assert "\n" not in refused.json()["error"]
    assert head(cli) == before
    secret = aki.post("/api/rolls", {"command": "S3D6<=12", "character": "鈴音", "share": SHARE_A})
    assert secret.status_code == 201 and secret.json()["fairness"] == "server"
    record = cli.json("history", "show", str(secret.json()["seq"]))
    assert "fair" not in record["detail"] and set(record["detail"]) == {"secret", "via"}


def test_a_reunion_call_tapped_with_a_share_ends_the_scenario_and_reveals_its_seed(table):
    """`scenario end --call`: the player's tap rolls the reunion from the committed seed
    and their share, ends the scenario, and the seed is revealed right after, so the
    reunion's own die is recomputed by `history verify`."""
    cli, browser = table
    aki = browser("Aki")
    commit = start_fair(cli)
    cli.run("missing", "mark", "鈴音")
    call = cli.json("scenario", "end", "--call")
    rolled = aki.post(f"/api/calls/{call['call_id']}/roll", {"share": SHARE_B}, key="r" * 16)
    assert rolled.status_code == 201, rolled.text
    assert head(cli) > rolled.json()["seq"]
    reveal = cli.json("history", "--limit", "1")[0]
    assert reveal["kind"] == "seed_reveal" and reveal["detail"]["reveals"] == commit["seq"]
    seed = reveal["detail"]["seed"]
    assert seed_commitment(seed) == commit["commitment"]
    derived = [e for e in cli.json("history") if (e.get("detail") or {}).get("fair")]
    assert derived and all(e["fairness"] == "provable" and e["detail"]["fair"]["share"] == SHARE_B for e in derived)
    for entry in derived:
        fair = entry["detail"]["fair"]
        assert [f for _, f in fair["draws"]] == [
            face_v2(seed, SHARE_B, fair["from"] + i, s) for i, (s, _) in enumerate(fair["draws"])
        ]
    again = aki.post(f"/api/calls/{call['call_id']}/roll", {"share": SHARE_B}, key="r" * 16)
    assert again.status_code == 200, again.text  # the first roll again: never rolled twice
    assert len(cli.json("history", "--kind", "seed_reveal")) == 1  # and nothing revealed twice
    report = cli.json("history", "verify")
    assert report["ok"] and report["fair"] == {
        "ok": True,
        "seq": None,
        "problem": None,
        "revealed": 1,
        "checked": len(derived),
        "pending": 0,
        "abandoned": 0,
        "judged": 0,
        "unlinked": 0,
    }
