"""Several voids at once: `history void SEQ...` and `--last [N]`, in
one transaction, with the dependency rules of a single void and one confirmation."""

from __future__ import annotations

from tests.cli.test_gm_lifecycle import verified


def ledger_size(cli) -> int:
    return cli.json("history", "verify")["entries"]


def live_rolls(cli) -> list[int]:
    return [e["seq"] for e in cli.json("history", "--kind", "roll") if e["voided_by"] is None]


def test_void_several_entries_in_one_command(gurps):
    rolls = [gurps.json("roll", "3D6", "--dice", f"{i},1,1")["seq"] for i in range(1, 7)]
    done = gurps.json("history", "void", str(rolls[1]), str(rolls[3]), str(rolls[2]), "--reason", "試し振り", "--yes")
    assert done["targets"] == [rolls[1], rolls[2], rolls[3]]
    assert done["void_seqs"] == [rolls[5] + 1, rolls[5] + 2, rolls[5] + 3]  # newest voided first
    assert live_rolls(gurps) == [rolls[5], rolls[4], rolls[0]]
    out = gurps.run("history", "void", "--last", "2", "--reason", "試し振り", "--yes")
    assert out.stdout.splitlines() == [
        f"voided #{rolls[5]} (entry #{rolls[5] + 4})",
        f"voided #{rolls[4]} (entry #{rolls[5] + 5})",
    ]
    assert out.stderr == ""
    assert live_rolls(gurps) == [rolls[0]]
    gurps.run("history", "void", "--last", "--reason", "試し振り", "--yes")  # --last alone: one
    assert live_rolls(gurps) == []
    verified(gurps)


def test_a_refused_multi_void_writes_nothing(gurps):
    roll = gurps.json("roll", "3D6", "--dice", "1,1,1")["seq"]
    size = ledger_size(gurps)
    assert "no ledger entry #999" in gurps.error("history", "void", str(roll), "999", "--reason", "x", "--yes", code=1)
    assert "not both" in gurps.error("history", "void", str(roll), "--last", "1", "--reason", "x", "--yes", code=2)
    assert "say which entries" in gurps.error("history", "void", "--reason", "x", "--yes", code=2)
    assert "only 1 entries can be voided" in gurps.error(
        "history", "void", "--last", "5", "--reason", "x", "--yes", code=1
    )
    assert ledger_size(gurps) == size and live_rolls(gurps) == [roll]


def test_dependents_inside_the_set_need_no_cascade_outside_ones_do(gurps):
    fright = gurps.json("fright", "鈴音", "--pick", "暗所恐怖症", "--dice", "6,5,5,6,6,6")
    damage = gurps.json("char", "damage", "鈴音", "HP", "2")["seq"]
    trait_gone = gurps.json("trait", "remove", "鈴音", "暗所恐怖症", "--reason", "克服")["seq"]
    refused = gurps.error("history", "void", str(fright["seq"]), str(damage), "--reason", "x", "--yes", code=1)
    assert refused.startswith(  # the dependent in words: what it did, to what the voided entry gave
        f"error: cannot void #{fright['seq']}, #{damage}: later entries depend on it: "
        f"#{trait_gone} removes the trait '暗所恐怖症' that #{fright['seq']} gave. Void them first"
    )
    # voiding the dependent along with what it depends on needs no --cascade
    done = gurps.json("history", "void", str(fright["seq"]), str(trait_gone), "--reason", "x", "--yes")
    assert done["targets"] == [fright["seq"], trait_gone] and done["cascade"] == []
    shown = gurps.json("char", "show", "鈴音")
    assert shown["traits"] == [] and shown["cp_total"] == 100
    # taking back one of the two voids alone is refused (the trait it removes is gone);
    # taking back both together restores both
    assert "no longer applies" in gurps.error(
        "history", "void", str(done["void_seqs"][0]), "--reason", "back", "--yes", code=1
    )
    gurps.run("history", "void", *(str(s) for s in done["void_seqs"]), "--reason", "back", "--yes")
    assert gurps.json("history", "show", str(fright["seq"]))["voided_by"] is None
    verified(gurps)
