"""`campaign stats` / `luck` end to end, on SQLite and PostgreSQL.

The OS's dice are replaced by a queue of known faces (SystemDice.roll patched), so the
entries are real `rng` entries written by the real commands, with exact face counts.
"""

from __future__ import annotations

import math
import subprocess
import sys
from datetime import date, timedelta

import pytest

from campaign.core.dice_source import SystemDice
from tests.reference_stats import chi_square_tail

REPORT_KEYS = {
    "campaign",
    "filter",
    "entries",
    "shared_entries",
    "sources",
    "tests",
    "note",
    "include_voided",
    "voided_left_out",
}
SOURCE_KEYS = {
    "source",
    "entries",
    "dice",
    "die_sizes",
    "success_rolls",
    "not_scored",
    "unclassified_entries",
    "unclassified_dice",
    "words",
}
DIE_KEYS = {
    "sides",
    "dice",
    "faces",
    "mean",
    "expected_mean",
    "mean_z",
    "mean_p",
    "chi_square",
    "df",
    "p_value",
    "tested",
}
SUCCESS_KEYS = {
    "family",
    "label",
    "rolls",
    "successes",
    "observed_rate",
    "expected_rate",
    "expected_successes",
    "z",
    "p_value",
    "tested",
}


@pytest.fixture
def os_dice(monkeypatch):
    """Queue faces for the OS's dice; the test fails if a command takes more than queued."""
    queue: list[int] = []

    def roll(self, sides: int) -> int:
        face = queue.pop(0)
        assert 1 <= face <= sides, (face, sides)
        return face

    monkeypatch.setattr(SystemDice, "roll", roll)
    return queue


def _source(report: dict, name: str) -> dict:
    return next(source for source in report["sources"] if source["source"] == name)


def _die(source: dict, sides: int) -> dict:
    return next(row for row in source["die_sizes"] if row["sides"] == sides)


# Face counts of the generated ledger's d6 (OS dice), and the 3D6 rolls that use them.
D6_COUNTS = [14, 9, 11, 6, 8, 12]


def _d6_faces() -> list[int]:
    faces = [face for face, count in enumerate(D6_COUNTS, start=1) for _ in range(count)]
    # Interleave so each 3D6 roll mixes faces; the counts are what matter.
    return faces[0::2] + faces[1::2]


def test_known_face_counts_and_reference_p_values(gurps, os_dice):
    faces = _d6_faces()
    assert len(faces) == 60
    os_dice.extend(faces)
    for _ in range(10):
        gurps.run("roll", "3D6", "--char", "鈴音")
    gurps.run("roll", "x10 3D6", "--char", "鈴音")  # a repeat: ten entries, each its body's faces
    os_dice.extend([1] * 40 + [2] * 60)
    gurps.run("roll", "x100 1D2", "--char", "刀矢")
    assert os_dice == []
    report = gurps.json("stats")
    assert set(report) == REPORT_KEYS
    rng = _source(report, "rng")
    # x10 and x100 are 10 and 100 entries
    assert set(rng) == SOURCE_KEYS and (rng["entries"], rng["dice"]) == (120, 160)
    d6 = _die(rng, 6)
    assert set(d6) == DIE_KEYS and d6["faces"] == D6_COUNTS and d6["dice"] == 60
    # Reference computed here by the formula: sum((observed - expected)^2 / expected), chi2 tail.
    statistic = sum((count - 10) ** 2 / 10 for count in D6_COUNTS)
    assert d6["chi_square"] == pytest.approx(statistic)
    assert d6["p_value"] == pytest.approx(chi_square_tail(5, statistic), rel=1e-9)
    mean = sum(face * count for face, count in enumerate(D6_COUNTS, start=1)) / 60
    assert d6["mean"] == pytest.approx(mean) and d6["expected_mean"] == 3.5
    assert d6["mean_z"] == pytest.approx((mean - 3.5) / math.sqrt(35 / 12 / 60))
    # The d2: chi-square 4 with 1 df, whose tail is erfc(sqrt(2)) (a hand-known value, 0.0455...).
    coin = _die(rng, 2)
    assert coin["faces"] == [40, 60] and coin["chi_square"] == pytest.approx(4.0)
    assert coin["p_value"] == pytest.approx(math.erfc(math.sqrt(2)), rel=1e-9)
    assert coin["p_value"] == pytest.approx(0.0455002638963584, rel=1e-9)
    assert report["tests"] == 4 and "4 tests were made" in report["note"]
    assert report["sources"][0]["source"] == "rng"
    assert gurps.json("luck") == report  # the alias


def test_success_rate_against_exact_gurps_odds(gurps, os_dice):
    # 20 rolls of 3D6<=10 (p = 1/2 each, criticals included): 14 successes.
    wins, losses = [2, 3, 4], [5, 5, 6]
    for index in range(20):
        os_dice.extend(wins if index < 14 else losses)
        gurps.run("roll", "3D6<=10", "--char", "鈴音")
    [row] = _source(gurps.json("stats"), "rng")["success_rolls"]
    assert set(row) == SUCCESS_KEYS and row["family"] == "3d6"
    assert (row["rolls"], row["successes"], row["expected_rate"]) == (20, 14, 0.5)
    assert row["z"] == pytest.approx(4 / math.sqrt(5))
    assert row["p_value"] == pytest.approx(math.erfc(4 / math.sqrt(5) / math.sqrt(2)), rel=1e-9)


