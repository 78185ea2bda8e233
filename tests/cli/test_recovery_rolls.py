"""Recovery rolls: `condition recover` rolls the stat the fright table
entry names and clears the condition on a success, in one voidable entry; `time advance`
names the command for every due roll."""

from __future__ import annotations

from tests.cli.test_gm_lifecycle import verified, void


def stunned(cli) -> dict:
    """鈴音 (Will 11) fails a fright check by 1 and rolls 9 on FEAR+1: stunned, a Will
    roll each turn after the first."""
    return cli.json("fright", "鈴音", "--dice", "6,5,1,2,3,3")


def conditions(cli) -> list[str]:
    return [c["name"] for c in cli.json("condition", "list", "鈴音")["conditions"]]


def test_recover_rolls_will_and_clears_on_success(gurps):
    stunned(gurps)
    advanced = gurps.run("time", "advance", "2turns")
    assert (
        "due    鈴音: stunned: recovery roll due since day 1 00:00:01: Will roll, "
        "`campaign condition recover '鈴音' stun`" in advanced.stdout
    )
    again = gurps.run("--lang", "ja", "time", "advance", "1turns").stdout
    assert (
        "期限  鈴音: 朦朧: 1日目 00:00:01 から回復判定の時期です: 意志の判定: `campaign condition recover '鈴音' stun`"
        in again
    )
    failed = gurps.json("condition", "recover", "鈴音", "stun", "--dice", "5,5,2")
    assert (failed["stat"], failed["target"], failed["total"], failed["outcome"], failed["recovered"]) == (
        "Will",
        11,
        12,
        "failure",
        False,
    )
    assert conditions(gurps) == ["stun"]
    done = gurps.run("condition", "recover", "鈴音", "朦朧", "--dice", "3,4,4")
    assert done.stdout == (
        f"#{failed['seq'] + 1} 鈴音: Will roll to recover from stunned: 3D6<=11 → [3,4,4] = 11 "
        "→ success (margin +0): recovered\n"
    )
    assert conditions(gurps) == []
    entry = gurps.json("history", "show", str(failed["seq"] + 1))
    assert (entry["kind"], entry["expression"], entry["dice"], entry["source"]) == (
        "condition",
        "3D6<=11",
        [3, 4, 4],
        "manual",
    )
    verified(gurps)
    assert void(gurps, failed["seq"] + 1)["reversed"] == ["鈴音: condition 'stunned' restored"]
    assert conditions(gurps) == ["stun"]
    verified(gurps)


def test_an_early_recovery_roll_is_warned_of_in_the_campaigns_language(gurps, monkeypatch):
    stunned(gurps)
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    early = gurps.run("condition", "recover", "鈴音", "stun", "--dice", "6,6,5")
    warned = "キャンペーン時計ではこのロールは 1日目 00:00:01 からです (現在 1日目 00:00)。このまま振りました"
    assert warned in early.stderr
    assert "campaign clock" not in early.stderr


def test_recover_refuses_what_has_no_roll_and_warns_when_early(gurps):
    assert "no active condition 'stun'" in gurps.error(
        "condition", "recover", "鈴音", "stun", "--dice", "1,1,1", code=1
    )
    gurps.run("condition", "add", "鈴音", "poisoned")
    assert "has no recovery roll; end it with `campaign condition clear 鈴音 poisoned`" in gurps.error(
        "condition", "recover", "鈴音", "poisoned", "--dice", "1,1,1", code=1
    )
    stunned(gurps)
    early = gurps.run("condition", "recover", "鈴音", "stun", "--dice", "6,6,5")
    assert early.stderr.startswith("warning: by the campaign clock the roll is due from day 1 00:00:01")
    assert "critical failure" in early.stdout and conditions(gurps) == ["poisoned", "stun"]
    assert "--dice" in gurps.error("condition", "recover", "鈴音", "stun", "--dice", "1,1", code=2)
    verified(gurps)
