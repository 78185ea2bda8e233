"""Negative amounts and GURPS's HP thresholds.

`award -5 --to 鈴音 --reason ...` takes points away (a reason is required);
`char damage 鈴音 HP -3` is refused in one line that names `char heal`. HP falling to 0,
to each −HT and to −5×HT is told in the tool's words and kept as codes in the record."""

from __future__ import annotations

from tests.cli.test_gm_lifecycle import verified, void


def test_a_negative_award_needs_a_reason_and_voids_back(gurps):
    assert (
        gurps.error("award", "-5", "--to", "鈴音", code=2)
        == "error: a negative award takes CP away: say why with --reason"
    )
    done = gurps.run("award", "-5", "--to", "鈴音", "--reason", "ルール違反")
    assert done.stdout.startswith("鈴音: -5 CP → 95 (awarded -5) (ledger #") and done.stderr == ""
    shown = gurps.json("char", "show", "鈴音")
    assert (shown["cp_total"], shown["cp_awarded"]) == (95, -5)
    verified(gurps)
    seq = gurps.json("history", "--kind", "award")[0]["seq"]
    assert "鈴音: CP total 95 → 100" in void(gurps, seq)["reversed"]
    assert "an award is 1.." in gurps.error("award", "0", "--to", "鈴音", "--reason", "x", code=2)
    assert (
        gurps.error("award", "3", "--too", "鈴音", code=2)
        == "error: Missing option '--to' (see `campaign award --help`)"
    )


def test_negative_damage_points_to_heal(gurps):
    size = gurps.json("history", "verify")["entries"]
    assert (
        gurps.error("char", "damage", "鈴音", "HP", "-3", code=2)
        == "error: the amount is 1 or more; to heal instead: `campaign char heal 鈴音 HP 3`"
    )
    assert (
        gurps.error("char", "heal", "鈴音", "HP", "-3", code=2)
        == "error: the amount is 1 or more; to damage instead: `campaign char damage 鈴音 HP 3`"
    )
    assert gurps.json("history", "verify")["entries"] == size  # nothing recorded


def test_hp_thresholds_are_told_and_recorded(gurps):
    lines = gurps.run("char", "damage", "鈴音", "HP", "11").stdout.splitlines()  # HP 11, HT 11
    assert lines[1:] == ["  GURPS: 鈴音 is at 0 HP or below: an HT roll at the start of each turn to stay conscious"]
    assert gurps.run("char", "damage", "鈴音", "HP", "5").stdout.count("GURPS") == 0  # -5: nothing new
    lines = gurps.run("char", "damage", "鈴音", "HP", "20").stdout.splitlines()  # -5 → -25
    assert lines[1:] == [
        "  GURPS: 鈴音 reached −HT (-11): an HT roll (11) now, or die; another at each further −HT",
        "  GURPS: 鈴音 reached −2×HT (-22): an HT roll (11) now, or die; another at each further −HT",
    ]
    done = gurps.json("char", "damage", "鈴音", "HP", "40")  # → -65: past -44 and -55
    assert [(n["code"], n["at"]) for n in done["notes"]] == [("death_roll", -33), ("death_roll", -44), ("dead", -55)]
    entry = gurps.json("history", "show", str(done["seq"]))
    assert [n["code"] for n in entry["detail"]["notes"]] == ["death_roll", "death_roll", "dead"]
    assert "GURPS" not in gurps.run("char", "damage", "鈴音", "FP", "20").stdout  # FP: no HP notes
    verified(gurps)