def test_rng_and_manual_dice_are_never_mixed(gurps, os_dice):
    os_dice.extend([6, 6, 6])
    gurps.run("roll", "3D6", "--char", "鈴音")
    gurps.run("roll", "3D6", "--char", "鈴音", "--dice", "1,1,1")
    gurps.run("fright", "鈴音", "--dice", "6,5,5,6,6,6", "--pick", "暗所恐怖症")  # check and table: manual too
    gurps.run("--seed", "3", "roll", "2D6")
    report = gurps.json("stats")
    assert [s["source"] for s in report["sources"]] == ["rng", "manual", "seeded"]
    assert _die(_source(report, "rng"), 6)["faces"] == [0, 0, 0, 0, 0, 3]
    manual = _source(report, "manual")
    assert _die(manual, 6)["faces"] == [3, 0, 0, 0, 2, 4] and manual["entries"] == 3
    [fright] = manual["success_rolls"]
    assert (fright["family"], fright["rolls"], fright["successes"]) == ("3d6", 1, 0)
    assert _source(report, "seeded")["dice"] == 2


def test_filters(gurps, os_dice):
    gurps.run("roll", "2D6", "--char", "鈴音", "--dice", "1,1")
    gurps.run("roll", "2D6", "--char", "刀矢", "--dice", "2,2")
    gurps.run("scenario", "start", "第一話", "--with", "鈴音")
    gurps.run("roll", "2D6", "--char", "鈴音", "--dice", "3,3")
    gurps.run("roll", "2D6", "--dice", "4,4")

    def d6(*args):
        sources = gurps.json("stats", *args)["sources"]
        return _die(sources[0], 6)["faces"] if sources else None

    assert d6("--char", "鈴音") == [2, 0, 2, 0, 0, 0]
    assert d6("--player", "Ren") == [0, 2, 0, 0, 0, 0]
    assert d6("--scenario", "1") == [0, 0, 2, 2, 0, 0]
    assert d6("--kind", "roll") == [2, 2, 2, 2, 0, 0]
    today = date.today()
    assert d6("--since", (today + timedelta(days=2)).isoformat()) is None
    assert d6("--until", (today - timedelta(days=2)).isoformat()) is None
    assert d6(
        "--since", (today - timedelta(days=2)).isoformat(), "--until", (today + timedelta(days=2)).isoformat()
    ) == [2, 2, 2, 2, 0, 0]
    shown = gurps.json("stats", "--char", "鈴音", "--scenario", "1")
    assert shown["filter"]["character"] == "鈴音" and shown["filter"]["scenario"] == 1
    assert "no character" in gurps.error("stats", "--char", "誰", code=1)
    assert "no player" in gurps.error("stats", "--player", "誰", code=1).lower()
    assert "not a date" in gurps.error("stats", "--since", "yesterday", code=2)


def test_checks_sub_entries_and_shared_rolls(gurps):
    gurps.run("char", "add", "甲", "--npc", "--stat", "体=3", "--new-stat")
    gurps.run("char", "add", "乙", "--npc", "--stat", "体=2", "--new-stat")
    gurps.run("check", "ability", "甲", "体", "--target", "10", "--dice", "6,1")
    gurps.run("check", "coop", "体", "--with", "甲", "--with", "乙", "--target", "12", "--dice", "6,6,1")
    gurps.run("roll", "CRT", "--dice", "3,4,6")  # a table roll: 3d6 from the table's definition
    report = gurps.json("stats")
    manual = _source(report, "manual")
    assert _die(manual, 6)["faces"] == [2, 0, 1, 1, 0, 4]  # the shared cooperative roll counted once
    assert report["shared_entries"] == 1 and manual["unclassified_dice"] == 0
    [checks] = manual["success_rolls"]
    assert (checks["family"], checks["rolls"], checks["successes"]) == ("2d6", 2, 2)
    # 2D6+3>=10: a sum of 7 or more, 21 ways in 36. The cooperative check: stat 3, +1 for a
    # second participant, best two of 3d6 >= 12 - 4 = 8 (6-6 kept is a critical success anyway).
    coop = sum(1 for a in range(1, 7) for b in range(1, 7) for c in range(1, 7) if sum(sorted((a, b, c))[1:]) >= 8)
    assert checks["expected_successes"] == pytest.approx(21 / 36 + coop / 216)


def test_human_output_has_tables_a_histogram_and_the_caveat(gurps, os_dice):
    os_dice.extend(_d6_faces())
    gurps.run("roll", "x20 3D6")
    out = gurps.run("stats").stdout
    assert "dice rolled by the GM's machine: 60 dice in 20 entries" in out
    assert "d6: 60 dice; a fair die gives 10.0 per face" in out
    assert "tests were made" in out and "GMのマシン" not in out
    japanese = gurps.run("--lang", "ja", "stats").stdout
    assert "GMのマシンが振った出目: 20 件の記録に 60 個" in japanese
    assert "  d6: 60 個、公正なダイスなら各面 10.0 回" in japanese
    assert "回の検定をしました" in japanese and "rng" not in japanese
    bars = [line for line in out.splitlines() if "█" in line]
    assert len(bars) == 6 and "14" in bars[0] and "+40.0%" in bars[0]
    assert "2 tests were made" in out and "by chance alone" in out


@pytest.mark.slow  # three fresh interpreters, one importing scipy
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_only_stats_pays_for_scipy(cli, tmp_path):
    db = cli.db
    cli.run("init", "Probe")
    probe = (
        "import sys; from campaign.cli.app import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )

    def modules(*args) -> set[str]:
        result = subprocess.run([sys.executable, "-c", probe, "--db", db, *args], capture_output=True, text=True)
        return set(result.stderr.strip().splitlines()[-1].split())

    assert not {name for name in modules("roll", "3D6") if name.split(".")[0] in ("scipy", "numpy")}
    assert not {name for name in modules("history", "--json") if name.split(".")[0] in ("scipy", "numpy")}
    assert "scipy.special" in modules("stats", "--json")  # the probe can see it when it is loaded
