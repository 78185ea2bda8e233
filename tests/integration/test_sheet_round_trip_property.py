"""Property: a sheet comes back identical through every way out and in (docs/sheets.md).

Generated parties (stats with quarters and derived ones, skills with and without their
stat and difficulty, traits with categories and the disadvantage-limit split, notes and
items, PCs and NPCs) enter a campaign; then each way out and back in, into a fresh
campaign, must give the same sheets and, written out again, the same text:

- the CSV template, as UTF-8 and as Excel writes it on a Japanese Windows (Shift_JIS,
  read by `char import`'s own file reader);
- the JSON template;
- ココフォリア pieces (`char export --ccfolia`, one per line).

SQLite and PostgreSQL (the `db_url` fixture); the example-based tests are
tests/cli/test_sheet_round_trip.py and tests/cli/test_sheets.py.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from campaign.cli.sheet_io import _read as read_sheet_file
from campaign.db.database import Database
from campaign.services.bridges.ccfolia import export_pieces
from campaign.services.campaigns.setup import create_campaign
from campaign.services.characters.roster import add_player, list_characters
from campaign.services.characters.sheet_transfer import export_sheets, import_sheets
from campaign.services.results import as_json

# Every character here is in CP932, so a Shift_JIS file can hold every sheet.
KANJI = "鈴音刀矢凛澪霧館千早灯朔夜桜"
KANA = "あいうえおかきくけこさしすせそアイウエオカキクケコ"
NAME_CHARS = KANJI + KANA
LINE_CHARS = NAME_CHARS + "abcXYZ0123456789 の、。（）"
SKILLS = ("回避", "聞き耳", "刀", "応急手当", "隠れる", "忍び", "登攀", "言いくるめ")
TRAITS = ("好奇心", "戦闘即応", "高所恐怖症", "閉所恐怖症", "直感", "正直", "短気", "鋭敏聴覚")
CATEGORIES = ("advantage", "disadvantage", "phobia", "severe phobia", "quirk", "perk")
ATTRS = ("ST", "DX", "IQ", "HT", "Will", "Per")
PLAIN_STATS = ("ST", "DX", "IQ", "HT", "Will", "Per", "HP", "FP")


def _line(min_size: int = 1) -> st.SearchStrategy[str]:
    return st.text(LINE_CHARS, min_size=min_size, max_size=12).map(str.strip).filter(bool)


@st.composite
def sheet(draw: st.DrawFn, name: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(("pc", "npc")))
    record: dict[str, Any] = {"name": name, "kind": kind, "cp": draw(st.integers(0, 500))}
    if kind == "pc":
        record["player"] = "Aki"
    for stat in draw(st.lists(st.sampled_from(PLAIN_STATS), unique=True, max_size=len(PLAIN_STATS))):
        record[stat] = draw(st.integers(3, 20))
    if draw(st.booleans()):
        record["Speed"] = f"{draw(st.integers(8, 40)) / 4:.2f}"
    if draw(st.booleans()):
        record["Move"] = draw(st.integers(1, 12))
    for skill in draw(st.lists(st.sampled_from(SKILLS), unique=True, max_size=4)):
        level = draw(st.integers(1, 25))
        attr = draw(st.none() | st.sampled_from(ATTRS))
        difficulty = draw(st.none() | st.sampled_from(("E", "A", "H", "VH")))
        shown = str(level)
        if attr is not None or difficulty is not None:
            shown += f" {attr or ''}" + (f"/{difficulty}" if difficulty else "")
        record[f"skill:{skill}"] = shown
    for trait in draw(st.lists(st.sampled_from(TRAITS), unique=True, max_size=4)):
        cp = draw(st.integers(-40, 40).filter(bool))
        category = draw(st.none() | st.sampled_from(CATEGORIES))
        shown = f"{cp}" + (f" {category}" if category else "")
        if cp < 0 and draw(st.booleans()):
            shown += "; uncounted"
        record[f"trait:{trait}"] = shown
    notes = draw(st.lists(_line(), max_size=2))
    items = draw(st.lists(_line(), max_size=2))
    if notes:
        record["note"] = "\n".join(notes)
    if items:
        record["item"] = "\n".join(items)
    return record


@st.composite
def party(draw: st.DrawFn) -> list[dict[str, Any]]:
    names = draw(st.lists(st.text(NAME_CHARS, min_size=1, max_size=5), min_size=1, max_size=3, unique=True))
    return [draw(sheet(name)) for name in names]


def _sheets(db: Database, campaign: str) -> dict[str, Any]:
    """The sheets without what differs between two campaigns (seqs, where traits came from).

    Traits are compared in name order: a CSV of several characters has one column a
    trait, in the order the file first meets them, so a character's traits come back in
    the file's column order (the CSV text itself round-trips exactly)."""
    found = {}
    for view in as_json(list_characters(db, campaign, include_gone=True)):
        view.pop("seq", None)
        traits = [{k: v for k, v in t.items() if k not in ("origin", "source_seq")} for t in view["traits"]]
        view["traits"] = sorted(traits, key=lambda trait: trait["name"])
        found[view["name"]] = view
    return found


def _pieces_text(db: Database, campaign: str) -> str:
    """`char export --all --ccfolia`: one piece a line."""
    return "".join(
        json.dumps(piece, ensure_ascii=False, separators=(",", ":")) + "\n"
        for piece in export_pieces(db, campaign, None)
    )


def _exported(db: Database, campaign: str, fmt: str) -> str:
    return _pieces_text(db, campaign) if fmt == "ccfolia" else export_sheets(db, campaign, fmt)


def test_generated_sheets_round_trip_through_csv_json_and_pieces(db_url, tmp_path):
    db = Database(db_url)
    counter = itertools.count()

    def campaign() -> str:
        name = f"卓{next(counter)}"
        create_campaign(db, name, "gurps3-ja", "GM")
        add_player(db, name, "Aki", "GM")
        return name

    sqlite = db.dialect == "sqlite"

    @settings(
        max_examples=50 if sqlite else 15,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
        phases=[
            Phase.explicit,
            Phase.reuse,
            Phase.generate,
        ],  # a shrink costs minutes: the failing party is printed whole
    )
    @given(party())
    def round_trips(records: list[dict[str, Any]]) -> None:
        first = campaign()
        import_sheets(db, first, "GM", json.dumps(records, ensure_ascii=False), "json")
        sheets = _sheets(db, first)
        assert sorted(sheets) == sorted(record["name"] for record in records)
        for fmt in ("csv", "json", "ccfolia"):
            text = _exported(db, first, fmt)
            readings = [("utf-8", text)]
            if fmt == "csv":  # Excel's 「CSV (コンマ区切り)」: the same file in Shift_JIS
                path = tmp_path / "excel.csv"
                path.write_bytes(text.encode("cp932"))
                readings.append(("shift_jis", read_sheet_file(str(path))))
            for encoding, read in readings:
                other = campaign()
                import_sheets(db, other, "GM", read, fmt)
                assert _sheets(db, other) == sheets, (fmt, encoding)
                assert _exported(db, other, fmt) == text, (fmt, encoding)

    try:
        round_trips()
    finally:
        db.close()
