"""Seed tables: loading, validation, BCDice commands and directive rolls with fixed dice."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from campaign.core.dice_source import ManualDice
from campaign.core.effects_vocabulary import AsEntry, Reroll, RollTable, RollTwice
from campaign.core.table_model import expand_entry
from campaign.core.table_roll import MAX_DEPTH, roll_on_table, table_for_command
from campaign.errors import DataError
from campaign.seeds import default_seed_dir, load_tables

COMMANDS = {"CRT", "FMB", "HCRT", "GFMB", "YSCRT", "YSFMB", "YFMB", "FEAR", "REACT", "MFMB"}
DIRECTIVE_KINDS = (RollTwice, Reroll, RollTable)


@pytest.fixture(scope="module")
def tables():
    return load_tables()


def test_all_ten_tables_load(tables):
    assert set(tables) == COMMANDS
    assert default_seed_dir() == Path(__file__).parents[2] / "seeds"
    for table in tables.values():
        assert table.dice == "3D6"
        assert table.name and table.name_en


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_table_covers_its_range_exactly_once(tables, command):
    table = tables[command]
    expected = {"FEAR": (4, 40), "REACT": (0, 19)}.get(command, (3, 18))  # REACT: 0 or less .. 19 or more
    assert (table.lo, table.hi) == expected
    for value in range(table.lo, table.hi + 1):
        assert sum(entry.covers(value) for entry in table.entries) == 1, value
    for entry in table.entries:
        assert entry.ja.strip() and entry.en.strip()
        assert len(entry.ja) <= 140 and len(entry.en) <= 260  # summaries, not transcriptions


def test_fright_table_shape(tables):
    fear = tables["FEAR"]
    assert len(fear.entries) == 33  # 37 outcomes; 4-5, 6-7, 8-9, 14-15 share an entry
    assert fear.modifiable
    for entry in fear.entries:
        expanded = expand_entry(fear, entry)
        assert expanded, entry.label
        assert not any(isinstance(item.effect, (AsEntry, *DIRECTIVE_KINDS)) for item in expanded)
    refs = {entry.lo: [e.entry for e in entry.effects if isinstance(e, AsEntry)] for entry in fear.entries}
    assert refs[26] == [18, 22] and refs[27] == [18, 23] and refs[40] == [39]
    assert refs[14] == [10] and refs[16] == [10] and refs[38] == [29, 34] and refs[39] == [29, 35]


def test_only_the_expected_entries_carry_directives(tables):
    found = {
        (command, entry.lo, effect.kind)
        for command, table in tables.items()
        for entry in table.entries
        for effect in entry.effects
        if isinstance(effect, DIRECTIVE_KINDS)
    }
    assert found == {
        ("FMB", 3, "reroll"),
        ("FMB", 4, "reroll"),
        ("FMB", 5, "reroll"),
        ("FMB", 6, "reroll"),
        ("FMB", 17, "reroll"),
        ("FMB", 18, "reroll"),
        ("GFMB", 9, "reroll"),
        ("YSFMB", 3, "roll_twice"),
        ("YSFMB", 13, "reroll"),
        ("YSFMB", 17, "roll_table"),
        ("YSFMB", 18, "roll_twice"),
        ("YFMB", 13, "roll_table"),
        ("YFMB", 14, "reroll"),
    }
    assert tables["YSFMB"].entry_for(3).effects == (RollTwice(apply="both"),)
    assert tables["YSFMB"].entry_for(18).effects == (RollTwice(apply="choose"),)
    assert tables["YSFMB"].entry_for(17).effects == (RollTable(table="HCRT"),)


def test_loading_is_cached(tables):
    again = load_tables()
    assert again is not tables  # a fresh dict each time ...
    assert all(again[c] is tables[c] for c in COMMANDS)  # ... of the same parsed tables


# --- commands ---


@pytest.mark.parametrize(
    "text, command, modifier",
    [
        ("CRT", "CRT", 0),
        ("crt", "CRT", 0),
        (" fmb ", "FMB", 0),
        ("HCRT", "HCRT", 0),
        ("gfmb", "GFMB", 0),
        ("YSCRT", "YSCRT", 0),
        ("ysfmb", "YSFMB", 0),
        ("YFMB", "YFMB", 0),
        ("FEAR", "FEAR", 0),
        ("FEAR+5", "FEAR", 5),
        ("fear-2", "FEAR", -2),
    ],
)
def test_table_for_command(text, command, modifier):
    table, mod = table_for_command(text, load_tables())
    assert (table.command, mod) == (command, modifier)


@pytest.mark.parametrize("text", ["CRT+1", "XYZ", "2D6", "", "FEAR+", "FEAR*2", "3D6<=10"])
def test_not_a_table_command(text):
    assert table_for_command(text, load_tables()) is None


# --- rolling ---


def test_plain_roll(tables):
    roll = roll_on_table(tables["CRT"], ManualDice([1, 1, 1]), tables=tables)
    assert (roll.dice, roll.raw, roll.result, roll.entry.lo) == ((1, 1, 1), 3, 3, 3)
    assert roll.sub_rolls == () and roll.directive is None


def test_fear_modifier_is_added_and_clamped(tables):
    fear = tables["FEAR"]
    high = roll_on_table(fear, ManualDice([6, 6, 6]), modifier=30, tables=tables)
    assert (high.raw, high.result, high.entry.lo) == (48, 40, 40)
    low = roll_on_table(fear, ManualDice([1, 1, 1]), modifier=-5, tables=tables)
    assert (low.raw, low.result, low.entry.lo) == (-2, 4, 4)
    plain = roll_on_table(fear, ManualDice([2, 3, 4]), modifier=5, tables=tables)
    assert (plain.raw, plain.result) == (14, 14)
    assert plain.sub_rolls == ()  # the FEAR command only looks up; fright.py applies


def test_roll_twice_apply_both_makes_two_logged_sub_rolls(tables):
    dice = ManualDice([1, 1, 1, 2, 1, 1, 3, 3, 3, 5])  # 9 names 1d-2 damage: the 5 makes 3
    roll = roll_on_table(tables["YSFMB"], dice, tables=tables)
    assert roll.entry.lo == 3
    first, second = roll.sub_rolls
    assert (first.dice, first.entry.lo, first.directive) == ((2, 1, 1), 4, RollTwice(apply="both"))
    assert (second.dice, second.entry.lo, second.directive) == ((3, 3, 3), 9, RollTwice(apply="both"))
    assert [(t.spec.dice, t.faces, t.value) for t in second.text_rolls] == [("1D-2", (5,), 3)]
    assert [(depth, r.dice) for depth, r in roll.walk()] == [(0, (1, 1, 1)), (1, (2, 1, 1)), (1, (3, 3, 3))]
    dice.ensure_all_used()


def test_roll_twice_player_chooses(tables):
    roll = roll_on_table(tables["YSFMB"], ManualDice([6, 6, 6, 2, 2, 2, 5, 5, 5]), tables=tables)
    assert roll.entry.lo == 18
    assert [(r.entry.lo, r.directive.apply) for r in roll.sub_rolls] == [(6, "choose"), (15, "choose")]


def test_roll_twice_again_nests(tables):
    dice = ManualDice([1, 1, 1, 1, 1, 1, 2, 1, 1, 2, 2, 1, 3, 3, 3, 1])  # 9's 1d-2 takes the last die
    roll = roll_on_table(tables["YSFMB"], dice, tables=tables)
    first, second = roll.sub_rolls
    assert first.entry.lo == 3 and [r.entry.lo for r in first.sub_rolls] == [4, 5]
    assert second.entry.lo == 9
    assert [r.dice for _, r in roll.walk()] == [(1, 1, 1), (1, 1, 1), (2, 1, 1), (2, 2, 1), (3, 3, 3)]
    dice.ensure_all_used()


def test_roll_on_another_table(tables):
    roll = roll_on_table(tables["YSFMB"], ManualDice([6, 6, 5, 1, 2, 1]), tables=tables)
    assert roll.entry.lo == 17
    (head,) = roll.sub_rolls
    assert (head.command, head.dice, head.entry.lo) == ("HCRT", (1, 2, 1), 4)
    assert head.directive == RollTable(table="HCRT")


def test_conditional_reroll_is_rolled_and_labelled(tables):
    roll = roll_on_table(tables["FMB"], ManualDice([1, 1, 1, 4, 4, 4]), tables=tables)
    assert roll.entry.lo == 3
    (again,) = roll.sub_rolls
    assert again.entry.lo == 12
    assert again.directive.only_if_en == "solid crushing weapon"
    assert again.directive.only_if_ja == "硬い叩き武器"


def test_a_reroll_landing_on_a_reroll_result_stands(tables):
    dice = ManualDice([1, 1, 1, 6, 6, 6])
    roll = roll_on_table(tables["FMB"], dice, tables=tables)
    (again,) = roll.sub_rolls
    assert again.entry.lo == 18 and again.sub_rolls == () and not again.truncated
    dice.ensure_all_used()


def test_firearm_grenade_reroll(tables):
    roll = roll_on_table(tables["GFMB"], ManualDice([3, 3, 4, 2, 2, 1]), tables=tables)
    assert roll.entry.lo == 9
    assert [(r.entry.lo, r.directive.only_if_en) for r in roll.sub_rolls] == [(5, "grenade")]


def test_directive_chains_stop_at_max_depth(tables):
    thirteen = [4, 4, 5]
    dice = ManualDice(thirteen * (MAX_DEPTH + 1))
    roll = roll_on_table(tables["YFMB"], dice, tables=tables)
    chain = [r for _, r in roll.walk()]
    assert len(chain) == MAX_DEPTH + 1
    assert all(r.entry.lo == 13 for r in chain)
    assert chain[-1].truncated and not any(r.truncated for r in chain[:-1])
    dice.ensure_all_used()


# --- validation of broken seeds ---

GOOD = """
command = "TST"
name = "テスト表"
name_en = "Test table"
dice = "3D6"
range = [3, 18]
"""


def write(tmp_path: Path, body: str, name: str = "test.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(GOOD) + textwrap.dedent(body), encoding="utf-8")
    return path


def entry(spec: str, effects: str = "") -> str:
    lines = ["[[entries]]", spec, 'ja = "要約"', 'en = "summary"']
    if effects:
        lines.append(f"effects = [{effects}]")
    return "\n".join(lines) + "\n\n"


def test_a_valid_custom_directory_loads(tmp_path):
    write(tmp_path, entry("range = [3, 10]") + entry("range = [11, 18]", '{ kind = "as_entry", entry = 3 }'))
    assert set(load_tables(tmp_path)) == {"TST"}


@pytest.mark.parametrize(
    "body, fragments",
    [
        (entry("range = [3, 10]") + entry("range = [12, 18]"), ["entry 12-18", "gap", "11"]),
        (entry("range = [3, 10]") + entry("range = [10, 18]"), ["entry 10-18", "overlaps entry 3-10"]),
        (entry("range = [4, 18]"), ["entry 4-18", "gap", "3"]),
        (entry("range = [3, 17]"), ["entry 3-17", "gap", "18"]),
        (entry("range = [3, 19]"), ["entry 3-19", "past the table's range"]),
        (
            entry("range = [3, 10]") + entry("range = [11, 18]", '{ kind = "as_entry", entry = 99 }'),
            ["entry 11-18", "99"],
        ),
        (
            entry("range = [3, 10]", '{ kind = "as_entry", entry = 11 }')
            + entry("range = [11, 18]", '{ kind = "as_entry", entry = 3 }'),
            ["entry 3-10", "loop"],
        ),
        (
            entry("range = [3, 10]") + entry("range = [11, 18]", '{ kind = "quirkk" }'),
            ["entry 11-18", "unknown effect kind 'quirkk'"],
        ),
        (
            entry("range = [3, 10]") + entry("range = [11, 18]", '{ kind = "fatigue", amount = "1d6" }'),
            ["entry 11-18", "fatigue.amount"],
        ),
        (
            entry("range = [3, 10]")
            + entry("range = [11, 18]", '{ kind = "stun", turns = 1, recovery = "ht", colour = "red" }'),
            ["entry 11-18", "colour"],
        ),
        (
            entry("range = [3, 10]", '{ kind = "stun", turns = 1, recovery = "ht" }')
            + entry("range = [11, 18]", '{ kind = "as_entry", entry = 3, set = { cp = -30 } }'),
            ["entry 11-18", "set.cp matches no effect"],
        ),
        (
            entry("range = [3, 10]")
            + entry("roll = 11")
            + entry("range = [12, 18]", '{ kind = "trait", category = "quirk", cp = 1 }'),
            ["entry 12-18", "negative"],
        ),
        (entry("range = [3, 18]").replace('en = "summary"\n', ""), ["entry 3-18", "'en'"]),
        (entry("roll = 3\nrange = [3, 18]"), ["entry #1", "exactly one"]),
    ],
)
def test_broken_seed_names_file_and_entry(tmp_path, body, fragments):
    write(tmp_path, body)
    with pytest.raises(DataError) as caught:
        load_tables(tmp_path)
    message = str(caught.value)
    assert "test.toml" in message
    for fragment in fragments:
        assert fragment in message


def test_dangling_table_reference(tmp_path):
    write(tmp_path, entry("range = [3, 10]") + entry("range = [11, 18]", '{ kind = "roll_table", table = "NOPE" }'))
    with pytest.raises(DataError, match=r"test\.toml: entry 11-18: roll_table refers to unknown table 'NOPE'"):
        load_tables(tmp_path)


def test_invalid_toml(tmp_path):
    (tmp_path / "bad.toml").write_text("command = \n", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad\.toml: not valid TOML"):
        load_tables(tmp_path)


def test_duplicate_command(tmp_path):
    write(tmp_path, entry("range = [3, 18]"), "a.toml")
    write(tmp_path, entry("range = [3, 18]"), "b.toml")
    with pytest.raises(DataError, match=r"b\.toml: command TST is already defined in .*a\.toml"):
        load_tables(tmp_path)


def test_empty_directory(tmp_path):
    with pytest.raises(DataError, match="no seed tables"):
        load_tables(tmp_path)


def test_notes_are_written_out_not_pointed_at_the_source(tables):
    """Issue 13 item 12: the notes say what the rule is in our words, never "see the source"."""
    for table in tables.values():
        assert "原典参照" not in table.note_ja and "see the source" not in table.note_en.casefold(), table.command
    fmb = tables["FMB"]
    for words in (
        "dodge falls down",
        "parry rolls on this table",
        "block leaves the shield unready",
        "3 and 4 do nothing to a long-range weapon",
    ):
        assert words in fmb.note_en
    for words in ("よけなら転倒", "受けなら", "止めなら盾が非準備状態", "長射程武器なら3・4は効果なし"):
        assert words in fmb.note_ja
