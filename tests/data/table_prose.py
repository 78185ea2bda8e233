"""The table rolls of tests/data/table_prose.json, and how that file was made.

Until the table records held codes (branch `tablecodes`), `table roll`, `roll CRT`,
`ref show --roll` and the ココフォリア import wrote the entry texts, table names, the
printed lines and the sub-entries' reasons into the hashed record. table_prose.json
holds what that code did with the commands below, on the `gurps` party: each command's
human output, and the export of the campaign (its records as hashed). It was written by
`python -m tests.data.table_prose` at commit ada3c60, the last with the old records;
tests/cli/test_table_codes.py runs the same commands on today's code and compares.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "table_prose.json"
LOG = "session.html"  # the ココフォリア log (tests.ccfolia_logs.GURPS_SESSION), written beside the database
SEVEN = "2,2,3"

COMMANDS: list[list[str]] = [
    *[
        ["table", "roll", command, "--dice", SEVEN]
        for command in ("CRT", "FEAR", "FMB", "GFMB", "HCRT", "YFMB", "YSCRT")
    ],
    ["table", "roll", "YSFMB", "--dice", SEVEN + ",4"],  # 7 names 1d damage
    ["table", "roll", "CRT", "--dice", "3,4,6", "--char", "刀矢"],
    ["roll", "FEAR+5", "急所", "--char", "刀矢", "--dice", "1,2,3"],
    ["roll", "FEAR+30", "--dice", "6,6,6"],  # raw 48, clamped to 40
    ["table", "roll", "FEAR", "--mod", "-5", "--dice", "1,1,1"],  # raw -2, clamped to 4
    ["table", "roll", "恐怖判定表", "--mod", "20", "--char", "鈴音", "--dice", "6,6,6", "--reason", "大百足"],
    ["table", "roll", "YSFMB", "--dice", "1,1,1,2,2,2,6,6,6,1,2,3,4,5,6"],  # roll twice, nested choose
    ["roll", "FMB", "--dice", "1,1,1,2,2,3"],  # conditional reroll, made
    ["table", "roll", "FMB", "--weapon", "crushing", "--dice", "1,1,1,2,2,3"],  # the fact stated
    ["table", "roll", "FMB", "--weapon", "other", "--dice", "1,1,1"],  # declined by the fact
    ["table", "roll", "FMB", "--dice", "1,1,1,6,6,6"],  # a reroll's reroll stands
    ["table", "roll", "GFMB", "--dice", "3,3,4,3,3,4,2,2,2"],  # rerolled again
    ["table", "roll", "GFMB", "--no-grenade", "--dice", "3,3,4"],  # declined
    ["table", "roll", "YFMB", "--dice", "4,5,5,2,2,3"],  # the GM's choice, made
    ["table", "roll", "YFMB", "--no-reroll", "--dice", "4,5,5"],  # the GM's choice, declined
    ["table", "roll", "YSFMB", "--no-reroll", "--dice", "4,4,5"],  # YSFMB 13, declined
    ["roll", "YSFMB", "--dice", "6,6,5,2,2,3"],  # roll on the head-blow table
    ["roll", "YFMB", "--dice", ",".join(["6,6,1"] * 6)],  # YFMB 13 again and again: nesting limit
    ["table", "roll", "YSCRT", "--char", "刀矢", "--dice", "5,5,5,2"],  # 1d-3 turns, at least 1
    ["table", "roll", "YFMB", "--dice", "1,1,1,6,5,4,3"],  # two dice in one text
    ["table", "roll", "YSFMB", "--dice", "1,1,1,3,3,3,5,5,5,6,6"],  # text dice inside a roll twice
    ["ref", "show", "命中部位", "--roll", "--char", "刀矢", "--dice", "3,3,4", "--reason", "狙わず"],
    ["ref", "show", "命中部位", "--roll", "--dice", "1,1,1"],
    ["import-log", LOG, "--ccfolia", "--map", "すずね=鈴音"],
]


def run(db: str, log_dir: Path) -> tuple[list[str], list[dict]]:
    """Each command's human output, on a fresh `gurps` party, then the export's lines."""
    from tests.ccfolia_logs import GURPS_SESSION, build
    from tests.cli.conftest import Cli, gurps_setup

    (log_dir / LOG).write_text(build(GURPS_SESSION), encoding="utf-8")
    cli = gurps_setup(Cli(db))
    outputs = []
    for command in COMMANDS:
        args = [str(log_dir / LOG) if arg == LOG else arg for arg in command]
        outputs.append(cli.run(*args).stdout)
    export = log_dir / "export.jsonl"
    cli.run("export", str(export))
    return outputs, [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        outputs, export = run(str(Path(tmp) / "campaign.db"), Path(tmp))
    FIXTURE.write_text(
        json.dumps({"commands": COMMANDS, "outputs": outputs, "export": export}, ensure_ascii=False, indent=1) + "\n",
        encoding="utf-8",
    )
    print(f"wrote {FIXTURE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
