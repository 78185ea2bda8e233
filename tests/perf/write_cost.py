"""Write cost of `roll`, `fright` and `scenario end`, in one process, on a lived-in campaign.

    .venv/bin/python -m tests.perf.write_cost [--scenarios 40] [--runs 30] [--db URL]

Why one process: the one-shot latency row (tests.perf.run) is dominated by start-up;
this row isolates what a command costs once it runs, which is where the write path
(Recorder, working state, table mapping) shows. Why a lived-in campaign: a write path
that reads the whole state gets slower as a campaign ages, one that reads the rows it
touches does not. The campaign is built through the CLI with fixed dice: four PCs with
traits, scenarios with fright checks, conditions, a missing character and searchers.

Every figure is the median wall time of `runs` commands divided by the median of a
baseline measured interleaved in the same run (`history show 1`, a read of one entry,
which no write path touches), so load from elsewhere hits both alike. Nothing is written to docs/.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from campaign.cli.app import app
from tests import inprocess

PCS = (("鈴音", "Aki"), ("刀矢", "Ren"), ("Mira", "Sora"), ("健二", "Hana"))


class Bench:
    def __init__(self, db: str) -> None:
        self.db = db
        self.runner = CliRunner()

    def run(self, *args: str) -> float:
        start = time.perf_counter()
        result = self.runner.invoke(app, ["--db", self.db, *args], catch_exceptions=False)
        took = time.perf_counter() - start
        if result.exit_code != 0:
            raise SystemExit(f"campaign {' '.join(args)}: exit {result.exit_code}\n{result.stderr}")
        return took


def build(bench: Bench, scenarios: int) -> None:
    """A campaign `scenarios` sessions old: each with fright checks (stun, new traits),
    rolls, and every fifth a character missing and searched for until the end."""
    bench.run("init", "Bench")
    for name, player in PCS:
        bench.run("player", "add", player)
        bench.run(
            "char",
            "add",
            name,
            "--player",
            player,
            "--stat",
            "IQ=12",
            "--stat",
            "HT=11",
            "--stat",
            "Will=11",
            "--stat",
            "FP=11",
            "--stat",
            "HP=11",
            "--cp",
            "150",
        )
        for index in range(12):
            bench.run("trait", "add", name, f"特徴{index}", "--cp", str(5 - index))
    for number in range(scenarios):
        bench.run("scenario", "start", f"第{number + 1}話", *[a for name, _ in PCS for a in ("--with", name)])
        for name, _ in PCS:
            bench.run("fright", name, "--mod", "0", "--dice", "6,6,5,1,1,1")  # fails by 6: stun 1 turn
            bench.run("roll", "3D6<=12", "--char", name, "--dice", "3,4,5")
        if number % 5 == 4:
            bench.run("missing", "mark", PCS[3][0], "--reason", "霧")
        end = ["scenario", "end"] + (["--dice", f"{PCS[3][0]}=6"] if number % 5 == 4 else [])
        bench.run(*end)
        if number % 5 == 4:  # found again before the next scenario
            bench.run("missing", "found", PCS[3][0], "--reason", "戻った")


def measure(bench: Bench, runs: int) -> dict[str, tuple[float, float]]:
    """{row: (median ms, ratio to the baseline)}, commands and baseline interleaved."""
    times: dict[str, list[float]] = {"baseline": [], "roll": [], "fright": [], "scenario end": []}
    who = PCS[0][0]
    for _ in range(runs):
        times["baseline"].append(bench.run("history", "show", "1", "--json"))
        times["roll"].append(bench.run("roll", "3D6<=12", "--char", who, "--dice", "3,4,5"))
        times["baseline"].append(bench.run("history", "show", "1", "--json"))
        times["fright"].append(bench.run("fright", who, "--mod", "0", "--dice", "6,6,5,1,1,1"))
        bench.run("scenario", "start", "計測", *[a for name, _ in PCS for a in ("--with", name)])
        times["baseline"].append(bench.run("history", "show", "1", "--json"))
        times["scenario end"].append(bench.run("scenario", "end"))
    base = statistics.median(times["baseline"])
    return {row: (statistics.median(t) * 1e3, statistics.median(t) / base) for row, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=40)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--db", help="a database URL (default: a SQLite file in a temporary directory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, inprocess.reusing():
        bench = Bench(args.db or str(Path(tmp) / "bench.db"))
        start = time.perf_counter()
        build(bench, args.scenarios)
        print(f"built {args.scenarios} scenarios in {time.perf_counter() - start:.1f} s")
        for row, (ms, ratio) in measure(bench, args.runs).items():
            print(f"{row:14} {ms:8.2f} ms  {ratio:5.2f}x")


if __name__ == "__main__":
    main()
