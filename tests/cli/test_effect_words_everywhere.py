"""One effect, one set of words: `fright`, `char show`, `char timeline`, `history show` and
the web page read a trait's category and a condition's name and length alike, in both
languages, because all of them take the words from campaign.effect_words and the catalog.

Also: a campaign written before fright conditions were recorded as codes only
(tests/data/before_codes_only.jsonl, exported by the code of that time: its condition ops
hold label_ja, duration_ja, recovery_en ...) replays, verifies and reads as it did; a
translation fixed in the catalog reaches its entries as well as new ones; and a new kind
of lasting disadvantage is a seed entry, a vocabulary line and a catalog entry.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from campaign import i18n
from tests.cli.conftest import Cli

BEFORE = Path(__file__).resolve().parents[1] / "data" / "before_codes_only.jsonl"
# Entry 39 with --choice 1: a coma (HT roll every hour) and a -30 CP mental disadvantage.
ENTRY_39 = ["fright", "鈴音", "--mod", "-30", "--choice", "1", "--dice", "6,6,5,1,1,1"]
WORDS = {
    "en": ("mental disadvantage", "coma", "until recovered (HT roll every hour)"),
    "ja": ("精神的特徴", "昏睡", "回復するまで (毎時間の生命力判定)"),
}


def _web_page(db: str, path: str) -> str:
    from tests.web.conftest import client_for

    page = client_for(db).get(path)
    assert page.status_code == 200
    return page.text


def _surfaces(cli: Cli, seq: int, lang: str, fright_out: str) -> dict[str, str]:
    return {
        "fright": fright_out,
        "char show": cli.run("--lang", lang, "char", "show", "鈴音").stdout,
        "char timeline": cli.run("--lang", lang, "char", "timeline", "鈴音", "--csv").stdout,  # unfolded
        "history show": cli.run("--lang", lang, "history", "show", str(seq)).stdout,
    }


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_fright_char_show_timeline_history_and_the_web_say_the_same_words(sqlite_gurps, monkeypatch, lang):
    pytest.importorskip("starlette")
    out = sqlite_gurps.run("--lang", lang, *ENTRY_39).stdout
    seq = int(out.split()[0].removeprefix("#"))  # the check's entry heads the output
    trait = f"未命名の精神的特徴 (#{seq})"
    category, condition, length = WORDS[lang]
    flat = {name: " ".join(text.split()) for name, text in _surfaces(sqlite_gurps, seq, lang, out).items()}
    monkeypatch.setenv("CAMPAIGN_LANG", lang)
    flat["web"] = " ".join(_web_page(sqlite_gurps.db, "/characters/鈴音").split())
    gained = {
        "en": f"鈴音: gained {category} '{trait}' (-30 CP, no points, not counted toward the limit)",
        "ja": f"鈴音: 新しい{category} '{trait}' (-30 CP, 上限に数えない) を得た",
    }[lang]
    stated = (
        f"鈴音: {condition} {length}" if lang == "ja" else f"鈴音: {condition} until recovered (HT roll every hour)"
    )
    assert gained in flat["fright"] and gained in flat["history show"]  # the one sentence, twice
    assert stated in flat["fright"] and stated in flat["history show"]
    assert f"{trait} [{category}]" in flat["char show"]
    assert f"{condition} {length}" in flat["char show"]
    assert f"+{condition} ({length})" in flat["char timeline"]
    assert f'<span class="category">{category}</span>' in flat["web"]
    assert f'<span class="name">{condition}</span> <span class="duration">{length}</span>' in flat["web"]
    other = WORDS["ja" if lang == "en" else "en"]
    for name, text in flat.items():  # one language per output (the placeholder is a name, not words)
        if name == "char timeline":
            continue  # --csv keeps the data columns (codes, the English length) beside the words
        words = text.replace(trait, "")
        assert other[0] not in words and other[2] not in words, name


def test_a_campaign_written_before_replays_verifies_and_reads_as_it_did(cli: Cli):
    cli.run("import", str(BEFORE))
    assert cli.json("history", "verify")["ok"]
    records = [json.loads(line) for line in BEFORE.read_text(encoding="utf-8").splitlines()]
    ops = [op for r in records if r["type"] == "entry" for op in json.loads(r["record"]).get("ops") or []]
    coma = next(op for op in ops if op["op"] == "condition_added" and op["condition"] == "coma")
    assert coma["detail"]["label_ja"] == "昏睡" and coma["duration"] == "until recovered (HT roll every hour)"
    english = cli.run("char", "show", "鈴音").stdout
    japanese = cli.run("--lang", "ja", "char", "show", "鈴音").stdout
    for line in ("condition  stunned 4 turns", "condition  coma until recovered (HT roll every hour)"):
        assert line in english
    for line in ("状態異常    朦朧 4ターン", "状態異常    昏睡 回復するまで (毎時間の生命力判定)"):
        assert line in japanese
    [shown] = [c for c in cli.json("char", "show", "鈴音")["conditions"] if c["name"] == "coma"]
    assert (shown["duration"], shown["detail"]) == (coma["duration"], coma["detail"])  # --json as recorded
    story = " ".join(cli.run("--lang", "ja", "history", "show", "14").stdout.split())  # Rich folds lines
    assert "鈴音: 新しい強い恐怖症 '未命名の強い恐怖症 (#14)' (-30 CP, 上限に数えない) を得た" in story


def test_a_translation_fixed_in_the_catalog_reaches_old_and_new_entries(cli: Cli, monkeypatch):
    cli.run("import", str(BEFORE))
    cli.run("fright", "刀矢", "--mod", "-1", "--dice", "6,6,5,1,1,3,3")  # entry 10: a new stun, codes only
    catalog = i18n.translations("ja")._catalog  # type: ignore[attr-defined]
    monkeypatch.setitem(catalog, "stunned", "朦朧状態")
    japanese = cli.run("--lang", "ja", "char", "show", "鈴音").stdout
    assert "朦朧状態 4ターン" in japanese  # the old entry's condition, by its code
    assert "朦朧状態" in cli.run("--lang", "ja", "char", "show", "刀矢").stdout
    assert "鈴音: 朦朧状態 4ターン" in " ".join(cli.run("--lang", "ja", "history", "show", "6").stdout.split())


def test_a_new_lasting_disadvantage_is_a_seed_entry_a_vocabulary_line_and_a_catalog_entry(
    sqlite_gurps, monkeypatch, tmp_path
):
    """A scratch copy of the seeds gives 'cursed' on entry 13; one line names it in the
    vocabulary, one entry of the catalog in Japanese; every surface then shows it."""
    pytest.importorskip("starlette")
    from campaign import seeds
    from campaign.core import effects_vocabulary

    scratch = tmp_path / "seeds"
    shutil.copytree(seeds.default_seed_dir(), scratch)
    fear = scratch / "fear.toml"
    text = fear.read_text(encoding="utf-8")
    quirk = '{ kind = "trait", category = "quirk", cp = -1 }'
    assert text.count(quirk) == 2
    fear.write_text(text.replace(quirk, '{ kind = "trait", category = "cursed", cp = -5 }', 1), encoding="utf-8")
    monkeypatch.setattr(seeds, "default_seed_dir", lambda: scratch)
    seeds._default_tables.cache_clear()
    monkeypatch.setitem(effects_vocabulary.TRAIT_CATEGORY_WORDS, "cursed", "curse")  # the vocabulary line
    monkeypatch.setitem(i18n.translations("ja")._catalog, "curse", "呪い")  # type: ignore[attr-defined]
    try:
        english = sqlite_gurps.run("fright", "鈴音", "--mod", "-4", "--dice", "6,6,5,1,1,1").stdout  # entry 13
        seq = int(english.split()[0].removeprefix("#"))
        trait = f"未命名の呪い (#{seq})"
        assert f"鈴音: gained curse '{trait}' (-5 CP" in english
        result = sqlite_gurps.json("history", "show", str(seq))
        assert result["detail"]["effects"][0]["category"] == "cursed"  # --json: the code
        for lang, word in (("en", "curse"), ("ja", "呪い")):
            assert f"{trait} [{word}]" in sqlite_gurps.run("--lang", lang, "char", "show", "鈴音").stdout
            story = " ".join(sqlite_gurps.run("--lang", lang, "history", "show", str(seq)).stdout.split())
            assert (f"gained {word} '{trait}'" if lang == "en" else f"新しい{word} '{trait}'") in story
            monkeypatch.setenv("CAMPAIGN_LANG", lang)
            assert f'<span class="category">{word}</span>' in _web_page(sqlite_gurps.db, "/characters/鈴音")
    finally:
        seeds._default_tables.cache_clear()


BEFORE_GM = Path(__file__).resolve().parents[1] / "data" / "before_gm_condition_codes.jsonl"
# tests/data/before_gm_condition_codes.jsonl, exported by the code before `condition add`
# and the follow-up penalties recorded codes only: `condition add 鈴音 poisoned --for 6h
# --then-penalty -2 --then-for 2h`, `stun --for 1h`, `毒`, `time advance 7h`, `panic
# --then-penalty -1 --then-for 1day` and its clear. GM_STEPS does the same on a new campaign.
GM_STEPS = [
    ["condition", "add", "鈴音", "poisoned", "--for", "6h", "--then-penalty", "-2", "--then-for", "2h"],
    ["condition", "add", "鈴音", "stun", "--for", "1h"],
    ["condition", "add", "鈴音", "毒"],
    ["time", "advance", "7h"],
    ["condition", "add", "鈴音", "panic", "--then-penalty", "-1", "--then-for", "1day"],
    ["condition", "clear", "鈴音", "panic"],
]
GM_SHOWN = {
    "en": (
        "condition  毒",
        "condition  recovering 2 hours until day 1 08:00",
        "condition  recovering 1 day until day 2 07:00",
    ),
    "ja": (
        "状態異常    毒",
        "状態異常    回復後の不調 2時間 1日目 08:00 まで",
        "状態異常    回復後の不調 1日 2日目 07:00 まで",
    ),
}


def _gm_campaign(cli: Cli) -> Cli:
    cli.run("init", "新しい卓", "--ruleset", "gurps3-ja")
    cli.run("player", "add", "Aki")
    cli.run(
        "char",
        "add",
        "鈴音",
        "--player",
        "Aki",
        "--stat",
        "IQ=11",
        "--stat",
        "HT=11",
        "--stat",
        "Will=10",
        "--cp",
        "100",
    )
    for step in GM_STEPS:
        cli.run(*step)
    return cli


def test_gm_conditions_written_before_replay_verify_and_read_as_new_ones_do(cli: Cli, tmp_path):
    """Old `condition add` entries kept label_ja and duration_ja in their ops; new ones keep
    the length in seconds. Both read alike on every surface, in both languages."""
    cli.run("import", str(BEFORE_GM))
    assert cli.json("history", "verify")["ok"]
    new = _gm_campaign(Cli(str(tmp_path / "new.db")))
    ops = {
        seq: new.json("history", "show", str(seq))["ops"] for seq in (4, 5, 9)
    }  # the GM's timed poison, the stun, the follow-up: codes and numbers only
    assert ops[4][0]["detail"] == {
        "after_duration": 7200,
        "after_penalty": -2,
        "after_unit": "second",
        "source": "gm",
        "span": [[6, "hour"]],
    }
    assert ops[4][0]["duration"] is None and ops[4][0]["length"] == 21600
    assert ops[5][0]["detail"] == {"source": "gm", "span": [[1, "hour"]]}
    assert ops[9][1]["detail"] == {"follows": "panic", "follows_origin": "8.1", "penalty": -1, "seconds": 86400}
    for lang in ("en", "ja"):
        for campaign in (cli, new):
            shown = campaign.run("--lang", lang, "char", "show", "鈴音").stdout
            for line in GM_SHOWN[lang]:
                assert line in shown, (lang, line)
        for command in (["condition", "list"], ["char", "timeline", "鈴音"]):
            old_text = cli.run("--lang", lang, *command).stdout
            new_text = new.run("--lang", lang, *command).stdout
            if command[0] == "char":  # the entries' times differ; the changes read alike
                old_text, new_text = (
                    " ".join(line.split("│")[-2] for line in t.splitlines() if "│" in line)
                    for t in (old_text, new_text)
                )
            assert old_text == new_text, (lang, command)
    old_shown = cli.json("history", "show", "9")
    new_shown = new.json("history", "show", "9")
    follow_old = old_shown.get("detail_shown", old_shown["detail"])["follow_ups"][0]
    follow_new = new_shown["detail_shown"]["follow_ups"][0]
    assert follow_old["detail"]["summary_ja"] == follow_new["detail"]["summary_ja"] == "パニックから回復後 1日 全判定-1"
    assert follow_new["detail"]["summary_en"] == "-1 to every roll for 1 day after panic"
    assert (
        follow_old["until"] == follow_new["until"] == {"clock": 111600, "text": "day 2 07:00", "text_ja": "2日目 07:00"}
    )


# `condition add 鈴音 stun --for 6h`, then a GM's condition with a penalty after it, cleared.
GM_WORDS = {
    "en": {
        "condition": "stunned",
        "length": "6 hours",
        "until": "day 1 06:00",
        "follow": "-1 to every roll for 1 day after panic (until day 2 00:00)",
        "recovering": "recovering",
        "day": "1 day",
    },
    "ja": {
        "condition": "朦朧",
        "length": "6時間",
        "until": "1日目 06:00",
        "follow": "パニックから回復後 1日 全判定-1 (2日目 00:00 まで)",
        "recovering": "回復後の不調",
        "day": "1日",
    },
}


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_condition_add_and_its_follow_up_read_alike_everywhere(sqlite_gurps, monkeypatch, lang):
    """`condition add`, `condition clear`, `char show`, `char timeline`, `history show` and
    the character page say the same words for a condition the GM put on and for the
    penalty after it; `--json` keeps the codes."""
    pytest.importorskip("starlette")
    cli, w = sqlite_gurps, GM_WORDS[lang]
    added = cli.run("--lang", lang, "condition", "add", "鈴音", "stun", "--for", "6h").stdout
    seq = int(added.rsplit("#", 1)[1].rstrip(")\n"))
    begun = f"鈴音: {w['condition']} {w['length']} " + (f"until {w['until']}" if lang == "en" else f"{w['until']} まで")
    assert added.startswith(begun)
    cli.run("condition", "add", "鈴音", "panic", "--then-penalty", "-1", "--then-for", "1day")
    cleared = cli.run("--lang", lang, "condition", "clear", "鈴音", "panic").stdout
    assert f"鈴音: {w['follow']}" in cleared.splitlines()
    surfaces = {
        "history show (add)": cli.run("--lang", lang, "history", "show", str(seq)).stdout,
        "history show (clear)": cli.run("--lang", lang, "history", "show", str(seq + 2)).stdout,
        "char show": cli.run("--lang", lang, "char", "show", "鈴音").stdout,
        "char timeline": cli.run("--lang", lang, "char", "timeline", "鈴音", "--csv").stdout,
    }
    monkeypatch.setenv("CAMPAIGN_LANG", lang)
    surfaces["web"] = _web_page(cli.db, "/characters/鈴音")
    flat = {name: " ".join(text.split()) for name, text in surfaces.items()}
    assert begun in flat["history show (add)"]
    assert f"鈴音: {w['follow']}" in flat["history show (clear)"]
    assert f"{w['condition']} {w['length']}" in flat["char show"]
    assert f"{w['recovering']} {w['day']}" in flat["char show"]
    assert f"+{w['condition']} ({w['length']})" in flat["char timeline"]
    assert f'<span class="name">{w["condition"]}</span> <span class="duration">{w["length"]}</span>' in flat["web"]
    assert f'<span class="name">{w["recovering"]}</span>' in flat["web"]
    other = GM_WORDS["en" if lang == "ja" else "ja"]
    for name, text in flat.items():  # one language per output
        if name == "char timeline":
            continue  # --csv keeps the data columns (codes, the English length) beside the words
        assert other["condition"] not in text and other["follow"] not in text, name
    record = cli.json("history", "show", str(seq))
    assert record["ops"][0]["detail"] == {"source": "gm", "span": [[6, "hour"]]}  # codes, no words
    assert record["detail"]["condition"]["name"] == "stun" and "label_ja" not in record["detail"]["condition"]
    assert record["detail_shown"]["condition"]["label_ja"] == "朦朧"  # the words `--json` has always given
