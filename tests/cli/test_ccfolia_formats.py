"""`import-log --ccfolia` end to end, for every export format, shape and identity (docs/sheets.md)."""

from __future__ import annotations

import json

import pytest

from tests.ccfolia_logs import (
    GURPS_SESSION,
    SHAPES_EXPECTED,
    SHAPES_ROLLS,
    SHAPES_SESSION,
    SHAPES_TABLES,
    build,
    build_articles,
    json_log,
    zip_parts,
)

MAP = ("--map", "すずね=鈴音", "--map", "ソウ=刀矢")


def imported(cli) -> list[dict]:
    return [e for e in reversed(cli.json("history", "--all")) if e["source"] == "ccfolia"]


def counts(summary: dict) -> dict:
    return {key: summary[key] for key in SHAPES_EXPECTED}


def write(tmp_path, text: str, name: str = "log.html", encoding: str = "utf-8") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return str(path)


def test_every_shape_of_the_issue(gurps, tmp_path):
    log = write(tmp_path, build(SHAPES_SESSION))
    summary = gurps.json("import-log", log, "--ccfolia", *MAP)
    assert counts(summary) == SHAPES_EXPECTED
    assert summary["secret_recorded"] == 2 and summary["fright_results"] == 1 and summary["fright_applied"] == 0
    assert summary["unmapped_speakers"] == ["(no name)", "GM"]
    entries = imported(gurps)
    rolls = [e for e in entries if e["kind"] == "roll"]
    assert [
        (
            e["character"],
            e["expression"],
            e["dice"],
            e["total"],
            e["outcome"],
            e["margin"],
            bool(e["detail"]["ccfolia"].get("secret")),
        )
        for e in rolls
    ] == [tuple(r) for r in SHAPES_ROLLS]
    tables = [e for e in entries if e["kind"] == "table"]
    assert [(e["character"], e["expression"], e["total"]) for e in tables] == SHAPES_TABLES
    # BCDice's own tables keep BCDice's name and words; the seed's entries are only for the same table
    by_expression = {e["expression"]: e["detail"] for e in tables}
    assert by_expression["YSCRT"]["bcdice_table"] is True and "entry" not in by_expression["YSCRT"]
    assert by_expression["YSCRT"]["ccfolia"]["table_name"] == "妖魔夜行スペシャルクリティカル表"
    assert by_expression["YSCRT"]["ccfolia"]["table_text"] == "ダメージ3倍。"
    assert by_expression["CRT"]["entry"] == [13, 13] and "bcdice_table" not in by_expression["CRT"]
    ysc = next(e for e in tables if e["expression"] == "YSCRT")
    shown = gurps.json("history", "show", str(ysc["seq"]))
    assert shown["detail"]["ccfolia"]["table_text"] == "ダメージ3倍。" and "name" not in shown.get("detail_shown", {})
    faceless = next(e for e in entries if e["expression"] == "3D6-1<=13")
    assert faceless["detail"]["gurps"]["raw"] == 13 and faceless["dice"] is None
    assert "3D6-1<=13" in gurps.run("history", "show", str(faceless["seq"])).stdout
    # a repeat's answers are entries of their own, each with its place
    assert [e["detail"]["ccfolia"].get("repeat") for e in rolls[1:4]] == [[1, 3], [2, 3], [3, 3]]
    assert len({e["detail"]["ccfolia"]["fingerprint"] for e in entries}) == len(entries)
    # what was not recorded, and why: the same list in --json as in --explain
    reasons = {(item["message"], item["reason"]) for item in summary["explain"]}
    assert {
        (1, "chat"),
        (16, "contradictory"),
        (17, "contradictory"),
        (18, "secret"),
        (19, "other_system"),
        (0, "unmapped_speaker"),
    } <= reasons
    again = gurps.run("import-log", log, "--ccfolia", *MAP, "--explain")
    assert "message 18 (ソウ) contradicts itself: 3D6 cannot make 99" in again.stdout
    assert "message 3 (すずね) imported before" in again.stdout
    assert gurps.json("history", "verify")["ok"] is True


