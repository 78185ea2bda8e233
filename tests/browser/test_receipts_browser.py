"""The player's receipts in Debian's Chromium (docs/fair-dice.md "Your receipts"): the real
table server, with its dice step replaced the way an attacker would (same writes, chosen
inputs), and the page's own receipts check naming every forged entry.

The server runs in this process (tests.web.table_server.served), so a test swaps one
method of the server's FairDice or the success judgement for one request at a time: the
entries written are exactly what the stock code writes, except for the input chosen."""

from __future__ import annotations

import dataclasses
import json

import pytest

from campaign.core import dice
from campaign.core.fair_dice import face_v2
from campaign.services.fair import seeds as fair_seeds
from tests.browser.test_table_browser import _join
from tests.cli.conftest import Cli, gurps_setup
from tests.web.table_server import Browser, served

pytestmark = pytest.mark.slow

GROUND = "ee" * 32  # the share a server "ground" until the dice came out as it liked


def _roll(page, command: str) -> dict:
    """One roll from the page's roll form; the server's answer."""
    page.fill("#roll-command", command)
    page.select_option("#roll-char", "鈴音")
    with page.expect_response("**/api/rolls") as answer:
        page.click("#roll-form button[type=submit]")
    return answer.value.json()


def _replaced_share(monkeypatch):
    """The server records a share of its own instead of the player's."""
    real = fair_seeds.FairDice.__init__

    def init(self, fallback, share):
        real(self, fallback, GROUND)

    monkeypatch.setattr(fair_seeds.FairDice, "__init__", init)


def _extra_draw(monkeypatch):
    """Dice shown that are not the draws: every die shows 1, the honest draws plus one
    extra are recorded, so the counts differ."""
    real_roll, real_fair = fair_seeds.FairDice.roll, fair_seeds.FairDice.entry_fair

    def roll(self, sides):
        real_roll(self, sides)
        return 1

    def entry_fair(self, dice):
        fair = real_fair(self, [None])  # claims every draw
        if fair is not None:
            fair["draws"] = [*fair["draws"], [6, 4]]
        return fair

    monkeypatch.setattr(fair_seeds.FairDice, "roll", roll)
    monkeypatch.setattr(fair_seeds.FairDice, "entry_fair", entry_fair)


def _changed_die(monkeypatch):
    """Dice that are the recorded draws one for one, but not the derived faces: the first
    die of the request shows another face than the seed gives, recorded as its draw."""
    real = fair_seeds.FairDice.roll

    def roll(self, sides):
        face = real(self, sides)
        if len(self.draws) == 1:
            face = face % sides + 1
            self.draws[0][1] = face
        return face

    monkeypatch.setattr(fair_seeds.FairDice, "roll", roll)


def _several_terms_otherwise(monkeypatch):
    """Honest dice of several terms, with a total one more than they give."""
    real = dice._roll_arithmetic

    def arithmetic(spec, text, source, gurps, comment, sorcery=False):
        honest = real(spec, text, source, gurps, comment, sorcery)
        return dataclasses.replace(honest, total=honest.total + 1)

    monkeypatch.setattr(dice, "_roll_arithmetic", arithmetic)


def _judged_otherwise(monkeypatch):
    """Honest dice, judged as if they had made the opposite: a success recorded as the
    critical failure of an 18, a failure as the critical success of a 3."""
    real = dice.judge_success

    def judge(raw, total, target, **options):
        honest = real(raw, total, target, **options)
        return real(18, 18, target, **options) if honest.succeeded else real(3, 3, target, **options)

    monkeypatch.setattr(dice, "judge_success", judge)


