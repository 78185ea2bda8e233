"""A commitment whose seed is gone (SQLite and PostgreSQL): an import in the middle of a
fair scenario ends it with a seed_abandon entry and says so, its dice read "unprovable
(seed abandoned)" and never provable, `scenario start` is not locked, `history
abandon-seed` ends one by hand, every refusal names a command that works, and an export
and import round trip carries the abandonment and the derivation's version."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.integration.rawdb import execute
from tests.web.test_fair_dice_server import SHARE_A, SHARE_B, start_fair, table  # noqa: F401 (fixture)


class On(Cli):
    """The CLI on another campaign of the same database (an import `--as-name`)."""

    def __init__(self, cli: Cli, campaign: str) -> None:
        super().__init__(cli.db)
        self.campaign = campaign

    def run(self, *args: str, expect: int | None = 0):
        return super().run("--campaign", self.campaign, *args, expect=expect)


def _fair_roll(browser, share: str) -> dict:
    rolled = browser.post("/api/rolls", {"command": "3D6<=12", "character": "鈴音", "share": share})
    assert rolled.status_code == 201, rolled.text
    return rolled.json()


@pytest.mark.dialect
def test_an_import_mid_scenario_abandons_the_open_seed_and_says_so(table, tmp_path):
    cli, browser = table
    aki = browser("Aki")
    commit = start_fair(cli)
    rolled = _fair_roll(aki, SHARE_A)
    export = tmp_path / "mid.jsonl"
    cli.run("export", str(export))
    said = cli.run("import", str(export), "--as-name", "写し")
    copy = On(cli, "写し")
    abandon_seq = rolled["seq"] + 1
    assert f"abandoned (entry #{abandon_seq})" in said.stdout, said.stdout
    entry = copy.json("history", "show", str(abandon_seq))
    assert (entry["kind"], entry["detail"]) == (
        "seed_abandon",
        {"abandons": commit["seq"], "commitment": commit["commitment"]},
    )
    shown = copy.json("history", "show", str(rolled["seq"]))
    assert (shown["fairness"], shown["fair_version"]) == ("abandoned", 2)
    assert "unprovable (seed abandoned) (fair dice v2)" in copy.run("history", "show", str(rolled["seq"])).stdout
    assert "⟨fair⟩" not in copy.run("history").stdout
    assert [row["source"] for row in copy.json("stats")["sources"]] == ["server"]  # not counted as provable
    report = copy.json("history", "verify")
    assert report["ok"] and (report["fair"]["abandoned"], report["fair"]["checked"]) == (1, 0)
    # the copy is not locked: a scenario ends and a new seed is committed
    copy.run("scenario", "end")
    again = copy.json("scenario", "start", "第二話", "--with", "鈴音", "--fair")
    assert again["seed_commit"]["seq"] == again["seq"] + 1
    # the round trip keeps the abandonment and the version
    second = tmp_path / "copy.jsonl"
    copy.run("export", str(second))
    assert "abandoned (entry #" in cli.run("import", str(second), "--as-name", "写しの写し").stdout  # the new seed
    third = On(cli, "写しの写し")
    assert (third.json("history", "show", str(rolled["seq"]))["fairness"]) == "abandoned"
    assert [e["kind"] for e in third.json("history", "--kind", "seed_abandon")] == ["seed_abandon"] * 2


@pytest.mark.dialect
def test_abandon_seed_by_hand_and_refusals_that_name_a_working_command(table):
    cli, browser = table
    aki = browser("Aki")
    commit = start_fair(cli)
    _fair_roll(aki, SHARE_A)
    # the seed is here: abandoning is refused, naming reveal-seed; a player may not
    assert "campaign history reveal-seed" in cli.error("history", "abandon-seed", "--reason", "lost", code=1)
    assert "GM" in cli.error("--as", "Aki", "history", "abandon-seed", "--reason", "lost", code=1)
    assert cli.error("history", "abandon-seed", "--reason", " ", code=2)
    execute(cli.db, "DELETE FROM fair_seeds")  # the seed is gone (a lost laptop)
    for refused in (
        cli.error("history", "reveal-seed", code=1),
        cli.error("scenario", "start", "第二話", "--with", "鈴音", "--fair", code=1),
    ):
        assert "campaign history abandon-seed --reason" in refused, refused
    # fair_dice=on: the start is not locked, it says how to end the open seed
    cli.run("scenario", "end")
    cli.run("settings", "fair_dice=on")
    started = cli.run("scenario", "start", "第二話", "--with", "鈴音")
    assert "campaign history abandon-seed --reason" in started.stderr
    assert cli.json("history", "--kind", "seed_commit", "--limit", "1")[0]["seq"] == commit["seq"]  # no new seed
    done = cli.json("history", "abandon-seed", "--reason", "ノートPCをなくした")
    assert (done["abandons"], done["reason"]) == (commit["seq"], "ノートPCをなくした")
    refused = cli.error("history", "abandon-seed", "--reason", "again", code=1)
    assert refused == "error: no committed seed is open: nothing to abandon"
    cli.run("scenario", "end")
    assert cli.json("scenario", "start", "第三話", "--with", "鈴音")["seed_commit"] is not None
    assert cli.json("history", "verify")["fair"]["abandoned"] == 1


def test_a_dice_after_the_abandonment_of_its_seed_fails_verify(tmp_path):
    """A checker refuses an entry derived from a seed after the entry that abandoned it."""
    from campaign import fair_check, proofcheck

    commit = {"seq": 1, "kind": "seed_commit", "detail": {"commitment": "ab" * 32}}
    abandon = {"seq": 2, "kind": "seed_abandon", "detail": {"abandons": 1, "commitment": "ab" * 32}}
    fair = {"v": 2, "commit": 1, "share": SHARE_B, "from": 0, "draws": [[6, 2]]}
    late = {"seq": 3, "kind": "roll", "expression": "1D6", "dice": [2], "total": 2, "detail": {"fair": fair}}
    for found in (fair_check.check_records([commit, abandon, late]), _proofcheck(proofcheck, [commit, abandon, late])):
        assert (found["ok"], found["seq"]) == (False, 3)
        assert found["problem"] == "entry #3 derives its dice from seed #1, abandoned before it (#2)"
    early = {**late, "seq": 2}
    after = {**abandon, "seq": 3}
    assert fair_check.check_records([commit, early, after])["abandoned"] == 1


def _proofcheck(module, records) -> dict:
    seq, problem = module._fair_problem(records)
    return {"ok": problem is None, "seq": seq, "problem": problem}


def test_the_abandon_entry_is_worded_in_japanese():
    from campaign import proofcheck

    assert proofcheck.KINDS_JA["seed_abandon"] == "シードの放棄"
    assert json.dumps(proofcheck.reason_text("entry #3 derives its dice from seed #1, abandoned before it (#2)", "ja"))


def _rehashed(lines: list[str], seq: int, change) -> list[str]:
    """The export's lines with entry `seq` changed and every hash after it recomputed
    (the footer's head too): a file a careful forger wrote."""
    from campaign.ledger import canonical_json, chain_hash

    out, prev = [], None
    for line in lines:
        item = json.loads(line)
        if item.get("type") == "entry":
            record = json.loads(item["record"])
            if record["seq"] == seq:
                change(record)
            prev = item["prev_hash"] if prev is None else prev
            item.update(record=canonical_json(record), prev_hash=prev)
            item["hash"] = prev = chain_hash(prev, item["record"])
        elif item.get("type") == "footer":
            item["head"] = prev
        out.append(json.dumps(item, ensure_ascii=False))
    return out


@pytest.mark.dialect
def test_import_refuses_what_verify_refuses(gurps, tmp_path):
    """A typed roll whose outcome does not follow from its dice, re-hashed in the file:
    the chain holds, and the import refuses it in the words of `history verify`."""
    seq = gurps.json("roll", "3D6<=12", "--dice", "1,2,3")["seq"]
    export = tmp_path / "campaign.jsonl"
    gurps.run("export", str(export))
    lines = export.read_text(encoding="utf-8").splitlines()
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(_rehashed(lines, seq, lambda r: r.update(outcome="failure"))) + "\n", "utf-8")
    refused = gurps.error("import", str(forged), "--as-name", "写し", code=1)
    assert refused == (
        f"error: fair dice: entry #{seq}: its outcome is failure, its dice [1, 2, 3] give success; nothing imported"
    )
    assert [c["name"] for c in gurps.json("list")] == ["テスト卓"]  # nothing written
    plain = tmp_path / "plain.jsonl"  # the same re-hashing with nothing changed imports
    plain.write_text("\n".join(_rehashed(lines, seq, lambda r: None)) + "\n", "utf-8")
    assert "chain verified" in gurps.run("import", str(plain), "--as-name", "写し").stdout