def test_imported_gurps_rolls_are_scored_with_their_criticals(gurps, tmp_path):
    gurps.run("import-log", write(tmp_path, build(SHAPES_SESSION)), "--ccfolia", *MAP)
    crit = next(e for e in imported(gurps) if e["outcome"] == "critical_success")
    expected = {
        "rule": "R1",
        "outcome": "critical_success",
        "margin": 8,
        "raw": 4,
        "total": 4,
        "target": 12,
        "faces": [1, 1, 2],
    }
    assert {key: crit["detail"]["gurps"].get(key) for key in expected} == expected
    stats = gurps.json("stats")
    source = next(s for s in stats["sources"] if s["source"] == "ccfolia")
    success = {row["family"]: row for row in source["success_rolls"]}
    # every 3D6[±k]<=N of the log with its dice (the faceless one has none to tally)
    assert (success["3d6"]["rolls"], success["3d6"]["successes"]) == (12, 8)
    failures = [e for e in imported(gurps) if e["outcome"] in ("failure", "critical_failure")]
    assert failures and all(e["margin"] < 0 for e in failures)  # one sign convention, as native entries


@pytest.mark.parametrize("element", ["div", "p"])
def test_article_export_and_its_json_twin_dedupe(gurps, tmp_path, element):
    items = [
        (
            "main",
            "すずね",
            "3d6<=12 回避",
            "(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)",
            "2025-04-12T12:00:01.250Z",
            element,
        ),
        (
            "main",
            "ソウ",
            "x2 2d6",
            "#1\n(2D6) ＞ 5[1,4] ＞ 5\n\n#2\n(2D6) ＞ 7[3,4] ＞ 7",
            "2025-04-12T12:00:05Z",
            element,
        ),
        ("雑談", "ミオ", "", None, "2025-04-12T12:00:06Z", element),
    ]
    summary = gurps.json("import-log", write(tmp_path, build_articles(items)), "--ccfolia", *MAP)
    assert (summary["format"], summary["recorded"], summary["rolls"], summary["chat"]) == ("html-article", 3, 3, 1)
    assert summary["session"] is None  # known by their times
    json_items = [
        ("main", "すずね", "3d6<=12 回避", "(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)", 1744459201250),
        ("main", "ソウ", "x2 2d6", "#1\n(2D6) ＞ 5[1,4] ＞ 5\n\n#2\n(2D6) ＞ 7[3,4] ＞ 7", 1744459205000),
        ("main", "すずね", "3d6<=12 回避", "(3D6<=12) ＞ 11[1,4,6] ＞ 11 ＞ 成功(成功度：1)", 1744459299000),
    ]
    twin = gurps.json("import-log", write(tmp_path, json_log(json_items), "log.json"), "--ccfolia", *MAP)
    # the same two messages (by speaker, text and second) are known; the third, a minute on, is new
    assert (twin["format"], twin["duplicates"], twin["recorded"]) == ("json", 2, 1)


def test_split_zip_export(gurps, tmp_path):
    path = tmp_path / "room.zip"
    zip_parts(path, [build(GURPS_SESSION[:6]), build(GURPS_SESSION[6:])])
    summary = gurps.json("import-log", str(path), "--ccfolia", "--map", "すずね=鈴音")
    whole = gurps.json("import-log", write(tmp_path, build(GURPS_SESSION)), "--ccfolia", "--map", "すずね=鈴音")
    assert (summary["format"], summary["parts"], summary["recorded"]) == ("zip:html-p", 2, 12)
    assert (whole["recorded"], whole["duplicates"]) == (0, 12)  # one log, whether split or whole


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "cp932"])
def test_encodings_through_the_cli(gurps, tmp_path, encoding):
    items = [item for item in GURPS_SESSION if isinstance(item, tuple) and "🎲" not in item[2]][:6]
    summary = gurps.json("import-log", write(tmp_path, build(items), encoding=encoding), "--ccfolia")
    assert summary["recorded"] == 5 and summary["encoding"] == encoding


def test_a_formatters_output_is_refused(gurps, tmp_path):
    formatted = (
        "<html><body>" + "".join(f"<p><span>{n}: すずね</span>「こんにちは」</p>" for n in range(40)) + "</body></html>"
    )
    before = len(gurps.json("history", "--all"))
    message = gurps.error("import-log", write(tmp_path, formatted), "--ccfolia", code=2)
    assert "this is not a ココフォリア export;" in message and "40 paragraphs" in message
    assert len(gurps.json("history", "--all")) == before


