"""projection.ops_sheet.sheet_changes: what `char timeline` and a void's preview list
for skills, notes and items (identical lines count one by one)."""

from types import SimpleNamespace

from campaign.projection.ops_sheet import sheet_changes


def _row(skills=None, notes=(), items=()):
    return SimpleNamespace(skills=skills or {}, notes=list(notes), items=list(items))


def test_lines_added_at_the_end_and_removed_from_the_middle():
    old = _row({"回避": {"level": 9}}, notes=["左利き"], items=["手帳", "懐中電灯", "手帳"])
    new = _row(
        {"回避": {"level": 10}, "聞き耳": {"level": 13}}, notes=["左利き", "甘党"], items=["懐中電灯", "手帳", "鍵"]
    )
    assert sheet_changes(old, new) == [
        ("skill", "回避", 9, 10, "skill 回避 9 → 10"),
        ("skill", "聞き耳", None, 13, "skill 聞き耳 — → 13"),
        ("note", "甘党", None, "甘党", "note added: 甘党"),
        ("item", "手帳", "手帳", None, "item removed: 手帳"),
        ("item", "鍵", None, "鍵", "item added: 鍵"),
    ]
    assert sheet_changes(new, new) == []