def test_the_receipts_check_names_every_forged_entry(browser, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cli = gurps_setup(Cli(str(tmp_path / "table.db")))
    cli.json("scenario", "start", "第一話", "--with", "鈴音", "--fair")
    with served(cli.db) as base:
        context, aki = _join(browser, base, cli.json("invite", "Aki")["join_path"])
        aki.wait_for_selector("#receipts-check")
        honest = _roll(aki, "3D6<=12")
        assert honest["share"] == honest["entries"][0]["fair"]["share"]
        assert aki.is_hidden("#receipts-warning")
        forged = {}
        for name, attack in [
            ("replaced share", _replaced_share),
            # (a base seq of the server's choice is no attack on v2 dice: no seq goes into them)
            ("extra draw", _extra_draw),
            ("changed die", _changed_die),
            ("judged otherwise", _judged_otherwise),
            ("several terms otherwise", _several_terms_otherwise),
        ]:
            with monkeypatch.context() as patch:
                attack(patch)
                forged[name] = _roll(aki, "2D6+1D6+3>=10" if name == "several terms otherwise" else "3D6<=12")
        # the replaced share is seen at once, from the answer alone
        assert aki.is_visible("#receipts-warning")
        warning = aki.text_content("#receipts-warning")
        assert f"#{forged['replaced share']['seq']}" in warning and "another share" in warning
        # another device rolls in Aki's name: no receipt of this page covers it
        phone = Browser(base)
        phone.join(cli.json("invite", "Aki")["join_path"])
        other = phone.post("/api/rolls", {"command": "2D6", "character": "鈴音", "share": "0f" * 32}).json()
        phone.close()
        receipts = aki.evaluate("fairReceipts.load()")
        assert [r["share"] for r in receipts][0] == honest["share"] and len(receipts) == 6
        assert all(len(r["share"]) == 64 and r["answer"]["entries"] for r in receipts)

        before = aki.evaluate("fairReceipts.checkNow()")  # before the reveal: the answers against the chain
        assert (before["pending"], before["derived"]) == (6, 0)
        seed = cli.json("scenario", "end")["seed_reveal"]["seed"]
        aki.click("#receipts-check")
        aki.wait_for_selector("#receipts-status[data-status='fail']")
        found = aki.evaluate("fairReceipts.checkNow()")
        by_seq: dict[int, list[str]] = {}
        for item in found["problems"]:
            by_seq.setdefault(item["seq"], []).append(item["problem"])
        assert honest["seq"] not in by_seq, by_seq
        replaced = forged["replaced share"]["seq"]
        assert any("the server replaced your share" in p for p in by_seq[replaced]), by_seq
        extra = forged["extra draw"]
        assert extra["dice"] == [1, 1, 1]
        assert any(
            f"entry #{extra['seq']}: its dice 1,1,1 are not the derived draws" in p for p in by_seq[extra["seq"]]
        )
        changed = forged["changed die"]
        fair = changed["entries"][0]["fair"]
        assert changed["dice"] == [face for _, face in fair["draws"]]  # the dice are the recorded draws
        should = face_v2(seed, fair["share"], fair["from"], 6)
        assert by_seq[changed["seq"]] == [
            f"entry #{changed['seq']}: die 1 (d6) shows {changed['dice'][0]}, the seed gives {should}: "
            "the die was changed"
        ]
        several = forged["several terms otherwise"]
        shown = ",".join(map(str, several["dice"]))
        assert by_seq[several["seq"]] == [
            f"entry #{several['seq']}: its dice {shown} make {sum(several['dice']) + 3}, "
            f"not the recorded total {several['total']}"
        ]
        judged = forged["judged otherwise"]
        shown = ",".join(map(str, judged["dice"]))
        assert judged["outcome"] in ("critical_success", "critical_failure")
        assert judged["total"] == sum(judged["dice"])  # the total stays honest: the outcome does not follow
        [problem] = by_seq[judged["seq"]]
        assert problem.startswith(f"entry #{judged['seq']}: its dice {shown} make ") and "not the recorded" in problem
        assert found["uncovered"] == [other["seq"]]
        assert aki.get_attribute("#receipts-uncovered", "data-seqs") == str(other["seq"])
        # the honest roll recomputes, here and in Python
        entry = next(e for e in cli.json("history", "--limit", "20") if e["seq"] == honest["seq"])
        fair = entry["detail"]["fair"]
        assert entry["dice"] == [face_v2(seed, honest["share"], fair["from"] + i, 6) for i in range(3)]
        # the file a player downloads holds every receipt, with the seat
        with aki.expect_download() as saved:
            aki.click("#receipts-download")
        document = json.loads(open(saved.value.path(), encoding="utf-8").read())
        assert (document["format"], document["version"], document["campaign"], document["player"]) == (
            "campaign-receipts",
            1,
            "テスト卓",
            "Aki",
        )
        assert document["ledger"] == "テスト卓"
        assert document["receipts"] == receipts
        context.close()


def test_a_honest_table_holds_and_checks_itself_after_the_reveal(browser, tmp_path, monkeypatch):
    """Honest rolls of every shape the table rolls (a plain sum, a success roll with a dice
    modifier, a fright check with its table and sub-rolls): the receipts hold, checked by
    the page by itself once the seed is revealed, in Japanese on a Japanese page."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cli = gurps_setup(Cli(str(tmp_path / "table.db")))
    cli.json("scenario", "start", "第一話", "--with", "鈴音", "--fair")
    with served(cli.db) as base:
        context, aki = _join(browser, base, cli.json("invite", "Aki")["join_path"])
        aki.wait_for_selector("#receipts-check")
        for command in ("2D6+1", "3D6-2<=12", "3D6<=10"):
            _roll(aki, command)
        call = cli.json("call", "fright", "鈴音", "--mod=-50")  # a failure: the table, clamped to 40, and its sub-rolls
        aki.wait_for_selector(".roll-call")
        with aki.expect_response(f"**/api/calls/{call['call_id']}/roll"):
            aki.click(".roll-call")
        cli.json("scenario", "end")
        monkeypatch.setenv("CAMPAIGN_LANG", "ja")  # the server's pages in Japanese from now on
        aki.reload()  # the page's chain check sees the reveal and checks the receipts by itself
        aki.wait_for_selector("#receipts-status[data-status='ok']")
        found = aki.evaluate("fairReceipts.checkNow()")
        entries = [e for e in cli.json("history", "--limit", "30") if e["actor"] == "Aki" and e["dice"]]
        assert (found["ok"], found["receipts"], found["derived"], found["uncovered"]) == (True, 4, len(entries), [])
        assert len(entries) > 4  # the fright check wrote sub-entries under the same share
        table = next(e for e in entries if e["detail"].get("purpose") == "table")
        assert table["total"] == 40 and sum(table["dice"]) + table["detail"]["margin_added"] > 40
        assert aki.text_content("#receipts-status").startswith("控えは成り立ちます: ロール 4 回")
        assert aki.evaluate("fairCheck.checkChain()")["ok"]
        # the fair mark on each provable roll of the latest rolls, and on nothing else
        marked = aki.eval_on_selector_all("#latest-list li:has(.fair-mark) > a", "links => links.map(a => a.text)")
        shown = aki.eval_on_selector_all("#latest-list li > a", "links => links.map(a => a.text)")
        provable = {f"#{e['seq']}" for e in entries}
        assert marked == [seq for seq in shown if seq in provable] and len(marked) >= 3, (marked, shown)
        assert aki.text_content("#latest-list .fair-mark") == " （公正証明つき）"
        context.close()


def _page_with_scripts(browser, tmp_path):
    """A file:// page (a secure context: crypto.subtle is there) with the page's checkers."""
    from tests.perf.receipts_page import SCRIPTS, STATIC

    page_file = tmp_path / "checkers.html"
    tags = "".join(f'<script src="{(STATIC / name).as_uri()}"></script>' for name in SCRIPTS)
    page_file.write_text(f"<!doctype html><meta charset=utf-8><title>checkers</title>{tags}", encoding="utf-8")
    page = browser.new_page()
    page.goto(page_file.as_uri())
    return page


CHECK = "([receipts, records, engine]) => fairReceipts.check(receipts, records, 'Aki', engine)"


def test_v2_entries_in_the_chain_check_and_the_receipts_check(browser, tmp_path):
    """v2 records (docs/fair-dice.md, no seq in the message) as the table writes them:
    both checks recompute them, by crypto.subtle and by the bundled sha256.js alike; a die
    too many, a share the server chose, and an abandoned commitment are each told apart."""
    from campaign.fair_check import derive
    from tests.perf.receipts_page import table

    seed, receipts, records, _ = table(4)
    page = _page_with_scripts(browser, tmp_path)
    assert page.evaluate(f"fairCheck.faceV2('{seed}', '{'0' * 64}', 1, 20)") == derive(seed, None, "0" * 64, 1, 20)
    chain = page.evaluate("records => fairCheck.checkRecords(records)", records)
    assert (chain["ok"], chain["checked"], chain["abandoned"]) == (True, 4, 0)
    for engine in ("subtle", "bundled"):
        found = page.evaluate(CHECK, [receipts, records, engine])
        assert (found["ok"], found["derived"], found["v1"], found["problems"]) == (True, 4, 0, []), engine

    extra = json.loads(json.dumps(records))
    extra[2]["dice"].append(1)  # the honest draws, and one die more shown
    chain = page.evaluate("records => fairCheck.checkRecords(records)", extra)
    assert (chain["ok"], chain["seq"]) == (False, 3) and "are not the derived draws" in chain["problem"]
    found = page.evaluate(CHECK, [receipts, extra, "subtle"])
    assert {p["seq"] for p in found["problems"]} == {3}

    chosen = json.loads(json.dumps(records))
    fair = chosen[1]["detail"]["fair"]
    ground = next(
        share
        for share in (f"{n:02x}" * 32 for n in range(200, 256))
        if [derive(seed, None, share, i, 6) for i in range(3)] != chosen[1]["dice"]
    )
    fair["share"] = ground  # the server's share, recorded instead of the player's
    chain = page.evaluate("records => fairCheck.checkRecords(records)", chosen)
    assert (chain["ok"], chain["seq"]) == (False, 2) and "the die was changed" in chain["problem"]
    found = page.evaluate(CHECK, [receipts, chosen, "subtle"])
    assert any("the server replaced your share" in p["problem"] for p in found["problems"] if p["seq"] == 2)

    abandoned = [
        *records[:-1],
        {"seq": 6, "kind": "seed_abandon", "actor": "GM", "dice": None, "detail": {"abandons": 1}},
    ]
    chain = page.evaluate("records => fairCheck.checkRecords(records)", abandoned)
    assert (chain["ok"], chain["checked"], chain["pending"], chain["abandoned"]) == (True, 0, 0, 4)
    found = page.evaluate(CHECK, [receipts, abandoned, "bundled"])
    assert (found["ok"], found["derived"], found["abandoned"]) == (True, 0, 4)
    page.close()


def test_the_pages_judge_is_the_rules_judge(browser, tmp_path):
    """recompute.js's success roll (docs/rules.md "Success roll") against campaign/core/success.py
    for every raw 3d6, dice modifier, target and the sorcery rule."""
    from campaign.core.success import judge_success

    cases = [
        (raw, raw + modifier, target, sorcery)
        for raw in range(3, 19)
        for modifier in range(-3, 4)
        for target in range(-2, 22)
        for sorcery in (False, True)
    ]
    page = _page_with_scripts(browser, tmp_path)
    got = page.evaluate("cases => cases.map(([r, t, g, s]) => fairRecompute.judge(r, t, g, s))", cases)
    assert got == [judge_success(r, t, g, sorcery=s).outcome for r, t, g, s in cases]
    page.close()


def test_the_pages_recompute_judges_the_shared_table_as_the_checkers_do(browser, tmp_path):
    """recompute.js over tests/unit/test_fair_rules_agree.py's table (several terms,
    arithmetic, success rolls, table look-ups, fright checks and their table rolls): every
    record the engine writes follows; each with a result changed (total, outcome, margin,
    a die, a table's raw, row or modifier) fails, as it fails campaign/fair_check.py."""
    import campaign.fair_check as fair_check
    from tests.unit.test_fair_rules_agree import (
        FRIGHT_ROLLS,
        FRIGHTS,
        TABLE,
        TABLE_LOOKUPS,
        TEXT_LOOKUPS,
        _fright,
        _lookup,
        _record,
        _text_lookup,
    )

    groups = [[_record(*row)] for row in TABLE]
    groups += [[_lookup(*row)] for row in TABLE_LOOKUPS]
    groups += [_fright(*row) for row in (*FRIGHTS, *FRIGHT_ROLLS)]
    groups += [_text_lookup(*row) for row in TEXT_LOOKUPS]
    forged: list[list[dict]] = []
    for records in groups:
        record = records[-1]
        changes = [{"total": record["total"] + 1}, {"dice": [*record["dice"], 1]}]
        if "text_roll" in record["detail"]:  # a row's text dice: another total, min or row
            code = record["detail"]["text_roll"]
            changes.append({"detail": {**record["detail"], "entry": [19, 19]}})
            changes.append(
                {
                    "total": code["value"] + 2,
                    "detail": {**record["detail"], "text_roll": {**code, "min": code["value"] + 2}},
                }
            )
        if record["kind"] == "fright" and record["detail"].get("purpose") not in (None, "table"):
            changes.append({"detail": {**record["detail"], "entry": 15}})  # no row of the fright table starts at 15
        if record["kind"] == "roll" and record["outcome"] is not None:
            changes.append({"outcome": "failure" if record["outcome"] != "failure" else "success"})
            changes.append({"margin": (record["margin"] or 0) + 1})
        if "raw" in record["detail"]:
            changes.append({"detail": {**record["detail"], "raw": record["detail"]["raw"] + 1}})
            row = "entry" if record["kind"] == "table" else "range"
            changes.append({"detail": {**record["detail"], row: [41, 41]}})
            added = "modifier" if record["kind"] == "table" else "margin_added"
            if record["kind"] == "fright":  # a margin of failure the check did not give
                bumped = record["detail"][added] + 1
                detail = {**record["detail"], added: bumped, "raw": sum(record["dice"]) + bumped}
                changes.append({"detail": detail, "expression": f"FEAR+{bumped}"})
        for change in changes:
            forged.append([*records[:-1], {**record, **change}])
        if "text_roll" in record["detail"] and len(records[0]["detail"]["text_rolls"]) == 1:
            kept = records[0]["detail"]["text_rolls"][0]  # the look-up's copy shows other faces than the dice
            other = {**kept, "faces": [kept["faces"][0] % 6 + 1, *kept["faces"][1:]], "value": kept["value"] + 1}
            forged.append([{**records[0], "detail": {**records[0]["detail"], "text_rolls": [other]}}, *records[1:]])
        if "effect" in record["detail"]:  # the fright's effect holds another value than the roll sized
            field = "amount" if record["detail"]["purpose"] in ("fatigue", "injury") else "duration"
            effects = [dict(effect) for effect in records[0]["detail"]["effects"]]
            effects[record["detail"]["effect"]][field] += 3
            forged.append([{**records[0], "detail": {**records[0]["detail"], "effects": effects}}, *records[1:]])
    assert all(fair_check.check_records(records)["ok"] for records in groups)
    assert [r[-1] for r in forged if fair_check.check_records(r)["ok"]] == []
    page = _page_with_scripts(browser, tmp_path)
    follows = """groups => groups.map(records => {
        const bySeq = {};
        records.forEach(r => { bySeq[r.seq] = r; });
        return records.map(r => fairRecompute.follows(r, bySeq[r.parent_seq]));
    })"""
    carried = page.evaluate("() => [fairRecompute.rows, fairRecompute.textRolls]")
    assert carried[0] == {table: [high, list(lows)] for table, (high, lows) in fair_check._ROWS.items()}
    assert carried[1] == {
        f"{table} {low}": [list(spec) for spec in specs] for (table, low), specs in fair_check._TEXT_ROLLS.items()
    }
    honest = page.evaluate(follows, groups)
    assert honest == [[""] * len(records) for records in groups]
    assert len(forged) > 150
    for records, found in zip(forged, page.evaluate(follows, forged), strict=True):
        assert any(found), records  # a problem line for some record of the group
        assert found[-1] or records[-1]["kind"] == "fright", records  # the fright's parent may name it
        assert all(line is None or line == "" or line.startswith("entry #") for line in found)
    page.close()


@pytest.mark.parametrize("fair", [True, False], ids=["a fresh init", "init --no-fair"])
def test_the_table_page_marks_a_fresh_campaigns_rolls_fair(browser, tmp_path, monkeypatch, fair):
    """Fair by default: with no --fair anywhere, a roll from the page carries the fair
    mark; a campaign made with --no-fair shows none."""
    from tests.cli.test_fair_by_default import _typed_init

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    cli = Cli(str(tmp_path / "table.db"))
    _typed_init(cli.db, *(() if fair else ("--no-fair",)))
    cli.json("scenario", "start", "第一話", "--with", "鈴音")
    with served(cli.db) as base:
        context, aki = _join(browser, base, cli.json("invite", "Aki")["join_path"])
        aki.wait_for_selector("#receipts-check")
        rolled = _roll(aki, "3D6<=12")
        aki.wait_for_selector(f"#latest-list li:has(a:text-is('#{rolled['seq']}'))")
        marked = aki.eval_on_selector_all("#latest-list li:has(.fair-mark) > a", "links => links.map(a => a.text)")
        assert marked == ([f"#{rolled['seq']}"] if fair else []), marked
        context.close()