def test_sessions_never_collide_and_reimports_add_only_the_new(gurps, tmp_path):
    def session(*rest):
        return [("main", "GM", "d3 (1D3) ＞ 3"), *rest]

    first = session(("main", "GM", "第一話"), ("main", "すずね", "2d6 (2D6) ＞ 7[3,4] ＞ 7"))
    second = session(("main", "GM", "第二話"), ("main", "すずね", "2d6 (2D6) ＞ 7[3,4] ＞ 7"))
    one = gurps.json("import-log", write(tmp_path, build(first), "one.html"), "--ccfolia")
    two = gurps.json("import-log", write(tmp_path, build(second), "two.html"), "--ccfolia")
    assert (one["recorded"], two["recorded"], two["duplicates"]) == (2, 2, 0)
    assert one["session"] != two["session"] and one["session"].startswith("log:")
    # the same log again, and a longer export of it: only what is new
    longer = [*first, ("main", "すずね", "2d6 (2D6) ＞ 7[3,4] ＞ 7"), ("main", "GM", "1d6 (1D6) ＞ 2")]
    again = gurps.json("import-log", write(tmp_path, build(longer), "one-longer.html"), "--ccfolia")
    assert (again["recorded"], again["duplicates"], again["session"]) == (2, 2, one["session"])
    # --session: the GM says which session a log is
    named = gurps.json("import-log", write(tmp_path, build(first), "one.html"), "--ccfolia", "--session", "第三話")
    assert (named["recorded"], named["session"]) == (2, "session:第三話")
    assert gurps.json("import-log", str(tmp_path / "one.html"), "--ccfolia", "--session", "第三話")["recorded"] == 0


def test_a_cut_off_log_records_its_last_message_once_when_complete(gurps, tmp_path):
    items = [("main", "GM", "導入"), ("main", "すずね", "1D100 (1D100) ＞ 24")]
    whole = build(items)
    cut = whole[: whole.index("＞ 24") + 3]  # "1D100 (1D100) ＞ 2": the file ends inside the message
    summary = gurps.json("import-log", write(tmp_path, cut, "cut.html"), "--ccfolia")
    assert (summary["recorded"], summary["incomplete"]) == (0, 1)
    assert summary["explain"][-1]["reason"] == "incomplete"
    complete = gurps.json("import-log", write(tmp_path, whole, "whole.html"), "--ccfolia")
    assert (complete["recorded"], complete["incomplete"]) == (1, 0)
    assert imported(gurps)[0]["total"] == 24
    assert gurps.json("import-log", str(tmp_path / "whole.html"), "--ccfolia")["recorded"] == 0


def test_apply_fright(gurps, tmp_path):
    log = write(tmp_path, build(SHAPES_SESSION[-2:]))
    sheet = gurps.json("char", "show", "刀矢")
    # FEAR+3 = 14 (entry 14: 1D fatigue and 1D turns stunned): the 1D dice come from --dice
    summary = gurps.json("import-log", log, "--ccfolia", *MAP, "--apply-fright", "--dice", "4,2")
    assert (summary["fright_results"], summary["fright_applied"]) == (1, 1)
    [fright] = summary["frights"]
    assert (fright["character"], fright["result"], fright["applied"]) == ("刀矢", 14, True)
    assert fright["check_seq"] == fright["table_seq"] - 1  # the Will roll labelled 恐怖判定, paired
    after = gurps.json("char", "show", "刀矢")
    assert after != sheet
    assert sorted(e["kind"] for e in fright["effects"]) == ["condition", "fatigue"]
    fatigue = next(e for e in fright["effects"] if e["kind"] == "fatigue")
    assert fatigue["amount"] == 4
    shown = gurps.json("history", "show", str(fright["seq"]))
    assert shown["kind"] == "fright" and shown["source"] == "ccfolia"
    assert gurps.json("history", "verify")["ok"] is True
    gurps.run("history", "void", str(fright["seq"]), "--reason", "取り消し", "--yes")
    assert gurps.json("char", "show", "刀矢") == sheet


def test_fright_without_the_flag_is_counted_not_applied(gurps, tmp_path):
    log = write(tmp_path, build([("main", "ソウ", "FEAR+3 恐怖表(14)：...")]))
    result = gurps.run("import-log", log, "--ccfolia", *MAP)
    assert "1 fright results recorded but not applied" in result.stdout
    assert "--dice" in gurps.error("import-log", log, "--ccfolia", "--dice", "1", code=2)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_old_fingerprints_stay_valid(db_url, tmp_path):
    """The records an import before log identities wrote (tests/data/table_prose.json holds
    that code's import of GURPS_SESSION) still verify, and re-importing the log adds only
    what that reader did not record (the revealed secret dice), even with an empty-speaker
    message in front that the old reader skipped."""
    from tests.cli.conftest import Cli
    from tests.data.table_prose import FIXTURE

    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    dump = tmp_path / "old.jsonl"
    dump.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in fixture["export"]), encoding="utf-8"
    )
    cli = Cli(str(tmp_path / "old.db"))
    cli.run("import", str(dump))
    old = [e for e in cli.json("history", "--all") if e["source"] == "ccfolia"]
    assert len(old) == 11 and all("scheme" not in e["detail"]["ccfolia"] for e in old)
    log = [("main", "", "開始"), *GURPS_SESSION]  # the old reader skipped this paragraph (malformed)
    again = cli.json("import-log", write(tmp_path, build(log)), "--ccfolia", "--map", "すずね=鈴音")
    assert (again["duplicates"], again["recorded"]) == (11, 1)
    [new] = [e for e in cli.json("history", "--all") if e["source"] == "ccfolia" and e not in old]
    assert new["detail"]["ccfolia"]["secret"] is True and new["detail"]["ccfolia"]["scheme"] == 2
    assert cli.json("history", "verify")["ok"] is True
    # another session with the same dice messages elsewhere is not taken for the old one (an old
    # entry is matched by its text, N and position: the most that scheme recorded)
    other = [("main", "GM", "別の話"), ("main", "GM", "続き"), *GURPS_SESSION[1:3]]
    assert cli.json("import-log", write(tmp_path, build(other), "other.html"), "--ccfolia")["recorded"] == 2


def test_a_fear_line_alone_adds_a_trait_with_a_placeholder_name(gurps, tmp_path):
    log = write(tmp_path, build([("main", "すずね", "FEAR+8 恐怖表(23)：-10CPの軽い恐怖症を植え付けられる。")]))
    cp = gurps.json("char", "show", "鈴音")["cp_total"]
    dry = gurps.json("import-log", log, "--ccfolia", *MAP, "--apply-fright", "--dry-run")
    assert dry["frights"][0]["why"] == "a dry run applies nothing" and dry["fright_applied"] == 0
    summary = gurps.json("import-log", log, "--ccfolia", *MAP, "--apply-fright")
    [fright] = summary["frights"]
    assert fright["check_seq"] is None and fright["entry"] == [23, 23]
    [trait] = [e for e in fright["effects"] if e["kind"] == "trait"]
    assert trait["placeholder"] is True and trait["name"].endswith(f"(#{fright['seq']})")
    sheet = gurps.json("char", "show", "鈴音")
    assert sheet["cp_total"] == cp + trait["cp"] < cp
    assert trait["name"] in {t["name"] for t in sheet["traits"]}
    human = gurps.run("import-log", log, "--ccfolia", *MAP, "--apply-fright")  # once: the FEAR line is known
    assert "recorded 0 entries" in human.stdout and "fright:" not in human.stdout
    # the applied effects survive an export and an import into a new database
    dump = tmp_path / "dump.jsonl"
    gurps.run("export", str(dump))
    from tests.cli.conftest import Cli

    copy = Cli(str(tmp_path / "copy.db"))
    copy.run("import", str(dump))
    assert copy.json("history", "verify")["ok"] is True
    assert {t["name"] for t in copy.json("char", "show", "鈴音")["traits"]} == {t["name"] for t in sheet["traits"]}


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_an_empty_speaker_is_mappable_and_a_dry_run_explains(gurps, tmp_path):
    log = write(tmp_path, build(SHAPES_SESSION[:2]))
    dry = gurps.run("import-log", log, "--ccfolia", "--map", "(no name)=刀矢", "--dry-run", "--explain")
    assert "刀矢: 3D6<=12 [2,3,4] = 9 success" in dry.stdout
    assert "message 2 ((no name)) chat" in dry.stdout and "would record 1 entries" in dry.stdout
    summary = gurps.json("import-log", log, "--ccfolia", "--map", "(no name)=刀矢")
    assert summary["unmapped_speakers"] == [] and imported(gurps)[0]["character"] == "刀矢"
    assert imported(gurps)[0]["detail"]["ccfolia"]["speaker"] == ""  # the log's own (empty) name, kept
