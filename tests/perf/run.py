"""`make bench`: the performance table (docs/performance.md), each figure against a baseline of the same run.

    python -m tests.perf.run            the full issue spec (1,000,000-entry databases)
    python -m tests.perf.run --quick    100,000 entries and fewer runs, for iteration
    python -m tests.perf.run --only verify,dice    some rows only (docs not written)

These machines are noisy, so no figure is an absolute time: every row divides by a
baseline measured in the same run, and the latency rows interleave command and
baseline runs so that load from elsewhere hits both alike. The databases hold the
campaigns tests.perf.generate writes, built once by its build_database (executemany,
then the product's own rebuild of the state) into build/bench-cache, keyed by the
generator's version, and copied from there; the bulk append row measures `campaign
import` itself. The table goes to stdout and docs/performance.md with
the machine, and the exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from tests.perf import generate

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "performance.md"
CACHE = REPO / "build" / "bench-cache"
BASELINE_IMPORTS = "import typer, rich, sqlalchemy.orm"
DICE_EXPRESSIONS = (
    "3d6",
    "1d20+5",
    "2d6+3",
    "4d6kh3",
    "2d20kl1",
    "1d100",
    "8d6",
    "3d6+2d4-1",
    "(1d6+2)*3",
    "1d8+1d6+4",
)
MB = 1024 * 1024
# The table rows' baseline: the players' own roll, typed into `campaign shell` (tests.perf.table_load)
SHELL_ROLL = "the players' `roll 3D6<=12 回避 --char PC1`"


@dataclass
class Sizes:
    big: int  # entries in the one-campaign database (verify, memory)
    campaigns: int  # campaigns in the many-campaign database
    per_campaign: int  # entries per campaign there
    small: int  # entries of the history-at-scale baseline and the latency database
    bulk: int  # entries of the bulk append row
    latency_runs: int
    scale_runs: int
    repeat: int  # runs of the long rows (verify, bulk append), median taken
    shell_rolls: int = 100  # rolls of the shell row, on each side


FULL = Sizes(
    big=1_000_000,
    campaigns=50,
    per_campaign=20_000,
    small=1_000,
    bulk=100_000,
    latency_runs=30,
    scale_runs=30,
    repeat=3,
    shell_rolls=200,
)
QUICK = Sizes(
    big=100_000,
    campaigns=50,
    per_campaign=2_000,
    small=1_000,
    bulk=100_000,
    latency_runs=10,
    scale_runs=10,
    repeat=1,
    shell_rolls=100,
)


@dataclass
class Row:
    key: str
    what: str
    measured: str
    figure: str
    baseline: str
    ratio: float | None
    target: str
    ok: bool
    notes: list[str] = field(default_factory=list)

    @property
    def ratio_text(self) -> str:
        return "—" if self.ratio is None else f"{self.ratio:.2f}x"


@dataclass
class Run:
    wall: float
    cpu: float
    max_rss_kb: int
    returncode: int
    stderr: str


class Bench:
    def __init__(self, workdir: Path, sizes: Sizes, quick: bool) -> None:
        self.dir = workdir
        self.sizes = sizes
        self.quick = quick
        self.env = _child_env(workdir)
        self.campaign = _campaign_command()
        self.python = sys.executable
        self.rows: list[Row] = []
        self.evidence: dict[str, list[str]] = {}

    # --- running commands ------------------------------------------------------------

    def run(
        self, argv: list[str], *, stdout=subprocess.DEVNULL, stdin=None, check: bool = True, rss: bool = False
    ) -> Run:
        """Run once; wall time, CPU time and peak RSS of this child alone (wait4).

        With rss=True the command is started by a small runner process: a child's peak RSS
        (ru_maxrss) counts the memory of the process it was forked from, and this harness
        is not small.
        """
        if rss:
            return self._run_measured(argv, stdout=stdout, check=check)
        with tempfile.TemporaryFile() as err:
            start = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=stdout, stderr=err, stdin=stdin, env=self.env)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            err.seek(0)
            message = err.read().decode("utf-8", "replace")
        result = Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode, message)
        if check and result.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {result.returncode}: {message.strip()[-2000:]}")
        return result

    def run_json(self, argv: list[str]) -> tuple[Run, dict]:
        """Run once, measured with its peak RSS (rss=True), and read its --json answer."""
        with tempfile.TemporaryFile() as out:
            result = self.run(argv, stdout=out, rss=True)
            out.seek(0)
            return result, json.loads(out.read())

    def verified(self, db: Path, what: str) -> dict:
        """`history verify --json` of a row's database, which must pass."""
        done = subprocess.run(self.cli(db, "history", "verify", "--json"), capture_output=True, env=self.env)
        report = json.loads(done.stdout)
        if not report["ok"]:
            raise RuntimeError(f"the {what} row's ledger does not verify: {report}")
        return report

    def _run_measured(self, argv: list[str], *, stdout, check: bool) -> Run:
        with tempfile.NamedTemporaryFile("r", suffix=".json") as report, tempfile.TemporaryFile() as err:
            proc = subprocess.run(
                [self.python, "-c", RUNNER, report.name, *argv], stdout=stdout, stderr=err, env=self.env
            )
            err.seek(0)
            message = err.read().decode("utf-8", "replace")
            try:
                got = json.load(report)
            except ValueError:
                raise RuntimeError(f"runner failed for {' '.join(argv)}: {message.strip()[-2000:]}") from None
        result = Run(got["wall"], got["cpu"], got["max_rss_kb"], got["returncode"], message)
        if check and result.returncode != 0 or proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {result.returncode}: {message.strip()[-2000:]}")
        return result

    def _create_empty(self, db: Path) -> list[str]:
        """An empty database at the current schema (reading commands create none)."""
        return [
            self.python,
            "-c",
            "import sys; from campaign.db.database import Database; Database(sys.argv[1]).close()",
            str(db),
        ]

    def cli(self, db: Path, *args: str) -> list[str]:
        return [*self.campaign, "--db", str(db), *args]

    def paired(self, command: list[str], baseline: list[str], runs: int, warmup: int = 2) -> tuple[Run, Run]:
        """Median runs of a command and its baseline, interleaved (ABBA) so drift hits both."""
        for _ in range(warmup):
            self.run(command)
            self.run(baseline)
        got: dict[str, list[Run]] = {"c": [], "b": []}
        for index in range(runs):
            order = ("c", "b") if index % 2 == 0 else ("b", "c")
            for which in order:
                got[which].append(self.run(command if which == "c" else baseline))
        return _median_run(got["c"]), _median_run(got["b"])

    # --- databases -------------------------------------------------------------------

    def write_export(self, path: Path, name: str, entries: int) -> None:
        with open(path, "w", encoding="utf-8") as out:
            out.writelines(generate.export_lines(name, entries))

    def build(self, rows: set[str] | None = None) -> None:
        """The databases the rows need (all of them for a whole run), from the cache."""
        s = self.sizes
        self.small_db = self.dir / "small.db"
        self.latency_db = self.dir / "latency.db"
        self.multi_db = self.dir / "multi.db"
        self.big_db = self.dir / "big.db"
        self.query_campaign = f"Campaign {s.campaigns // 2:02d}"
        contents = {
            "small": [(self.query_campaign, s.small)],
            "latency": [("Night Parade", s.small)],
            "multi": [(f"Campaign {number:02d}", s.per_campaign) for number in range(1, s.campaigns + 1)],
            "big": [("Long Campaign", s.big)],
        }
        needed = set(contents) if rows is None else {db for row in rows for db in DATABASES.get(row, ())}
        lines = []
        for name in sorted(needed):
            start = time.perf_counter()
            built = cached_database(contents[name], self.dir / f"{name}.db")
            verb = "built" if built else "copied from the cache"
            entries = sum(n for _, n in contents[name])
            lines.append(f"{name}.db ({entries:,} entries) {verb} in {time.perf_counter() - start:.0f} s")
        print("\n".join(lines), flush=True)
        self.evidence.setdefault("build", []).extend(lines)

    # --- rows ------------------------------------------------------------------------

    def row_command_latency(self) -> None:
        db = self.latency_db
        cmd, base = self.paired(
            self.cli(db, "roll", "3D6"), [self.python, "-c", BASELINE_IMPORTS], self.sizes.latency_runs
        )
        self._latency_row(
            "command",
            "command latency",
            f"`campaign --db F roll 3D6` (writes one entry), median wall of {self.sizes.latency_runs}",
            cmd,
            base,
        )
        # Where the teardown goes: the baseline without its exit-time collections, and the
        # same roll through the Typer app without the console script's gc.freeze().
        runs = max(5, self.sizes.latency_runs // 3)
        frozen, base2 = self.paired(
            [self.python, "-c", BASELINE_IMPORTS + ", gc; gc.freeze()"],
            [self.python, "-c", BASELINE_IMPORTS],
            runs,
            warmup=1,
        )
        plain, base3 = self.paired(
            [self.python, "-c", "from campaign.cli.app import app; app()", "--db", str(db), "roll", "3D6"],
            [self.python, "-c", BASELINE_IMPORTS],
            runs,
            warmup=1,
        )
        self.rows[-1].notes.append(
            f"interpreter teardown: the baseline with `gc.freeze()` added at its end takes {frozen.wall * 1000:.0f} "
            f"ms ({frozen.wall / base2.wall:.2f}x); the same roll run through the Typer app, without the console "
            f"script's freeze before exit, takes {plain.wall * 1000:.0f} ms ({plain.wall / base3.wall:.2f}x)"
        )

    def row_read_latency(self) -> None:
        db = self.latency_db
        cmd, base = self.paired(
            self.cli(db, "history", "--limit", "20", "--json"),
            [self.python, "-c", BASELINE_IMPORTS],
            self.sizes.latency_runs,
        )
        self._latency_row(
            "read",
            "read latency",
            f"`campaign --db F history --limit 20 --json`, median wall of {self.sizes.latency_runs}",
            cmd,
            base,
        )

    def _latency_row(self, key, what, measured, cmd: Run, base: Run) -> None:
        ratio = cmd.wall / base.wall
        row = Row(
            key,
            what,
            measured,
            f"{cmd.wall * 1000:.0f} ms",
            f'{base.wall * 1000:.0f} ms (`python -c "{BASELINE_IMPORTS}"`)',
            ratio,
            "<= 1.25x",
            ratio <= 1.25,
        )
        row.notes.append(
            f"CPU time (user+sys, median): {cmd.cpu * 1000:.0f} ms vs {base.cpu * 1000:.0f} ms "
            f"= {cmd.cpu / base.cpu:.2f}x"
        )
        self.rows.append(row)

    def row_history_scale(self) -> None:
        s = self.sizes
        args = [
            "-c",
            self.query_campaign,
            "history",
            "--char",
            generate.QUERY_CHARACTER,
            "--kind",
            "fright",
            "--limit",
            "50",
        ]
        big, small = self.paired(self.cli(self.multi_db, *args), self.cli(self.small_db, *args), s.scale_runs)
        ratio = big.wall / small.wall
        total = s.campaigns * s.per_campaign
        self.rows.append(
            Row(
                "scale",
                "history at scale",
                f"`history --char {generate.QUERY_CHARACTER} --kind fright --limit 50` on {total:,} entries over "
                f"{s.campaigns} campaigns, median wall of {s.scale_runs}",
                f"{big.wall * 1000:.0f} ms",
                f"{small.wall * 1000:.0f} ms (same query, {s.small:,} entries)",
                ratio,
                "<= 1.5x",
                ratio <= 1.5,
            )
        )

    def row_verify(self) -> None:
        runs = []
        for _ in range(self.sizes.repeat):
            result, report = self.run_json(self.cli(self.big_db, "history", "verify", "--chain-only", "--json"))
            if not report["ok"] or report["entries"] != self.sizes.big:
                raise RuntimeError(f"verify did not pass over the generated chain: {report}")
            runs.append(result)
        verify = _median_run(runs)
        bases = [_hash_baseline(self.big_db) for _ in range(self.sizes.repeat)]
        base, base_cpu = statistics.median(b[0] for b in bases), statistics.median(b[1] for b in bases)
        ratio = base / verify.wall  # throughput ratio: (entries/verify time) / (entries/hash time)
        n = self.sizes.big
        self.rows.append(
            Row(
                "verify",
                "verify throughput",
                f"`history verify --chain-only` over {n:,} entries (whole command, one process, median of "
                f"{self.sizes.repeat})",
                f"{n / verify.wall:,.0f} entries/s ({verify.wall:.2f} s)",
                f"{n / base:,.0f} entries/s ({base:.2f} s: hashlib.sha256(prev_hash + record).hexdigest() in a loop)",
                ratio,
                ">= 0.25x",
                ratio >= 0.25,
                [
                    f"peak RSS {verify.max_rss_kb / 1024:.0f} MB; CPU time (user+sys, median): {verify.cpu:.2f} s "
                    f"against {base_cpu:.2f} s of the hash loop = {base_cpu / verify.cpu:.2f}x",
                    "what --chain-only proves: every entry 1..N in order, each prev_hash the hash before it, each "
                    "hash SHA-256 of prev_hash + the record as stored, each record in canonical form and its "
                    "indexed columns equal to it (not the state tables)",
                    f"load average when the row ended (1/5/15 min): {_load()}",
                ],
            )
        )

    def row_verify_state(self) -> None:
        """`history verify` with the state check (replay + compare) against the chain alone,
        on the same 100,000-entry campaign (a quarter of it fright checks, which replay)."""
        db, n = self.dir / "state.db", 100_000
        if not db.exists():
            cached_database([("State Check", n)], db)
        runs = {"state": [], "chain": []}
        for _ in range(max(3, self.sizes.repeat)):
            for key, extra in (("state", []), ("chain", ["--chain-only"])):
                result, report = self.run_json(self.cli(db, "history", "verify", *extra, "--json"))
                if not report["ok"] or (key == "state" and not report["state"]["ok"]):
                    raise RuntimeError(f"verify did not pass over the generated campaign: {report}")
                runs[key].append(result)
        state, chain = _median_run(runs["state"]), _median_run(runs["chain"])
        ratio = state.wall / chain.wall
        self.rows.append(
            Row(
                "verify_state",
                "verify with the state check",
                f"`history verify` (chain, then replay of the ledger compared with the state tables) over {n:,} "
                f"entries, median of {len(runs['state'])}",
                f"{state.wall:.2f} s",
                f"{chain.wall:.2f} s (`history verify --chain-only`, same database)",
                ratio,
                "<= 2.0x",
                ratio <= 2.0,
                [f"peak RSS {state.max_rss_kb / 1024:.0f} MB"],
            )
        )

    def row_verify_judged(self) -> None:
        """`history verify --chain-only` with every roll and fright check judged (total,
        outcome and margin recomputed from the dice, campaign/fair_check.py) against the
        same verify without the judging (services.fair.verify reading no rolls), on the
        same 100,000-entry campaign, interleaved runs."""
        db, n = self.dir / "state.db", 100_000
        if not db.exists():
            cached_database([("State Check", n)], db)
        command = self.cli(db, "history", "verify", "--chain-only", "--json")
        unjudged = [self.python, "-c", UNJUDGED, "--db", str(db), "history", "verify", "--chain-only", "--json"]
        runs: dict[str, list[Run]] = {"judged": [], "unjudged": []}
        for _ in range(max(3, self.sizes.repeat)):
            for key, argv in (("judged", command), ("unjudged", unjudged)):
                result, report = self.run_json(argv)
                if not report["ok"]:
                    raise RuntimeError(f"verify did not pass over the generated campaign: {report}")
                runs[key].append(result)
                if key == "judged":
                    judged = report["fair"]["judged"]
        judged_run, plain = _median_run(runs["judged"]), _median_run(runs["unjudged"])
        ratio = judged_run.wall / plain.wall
        self.rows.append(
            Row(
                "verify_judged",
                "verify judging every roll",
                f"`history verify --chain-only` over {n:,} entries, {judged:,} rolls and fright checks judged "
                f"from their dice, median of {len(runs['judged'])}",
                f"{judged_run.wall:.2f} s",
                f"{plain.wall:.2f} s (the same verify judging none, same database)",
                ratio,
                "<= 1.3x",
                ratio <= 1.3,
                [f"peak RSS {judged_run.max_rss_kb / 1024:.0f} MB"],
            )
        )

    def row_dice(self) -> None:
        ours, theirs = _dice_times()
        ratio = theirs / ours
        self.rows.append(
            Row(
                "dice",
                "dice engine",
                f"parse + roll of {len(DICE_EXPRESSIONS)} expressions ({', '.join(DICE_EXPRESSIONS)}), in process, "
                "random.Random on both sides",
                f"{ours * 1e6:.1f} µs/expression",
                f"{theirs * 1e6:.1f} µs/expression (d20 {_d20_version()})",
                ratio,
                ">= 1.0x",
                ratio >= 1.0,
            )
        )

    def row_bulk(self) -> None:
        n = self.sizes.bulk
        export = self.dir / "bulk.jsonl"
        self.write_export(export, "Bulk Import", n)
        imports, raws = [], []
        for attempt in range(self.sizes.repeat):
            target = self.dir / f"bulk-{attempt}.db"
            self.run(self._create_empty(target))  # the schema exists before either side is timed
            imports.append(self.run(self.cli(target, "import", str(export)), rss=True))
            raw_db = self.dir / f"raw-{attempt}.db"
            self.run(self._create_empty(raw_db))
            raws.append(self._raw_insert(raw_db, export))
        imp = _median_run(imports)
        raw = statistics.median(raws)
        ratio = raw / imp.wall
        self.rows.append(
            Row(
                "bulk",
                "bulk append",
                f"`campaign import` of {n:,} entries into an upgraded empty database (whole command, "
                f"median of {self.sizes.repeat})",
                f"{n / imp.wall:,.0f} entries/s ({imp.wall:.2f} s)",
                f"{n / raw:,.0f} entries/s ({raw:.2f} s: sqlite3 executemany of the same rows, one transaction, "
                "same schema and pragmas)",
                ratio,
                ">= 0.15x",
                ratio >= 0.15,
                [f"peak RSS {imp.max_rss_kb / 1024:.0f} MB"],
            )
        )

    def _sheet_import(self, traits: int, attempt: int) -> Run:
        """`char import` of one NPC with `traits` traits into a fresh campaign, timed alone."""
        sheet = self.dir / f"sheet-{traits}.json"
        record = {"name": "多芸", "kind": "npc", "cp": 0, **{f"trait:特徴{i}": "1" for i in range(traits)}}
        sheet.write_text(json.dumps([record], ensure_ascii=False), encoding="utf-8")
        db = self.dir / f"sheet-{traits}-{attempt}.db"
        self.run(self.cli(db, "init", "シート卓", "--ruleset", "gurps3-ja"))
        return self.run(self.cli(db, "char", "import", str(sheet), "--format", "json"))

    def row_sheet_import(self) -> None:
        """A sheet's traits cost the same each (docs/sheets.md): 4,000 traits take four times
        what 1,000 take, not sixteen, and under 2 s in all."""
        big, small = [], []
        for attempt in range(max(3, self.sizes.repeat)):
            small.append(self._sheet_import(1_000, attempt))
            big.append(self._sheet_import(4_000, attempt))
        ours, base = _median_run(big), _median_run(small)
        # CPU time (user + system) of the command: on a shared machine its wall time
        # measures the other processes too (both are shown).
        ratio = ours.cpu / base.cpu
        self.rows.append(
            Row(
                "sheet_import",
                "sheet import",
                "`campaign char import` of one sheet with 4,000 traits into a new campaign (whole command, "
                f"CPU time, median of {len(big)})",
                f"{ours.cpu:.2f} s CPU ({ours.wall:.2f} s wall)",
                f"{base.cpu:.2f} s CPU ({base.wall:.2f} s wall): the same sheet with 1,000 traits",
                ratio,
                "<= 5.0x and < 2 s",
                ratio <= 5.0 and ours.cpu < 2.0,
            )
        )

    def _raw_insert(self, db: Path, export: Path) -> float:
        """The raw baseline in its own process (the rows are parsed there, outside the clock)."""
        result = subprocess.run(
            [self.python, "-c", RAW_INSERT, str(db), str(export)],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=REPO,
        )
        if result.returncode != 0:
            raise RuntimeError(f"raw insert failed: {result.stderr.strip()[-2000:]}")
        return float(result.stdout.split()[-1])

    def row_memory(self) -> None:
        n = self.sizes.big
        history = self.run(self.cli(self.big_db, "history", "--all", "--json"), rss=True)
        out = self.dir / "export.jsonl"
        export = self.run(self.cli(self.big_db, "export", str(out)), rss=True)
        lines = sum(1 for _ in open(out, "rb"))
        out.unlink()
        for key, label, result, extra in (
            ("memory-history", "memory: `history --all --json`", history, ""),
            ("memory-export", "memory: `export`", export, f", {lines:,} lines written"),
        ):
            mb = result.max_rss_kb / 1024
            self.rows.append(
                Row(
                    key,
                    label,
                    f"peak RSS of the command over {n:,} entries (streams){extra}",
                    f"{mb:.0f} MB (in {result.wall:.1f} s, {n / result.wall:,.0f} entries/s)",
                    "—",
                    None,
                    "< 150 MB",
                    mb < 150,
                )
            )

    def row_stats(self) -> None:
        """`stats` reads what `history --all --json` reads (every record, json.loads each)
        and tallies instead of printing: the target is a ratio to that command."""
        n = self.sizes.big
        stats_runs, history_runs = [], []
        for _ in range(max(1, self.sizes.repeat // 2)):  # the longest row: fewer runs
            result, report = self.run_json(self.cli(self.big_db, "stats", "--json"))
            stats_runs.append(result)
            history_runs.append(self.run(self.cli(self.big_db, "history", "--all", "--json"), rss=True))
        rng = next((s for s in report["sources"] if s["source"] == "rng"), None)
        if report["entries"] + report["voided_left_out"] != n or rng is None or not rng["dice"]:  # voided: left out
            raise RuntimeError(f"stats did not tally the generated ledger: {report['entries']} entries")
        # The same command with nothing to tally: start-up, scipy.stats and the scan alone.
        idle = self.run(self.cli(self.big_db, "stats", "--kind", "seal", "--json"), rss=True)
        stats, history = _median_run(stats_runs), _median_run(history_runs)
        ratio = stats.wall / history.wall
        mb = stats.max_rss_kb / 1024
        self.rows.append(
            Row(
                "stats",
                "luck statistics",
                f"`stats --json` over {n:,} entries (whole command, median of {self.sizes.repeat}; {rng['dice']:,} "
                f"OS dice tallied, {report['tests']} tests)",
                f"{stats.wall:.1f} s, peak RSS {mb:.0f} MB",
                f"{history.wall:.1f} s (`history --all --json`, same database)",
                ratio,
                "<= 2.0x, < 150 MB",
                ratio <= 2.0 and mb < 150,
                [
                    f"CPU time (user+sys, median): {stats.cpu:.1f} s vs {history.cpu:.1f} s",
                    f"with nothing to tally (`stats --kind seal`, an index range of no rows): {idle.wall:.1f} s, "
                    f"peak RSS {idle.max_rss_kb / 1024:.0f} MB; `history --all --json` peaks at "
                    f"{history.max_rss_kb / 1024:.0f} MB",
                ],
            )
        )

    def row_web_history(self) -> None:
        """The web history page (`campaign serve`) at 1,000,000 entries against the
        same page at 1,000, in one process through Starlette's TestClient, requests to the
        two apps interleaved so load from elsewhere hits both alike."""
        n, runs = self.sizes.big, max(20, self.sizes.latency_runs * 2)
        targets = [
            [str(self.big_db), "Long Campaign", "/history"],
            [str(self.latency_db), "Night Parade", "/history"],
            [str(self.big_db), "Long Campaign", f"/history?before={n // 2}"],
            [str(self.big_db), "Long Campaign", f"/history?char={generate.QUERY_CHARACTER}&kind=fright"],
            [str(self.big_db), "Long Campaign", f"/entries/{n // 2}"],
            [str(self.big_db), "Long Campaign", "/static/style.css"],
            [str(self.big_db), "Long Campaign", "/luck"],
        ]
        done = subprocess.run(
            [self.python, "-c", WEB_BENCH, str(runs), json.dumps(targets)], capture_output=True, text=True, env=self.env
        )
        if done.returncode != 0:
            raise RuntimeError(f"the web history bench failed: {done.stderr.strip()[-2000:]}")
        big, small, deep, filtered, entry, floor, luck = json.loads(done.stdout)
        self.rows.append(
            Row(
                "web_history",
                "history page p50",
                f"`GET /history` of `campaign serve` (first page) on {n:,} entries, Starlette TestClient in one "
                f"process, median of {runs}",
                f"{big * 1000:.1f} ms",
                f"{small * 1000:.1f} ms (same page, {self.sizes.small:,} entries)",
                big / small,
                "< 50 ms",
                big < 0.050,
                [
                    f"same database: an older page (`?before={n // 2:,}`) {deep * 1000:.1f} ms, filtered "
                    f"(`?char={generate.QUERY_CHARACTER}&kind=fright`) {filtered * 1000:.1f} ms, an entry page "
                    f"(`/entries/{n // 2}`) {entry * 1000:.1f} ms (medians)",
                    f"request floor (a static file through the same TestClient): {floor * 1000:.1f} ms",
                ],
            )
        )
        self.rows.append(
            Row(
                "web_luck",
                "luck page p50",
                f"`GET /luck` on {n:,} entries from the tally the server keeps (services.ledger.luck_kept; "
                f"its first tally is "
                f"made in the warm-up), median of {runs}, interleaved with the history pages",
                f"{luck * 1000:.1f} ms",
                f"{big * 1000:.1f} ms (the history page above)",
                luck / big,
                "<= 2.0x",
                luck <= 2.0 * big,
            )
        )

    def row_shell(self) -> None:
        """N rolls typed into one `campaign shell` (a script on stdin) against the same N
        rolls run one process each; every roll writes its ledger entry. The shell times
        each command itself (hidden --timings), so the per-roll figure excludes start-up.
        Two sessions, one before and one after the single-process runs, share the drift."""
        n = self.sizes.shell_rolls
        db = self.dir / "shell.db"
        self.run(self.cli(db, "init", "Shell Bench"))
        script = self.dir / "shell-rolls.txt"
        script.write_text("roll 3D6<=12 the shell row\n" * n, encoding="utf-8")
        sessions, per_roll, cpu_per_roll = [], [], []

        def session(index: int) -> None:
            timings = self.dir / f"shell-timings-{index}.txt"
            with open(script, "rb") as stdin:
                sessions.append(self.run(self.cli(db, "shell", "--timings", str(timings)), stdin=stdin))
            got = [[float(x) for x in line.split()] for line in timings.read_text().splitlines()]
            if len(got) != n:
                raise RuntimeError(f"the shell timed {len(got)} commands, not {n}")
            per_roll.extend(wall for wall, _ in got)
            cpu_per_roll.extend(cpu for _, cpu in got)

        session(0)
        singles = [self.run(self.cli(db, "roll", "3D6<=12", "the", "shell", "row")) for _ in range(n)]
        session(1)
        entries = self.verified(db, "shell")
        if entries["entries"] != 1 + 3 * n:
            raise RuntimeError(f"the shell row's ledger does not verify: {entries}")
        shell_rate = n / statistics.median(run.wall for run in sessions)
        single_rate = n / sum(run.wall for run in singles)
        median = statistics.median(per_roll)
        self.rows.append(
            Row(
                "shell",
                "shell: roll with write",
                f"{n} x `roll 3D6<=12` typed into one `campaign shell` (stdin script, whole session including "
                f"start-up, median of 2 sessions) vs the same {n} rolls one process each; every roll appends its "
                "ledger entry",
                f"{shell_rate:,.0f} commands/s, median {median:.2f} ms per roll inside the shell "
                f"({statistics.median(cpu_per_roll):.2f} ms CPU)",
                f"{single_rate:,.1f} commands/s (one `campaign roll` process per roll)",
                shell_rate / single_rate,
                "< 5 ms median per roll",
                median < 5.0,
                [
                    f"per roll inside the shell (perf_counter around each command, {len(per_roll)} rolls): median "
                    f"{median:.2f} ms, 90th percentile {sorted(per_roll)[int(len(per_roll) * 0.9)]:.2f} ms; whole "
                    f"sessions {', '.join(f'{run.wall:.2f} s' for run in sessions)}; CPU of a session (user+sys) "
                    f"{statistics.median(run.cpu for run in sessions):.2f} s; one-process rolls: median "
                    f"{statistics.median(run.wall for run in singles) * 1000:.0f} ms each",
                    f"load average when the row ended (1/5/15 min): {_load()}",
                ],
            )
        )

    def row_bcdice(self) -> None:
        """A dice bot's roll through the BCDice-API route against the same roll
        as the shell runs it (the roll service, no process start-up), in one process,
        interleaved; the route's own cost is the token lookup, the pattern and the answer."""
        n = self.sizes.shell_rolls
        db = self.dir / "bcdice.db"
        self.run(self.cli(db, "init", "BCDice Bench"))
        made = subprocess.run(
            self.cli(db, "invite", "bench-bot", "--bcdice", "--json"),
            capture_output=True,
            text=True,
            env=self.env,
            check=True,
        )
        done = subprocess.run(
            [self.python, "-c", BCDICE_BENCH, str(db), json.loads(made.stdout)["base_path"], str(n)],
            capture_output=True,
            text=True,
            env=self.env,
        )
        if done.returncode != 0:
            raise RuntimeError(f"the BCDice-API bench failed: {done.stderr.strip()[-2000:]}")
        api, shell = json.loads(done.stdout)
        self.rows.append(
            Row(
                "bcdice",
                "BCDice-API roll",
                f"{n} x `GET /bcdice/<token>/v2/game_system/GURPS/roll?command=3D6<=12` (Starlette TestClient, one "
                f"process; each appends its entry) vs {n} x the shell's `roll 3D6<=12` (the roll service), interleaved",
                f"{api * 1000:.2f} ms median",
                f"{shell * 1000:.2f} ms median (shell roll)",
                api / shell,
                "< 50 ms median",
                api < 0.050,
                ["over real TCP add uvicorn's request cost (the same for every route of `campaign serve`)"],
            )
        )

    def row_table_load(self) -> None:
        """Issue 29's table server under load (tests.perf.table_load): 5 campaigns x 4 players
        each rolling once a second through `POST /api/rolls` for 60 s against one uvicorn
        server, a feed client per campaign; latency as a ratio to a `campaign shell` roll
        measured in the same run, on the same database."""
        from tests.perf.table_load import run_load

        seconds = 20.0 if self.quick else 60.0
        work = self.dir / "table-load"
        work.mkdir(exist_ok=True)
        result = run_load(5, 4, seconds, work)
        got = result.summary()
        ok = not result.errors and result.lost == 0 and result.undelivered == 0
        self.rows.append(
            Row(
                "table_load",
                "table server under load",
                f"5 campaigns x 4 players, each rolling `3D6<=12` once a second through `POST /api/rolls` for "
                f"{seconds:.0f} s against one uvicorn server (its own process, one SQLite database), "
                f"one SSE feed client per campaign; {got['rolls']:,} rolls",
                f"p50 {got['p50_ms']:.1f} ms, p95 {got['p95_ms']:.1f} ms; {got['errors']} errors, {got['lost']} lost; "
                f"SSE delivery p95 {got['sse_p95_ms']:.0f} ms",
                f"{got['shell_ms']:.2f} ms (median {SHELL_ROLL} inside `campaign shell`, same database, "
                "after the load)",
                got["p50_ratio"],
                "0 errors, 0 lost, every event delivered (no latency target: the 3x one is table_players')",
                ok,
                [
                    f"p95 roll latency {got['p95_ratio']:.1f}x the shell roll; entries never delivered to the feed: "
                    f"{got['undelivered']}; first errors: {result.errors[:3] or 'none'}",
                    f"load average when the row ended (1/5/15 min): {_load()}",
                ],
            )
        )

    def row_table_many(self) -> None:
        """`campaign serve --all` (tests.perf.table_load.run_load_all): one server process
        over one database of many campaigns, players of 50 of them rolling once a second,
        one open page each; on PostgreSQL when a throwaway cluster can start, else SQLite."""
        from tests.perf.table_load import run_load_all

        campaigns, active, players = (200, 10, 2) if self.quick else (1000, 50, 2)
        seconds = 20.0 if self.quick else 60.0
        work = self.dir / "table-many"
        work.mkdir(exist_ok=True)
        try:
            many = run_load_all(campaigns, active, players, seconds, work, backend="postgres")
            backend = "PostgreSQL"
        except Exception as exc:  # no PostgreSQL here: the same row on one SQLite file
            print(f"table_many: PostgreSQL unavailable ({exc}); SQLite instead", flush=True)
            many = run_load_all(campaigns, active, players, seconds, work, backend="sqlite")
            backend = "SQLite"
        got = many.load.summary()
        ok = not many.load.errors and many.load.lost == 0 and (many.connections <= 16)
        self.rows.append(
            Row(
                "table_many",
                "many campaigns, one server",
                f"`campaign serve --all` over one {backend} database of {campaigns:,} campaigns; {players} players "
                f"in each of {active} of them ({active * players} players) rolling `3D6<=12` once a second for "
                f"{seconds:.0f} s, one SSE page per active campaign; {got['rolls']:,} rolls",
                f"p50 {got['p50_ms']:.0f} ms, p95 {got['p95_ms']:.0f} ms, p99 {got['p99_ms']:.0f} ms; "
                f"{got['errors']} errors, {got['lost']} lost; SSE p95 {got['sse_p95_ms']:.0f} ms; "
                f"server RSS {many.rss_mb:.0f} MB",
                f"{got['shell_ms']:.2f} ms (median {SHELL_ROLL} inside `campaign shell`, same database)",
                got["p95_to_shell_p95"],
                "0 errors, 0 lost; at most 16 database connections",
                ok,
                [
                    f"database connections held by the server: "
                    f"{many.connections if many.connections >= 0 else 'n/a (SQLite)'}; "
                    f"making the {campaigns:,} campaigns and their seats: {many.setup_seconds:.0f} s; "
                    f"entries never delivered to a page: {got['undelivered']}",
                    f"load average when the row ended (1/5/15 min): {_load()}",
                ],
            )
        )

    def row_table_proxied(self) -> None:
        """Two `campaign serve --all` processes on one PostgreSQL database behind Debian's
        nginx with docs/hosting.md's site (tests.perf.table_load.run_load_proxied): players
        across many campaigns rolling over HTTPS through nginx, pages straight on each
        process. Sizes: the issue's (1,000 campaigns, 200 players across 50, 60 s), or
        BENCH_PROXIED="campaigns,active,players,seconds"."""
        from tests.perf.table_load import run_load_proxied

        campaigns, active, players, seconds = proxied_sizes(self.quick)
        work = self.dir / "table-proxied"
        work.mkdir(exist_ok=True)
        got_all = run_load_proxied(campaigns, active, players, seconds, work, watched=3)
        result = got_all.load
        if result.errors:  # the table prints counts only: say what went wrong here
            print(f"table_proxied: {len(result.errors)} errors, the first: {result.errors[:3]}", flush=True)
        got = result.summary()
        rss = " and ".join(f"{mb:.0f}" for mb in got_all.rss_mb)
        self.rows.append(
            Row(
                "table_proxied",
                "2 servers behind nginx",
                f"1 PostgreSQL database of {campaigns:,} campaigns; {players} signed-in players across {active} of "
                f"them rolling `3D6<=12` once a second for {seconds:.0f} s over HTTPS through nginx (round-robin) "
                f"to 2 `campaign serve --all` processes; {got_all.pages} pages on 3 campaigns, half straight on "
                f"each process; {got['rolls']:,} rolls",
                f"p50 {got['p50_ms']:.0f} ms, p95 {got['p95_ms']:.0f} ms, p99 {got['p99_ms']:.0f} ms; "
                f"{got['errors']} errors, {got['lost']} lost; feed p95 {got['sse_p95_ms']:.0f} ms; "
                f"server RSS {rss} MB",
                f"{got['shell_p95_ms']:.2f} ms (p95 of {SHELL_ROLL} inside `campaign shell`, same database, "
                "after the load)",
                got["p95_to_shell_p95"],
                "0 errors, 0 lost, every entry on every page",
                not result.errors and result.lost == 0 and result.undelivered == 0,
                [
                    f"entries never delivered to a page: {got['undelivered']}; database connections of both "
                    f"servers: {got_all.connections}; making the campaigns and seats: {got_all.setup_seconds:.0f} s; "
                    f"first errors: {result.errors[:3] or 'none'}",
                    f"load average when the row ended (1/5/15 min): {_load()}",
                ],
            )
        )

    def row_receipts(self) -> None:
        """The table page's receipts check (static/receipts.js) over 1,000 receipts in
        Chromium (tests.perf.receipts_page), against the bare crypto.subtle HMACs it needs."""
        from tests.perf.receipts_page import measure

        got = measure(self.dir, runs=3 if self.quick else 7)
        self.rows.append(
            Row(
                "receipts",
                "page checks 1,000 receipts",
                f"`fairReceipts.check` in Debian's Chromium over {got['count']:,} receipts of one 3D6 success roll "
                f"each (v2 dice derived, totals and outcomes recomputed, {got['hmacs']:,} HMAC-SHA-256), "
                f"crypto.subtle, median of {got['runs']}",
                f"{got['subtle'] * 1000:.0f} ms",
                f"{got['floor'] * 1000:.0f} ms (the same HMACs through crypto.subtle alone, same page)",
                got["subtle"] / got["floor"],
                "< 1 s",
                bool(got["ok"]) and got["subtle"] < 1.0,
                [f"the bundled sha256.js (a plain http:// page has no crypto.subtle): {got['bundled'] * 1000:.0f} ms"],
            )
        )

    def row_table_players(self) -> None:
        """One campaign, 20 players rolling at once through `campaign serve` (its own
        process, SQLite), 20 open table pages on the feed: a player's roll against a
        `campaign shell` roll of the same run (p95 against p95), and the feed's delivery to
        the 20 pages (tests.perf.table_load)."""
        from tests.perf.table_load import run_load

        seconds = 20.0 if self.quick else 60.0
        work = self.dir / "table-players"
        work.mkdir(exist_ok=True)
        result = run_load(1, 20, seconds, work, pages=20)
        got = result.summary()
        clean = not result.errors and result.lost == 0 and result.undelivered == 0
        lost = f"{got['errors']} errors, {got['lost']} lost, {got['undelivered']} never on a page"
        self.rows.append(
            Row(
                "table_players",
                "table server: 20 players",
                f"1 campaign, 20 players each rolling `3D6<=12` once a second through `POST /api/rolls` of "
                f"`campaign serve` for {seconds:.0f} s, 20 open pages on the feed; {got['rolls']:,} rolls",
                f"p50 {got['p50_ms']:.1f} ms, p95 {got['p95_ms']:.1f} ms, p99 {got['p99_ms']:.1f} ms; {lost}",
                f"{got['shell_p95_ms']:.2f} ms (p95 of {SHELL_ROLL} inside `campaign shell`, same database, "
                "after the load)",
                got["p95_to_shell_p95"],
                "<= 3.0x, 0 errors, 0 lost",
                clean and got["p95_to_shell_p95"] <= 3.0,
                [
                    f"shell roll median {got['shell_ms']:.2f} ms; p50 {got['p50_ratio']:.1f}x the shell's median",
                    f"load average when the row ended (1/5/15 min): {_load()}",
                ],
            )
        )
        self.rows.append(
            Row(
                "table_feed",
                "live feed: 20 pages",
                "the same run: from a roll's POST being sent to its entry event on each of the 20 pages "
                f"({len(result.deliveries):,} deliveries), every page's entries in order with no gap",
                f"p95 {got['sse_p95_ms']:.0f} ms",
                "—",
                None,
                "p95 < 250 ms, every entry on every page",
                clean and got["sse_p95_ms"] < 250,
            )
        )

    def row_table_players_pg(self) -> None:
        """100 players across 10 campaigns of one PostgreSQL database, rolling at once
        through one `campaign serve --all` (tests.perf.table_load.run_load_all), one open
        page per campaign: a player's roll against the same roll typed into `campaign
        shell` on that database (p95 against p95)."""
        from tests.perf.table_load import run_load_all

        seconds = 20.0 if self.quick else 60.0
        work = self.dir / "table-players-pg"
        work.mkdir(exist_ok=True)
        many = run_load_all(10, 10, 10, seconds, work, backend="postgres")
        result = many.load
        got = result.summary()
        clean = not result.errors and result.lost == 0 and result.undelivered == 0
        self.rows.append(
            Row(
                "table_players_pg",
                "table server: 100 players, PostgreSQL",
                f"10 campaigns x 10 players of one PostgreSQL database, each rolling `3D6<=12` once a second "
                f"through `campaign serve --all` for {seconds:.0f} s, one open page per campaign; "
                f"{got['rolls']:,} rolls",
                f"p50 {got['p50_ms']:.1f} ms, p95 {got['p95_ms']:.1f} ms, p99 {got['p99_ms']:.1f} ms; "
                f"{got['errors']} errors, {got['lost']} lost, {got['undelivered']} never on a page; "
                f"feed p95 {got['sse_p95_ms']:.0f} ms",
                f"{got['shell_p95_ms']:.2f} ms (p95 of {SHELL_ROLL} inside `campaign shell`, same database, "
                "after the load)",
                got["p95_to_shell_p95"],
                "<= 3.0x, 0 errors, 0 lost",
                clean and got["p95_to_shell_p95"] <= 3.0,
                [
                    f"shell roll median {got['shell_ms']:.2f} ms; server RSS {many.rss_mb:.0f} MB; database "
                    f"connections held by the server: {many.connections}; first errors: {result.errors[:3] or 'none'}",
                    f"load average when the row ended (1/5/15 min): {_load()}",
                ],
            )
        )

    def row_luck_first(self) -> None:
        """The first luck page after `campaign serve` starts (its tally warmed in the
        background as it starts) against the first history page of the same start, on
        the big database; a player's first page comes ARRIVAL seconds after the start."""
        import httpx

        arrival, runs = 10.0, 3
        luck, history = [], []
        for _ in range(runs):
            server = subprocess.Popen(
                self.cli(self.big_db, "serve", "--port", "0"),
                env=self.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            try:
                assert server.stdout is not None
                base = server.stdout.readline().strip()
                time.sleep(arrival)
                with httpx.Client(base_url=base, timeout=120) as http:
                    for path, times in (("history", history), ("luck", luck)):
                        start = time.perf_counter()
                        assert http.get(path).status_code == 200
                        times.append(time.perf_counter() - start)
            finally:
                server.terminate()
                server.wait(30)
        first, page = statistics.median(luck), statistics.median(history)
        self.rows.append(
            Row(
                "luck_first",
                "first luck page after start",
                f"`GET /luck` over real TCP, the first of a `campaign serve` started {arrival:.0f} s before on "
                f"{self.sizes.big:,} entries (median of {runs} starts)",
                f"{first * 1000:.0f} ms",
                f"{page * 1000:.0f} ms (the first `GET /history` of the same start)",
                first / page,
                "<= 2.0x",
                first <= 2.0 * page,
            )
        )

    def row_write_cost(self) -> None:
        """What one write costs inside `campaign shell` (no start-up): `roll`, `fright` and
        `scenario end`, each against a read typed into the same session (`history --limit
        1 --json`), so the write path's own cost reads as a ratio; the one-write-path refactor
        compares these rows before and after. Rounds of commands are
        interleaved with the reads, so load from elsewhere hits both alike. The campaign is
        lived in first (traits on the sheets, earlier scenarios with conditions left by
        failed fright checks), since a write path that reads the whole state slows as a
        campaign ages and one that reads the rows it touches does not."""
        rounds = max(10, self.sizes.shell_rolls // 4)
        db = self.dir / "write.db"
        for argv in (
            ["init", "Write Bench"],
            ["player", "add", "Aki"],
            ["player", "add", "Ren"],
            ["char", "add", "鈴音", "--player", "Aki", "--stat", "Will=11", "--stat", "HT=11", "--cp", "100"],
            ["char", "add", "刀矢", "--player", "Ren", "--stat", "Will=13", "--stat", "HT=12", "--cp", "100"],
        ):
            self.run(self.cli(db, *argv))
        # Each round: a roll, a fright check that passes, one that fails into the table
        # (a condition on the sheet), and a scenario's end with its awards.
        block = [
            ("start", "scenario start 第{i}話 --with 鈴音 --with 刀矢"),
            ("read", "history --limit 1 --json"),
            ("roll", "roll 3D6<=12 write row"),
            ("read", "history --limit 1 --json"),
            ("fright", "fright 鈴音 --dice 3,3,3"),
            ("read", "history --limit 1 --json"),
            ("fright", "fright 刀矢 --dice 6,5,4,1,3,3"),
            ("read", "history --limit 1 --json"),
            ("end", "scenario end --award 1"),
            ("read", "history --limit 1 --json"),
        ]
        lived = [("setup", f"trait add {pc} 特徴{k} --cp {5 - k}") for pc in ("鈴音", "刀矢") for k in range(12)]
        for i in range(20):
            lived += [
                ("setup", f"scenario start 前日譚{i} --with 鈴音 --with 刀矢"),
                ("setup", "fright 刀矢 --dice 6,5,4,1,3,3"),
                ("setup", "roll 3D6<=12 --char 鈴音 --dice 3,4,5"),
                ("setup", "scenario end"),
            ]
        script = self.dir / "write-script.txt"
        lines = lived + [(kind, text.format(i=i)) for i in range(rounds + 2) for kind, text in block]
        script.write_text("".join(text + "\n" for _, text in lines), encoding="utf-8")
        timings = self.dir / "write-timings.txt"
        with open(script, "rb") as stdin:
            self.run(self.cli(db, "shell", "--timings", str(timings)), stdin=stdin)
        walls = [float(line.split()[0]) for line in timings.read_text().splitlines()]
        if len(walls) != len(lines):
            raise RuntimeError(f"the shell timed {len(walls)} commands, not {len(lines)}")
        got: dict[str, list[float]] = {}
        for (kind, _), wall in list(zip(lines, walls))[len(lived) + 2 * len(block) :]:  # two rounds warm up
            got.setdefault(kind, []).append(wall)
        self.verified(db, "write")
        read = statistics.median(got["read"])
        for kind, what, command in (
            ("roll", "write cost: roll", "`roll 3D6<=12` (one entry)"),
            ("fright", "write cost: fright", "`fright` (half pass, half fail into the table and a condition)"),
            ("end", "write cost: scenario end", "`scenario end --award 1` (two PCs)"),
        ):
            median = statistics.median(got[kind])
            self.rows.append(
                Row(
                    f"write_{kind}",
                    what,
                    f"{command} typed into one `campaign shell`, median of {len(got[kind])} after 2 warm-up rounds",
                    f"{median:.2f} ms",
                    f"{read:.2f} ms (`history --limit 1 --json` in the same session)",
                    median / read,
                    "— (before/after figure)",
                    True,
                    [f"90th percentile {sorted(got[kind])[int(len(got[kind]) * 0.9)]:.2f} ms"],
                )
            )

    # --- what dominates --------------------------------------------------------------

    def profile(self) -> None:
        """Evidence for the notes: import time beyond the baseline, phases, hot functions."""
        ev = self.evidence
        ev["imports-roll"] = _import_summary(self, self.cli(self.latency_db, "roll", "3D6"))
        ev["imports-read"] = _import_summary(self, self.cli(self.latency_db, "history", "--limit", "20", "--json"))
        ev["phases-roll"] = _phases(self, ["--db", str(self.latency_db), "roll", "3D6"])
        ev["phases-read"] = _phases(self, ["--db", str(self.latency_db), "history", "--limit", "20", "--json"])
        one = ["--db", str(self.multi_db), "-c", self.query_campaign, "--"]
        big = ["--db", str(self.big_db), "--"]
        entries = self.sizes.per_campaign
        ev["profile-verify"] = _verify_breakdown(self.big_db)
        ev["profile-history"] = _cprofile(
            self,
            [*big, "history", "--limit", str(entries), "--json"],
            f"history --limit {entries:,} --json (after a warm-up run)",
        )
        ev["profile-export"] = _cprofile(
            self,
            [*one, "export", str(self.dir / "profile.jsonl")],
            f"export of {entries:,} entries (after a warm-up run)",
        )
        ev["plan-scale"] = _query_plan(self.multi_db, self.query_campaign)
        ev["profile-stats"] = _cprofile(
            self, [*one, "stats", "--json"], f"stats --json over {entries:,} entries (after a warm-up run)"
        )


# --- baselines and helpers ---------------------------------------------------------------


# Times GET requests to `campaign serve` apps in this one process (argv: runs, targets as
# JSON [[db, campaign, path], ...]); prints the median seconds of each target.
WEB_BENCH = """
import contextlib, json, statistics, sys, time
from starlette.testclient import TestClient
from campaign.web.app import create_app
runs, targets = int(sys.argv[1]), json.loads(sys.argv[2])
with contextlib.ExitStack() as stack:
    apps = {}
    for db, name, _ in targets:
        if (db, name) not in apps:
            apps[db, name] = stack.enter_context(TestClient(create_app(db, name, None, hosts=("testserver",))))
    clients = [apps[db, name] for db, name, _ in targets]
    for client, (_, _, path) in zip(clients, targets):
        for _ in range(3):
            response = client.get(path)
            assert response.status_code == 200, (path, response.status_code, response.text[:500])
    times = [[] for _ in targets]
    for i in range(runs):
        order = list(range(len(targets)))
        for k in (order if i % 2 == 0 else order[::-1]):
            start = time.perf_counter()
            response = clients[k].get(targets[k][2])
            times[k].append(time.perf_counter() - start)
            assert response.status_code == 200
print(json.dumps([statistics.median(t) for t in times]))
"""

# Times BCDice-API rolls and shell-style rolls in this one process (argv: db, base path, n);
# prints [median API roll seconds, median service roll seconds].
BCDICE_BENCH = """
import json, statistics, sys, time, warnings
warnings.simplefilter("ignore")
import campaign.web.routes_bcdice as routes
routes.BURST, routes.RATE = 10**6, 10**6
from starlette.testclient import TestClient
from campaign.core.dice_source import SystemDice
from campaign.db.database import Database
from campaign.services.checks.rolls import roll
from campaign.web.app import create_app
db_path, base, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
client = TestClient(create_app(db_path, None), base_url="http://127.0.0.1")
db = Database(db_path)
api, shell = [], []
for i in range(n + 5):
    start = time.perf_counter()
    answer = client.get(base + "v2/game_system/GURPS/roll", params={"command": "3D6<=12"})
    took = time.perf_counter() - start
    assert answer.status_code == 200 and answer.json()["ok"] is True, answer.text
    start = time.perf_counter()
    roll(db, None, "GM", "3D6<=12", SystemDice())
    if i >= 5:
        api.append(took)
        shell.append(time.perf_counter() - start)
print(json.dumps([statistics.median(api), statistics.median(shell)]))
"""


def cached_database(campaigns: list[tuple[str, int]], target: Path) -> bool:
    """Copy the database of these generated campaigns (name, entries) to `target`, from
    build/bench-cache, building it there first when it is missing (True then). The key is
    the generator's version (its source), the schema revision and the contents, so a
    change to any of them builds afresh; `make clean` empties the cache."""
    from campaign.db.migrate import HEAD_REVISION

    key = hashlib.sha256(json.dumps([generate.VERSION, HEAD_REVISION, campaigns]).encode()).hexdigest()[:16]
    cached = CACHE / f"{key}.db"
    built = not cached.exists()
    if built:
        CACHE.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(".partial")
        for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
        generate.build_database(partial, campaigns)
        conn = sqlite3.connect(partial)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        Path(f"{partial}-wal").unlink(missing_ok=True)
        partial.rename(cached)
    shutil.copyfile(cached, target)
    return built


def proxied_sizes(quick: bool) -> tuple[int, int, int, float]:
    """(campaigns, active campaigns, players, seconds) of the table_proxied row: the
    issue's, smaller with --quick, or BENCH_PROXIED="campaigns,active,players,seconds"."""
    given = os.environ.get("BENCH_PROXIED")
    if not given:
        return (100, 10, 40, 20.0) if quick else (1000, 50, 200, 60.0)
    try:
        campaigns, active, players, seconds = given.split(",")
        return int(campaigns), int(active), int(players), float(seconds)
    except ValueError:
        raise SystemExit(
            f"BENCH_PROXIED={given!r}: expected campaigns,active,players,seconds (e.g. 1000,50,200,60)"
        ) from None


def _median_run(runs: list[Run]) -> Run:
    ordered = sorted(runs, key=lambda r: r.wall)
    middle = ordered[len(ordered) // 2]
    return Run(
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        max(r.max_rss_kb for r in runs),
        middle.returncode,
        middle.stderr,
    )


def _hash_baseline(db: Path) -> tuple[float, float]:
    """Seconds (wall, CPU) to SHA-256 every entry's canonical bytes (prev_hash + record), in a loop.

    The bytes are read and encoded outside the clock, batch by batch, so only hashing
    is timed; memory stays flat.
    """
    sha256 = hashlib.sha256
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        cursor = conn.execute("SELECT prev_hash, record FROM ledger ORDER BY campaign_id, seq")
        total = cpu = 0.0
        while True:
            rows = cursor.fetchmany(20_000)
            if not rows:
                break
            data = [(prev + record).encode() for prev, record in rows]
            start, start_cpu = time.perf_counter(), time.process_time()
            for item in data:
                sha256(item).hexdigest()
            total += time.perf_counter() - start
            cpu += time.process_time() - start_cpu
        return total, cpu
    finally:
        conn.close()


def _ensure_d20():
    try:
        import d20
    except ImportError:
        print("installing d20 (benchmark only, not a project dependency)", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "d20"], check=True)
        import d20
    return d20


def _d20_version() -> str:
    from importlib.metadata import version

    return version("d20")


def _dice_times(loops: int = 400, repeats: int = 7) -> tuple[float, float]:
    """Seconds per expression (median of interleaved repeats): ours, d20's."""
    import random

    d20 = _ensure_d20()
    from campaign.core.dice import evaluate
    from campaign.core.dice_source import SeededDice

    source = SeededDice(20261129)  # a random.Random underneath
    random.seed(20261129)  # d20 draws from the module-level random.Random

    def ours():
        for _ in range(loops):
            for text in DICE_EXPRESSIONS:
                evaluate(text, source)

    def theirs():
        for _ in range(loops):
            for text in DICE_EXPRESSIONS:
                d20.roll(text)

    ours(), theirs()  # warm both parse caches
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    for _ in range(repeats):
        for name, fn in (("ours", ours), ("theirs", theirs)):
            start = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - start) / (loops * len(DICE_EXPRESSIONS)))
    return statistics.median(times["ours"]), statistics.median(times["theirs"])


RUNNER = r"""
import json, os, subprocess, sys, time
report, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
proc = subprocess.Popen(argv)
_, status, usage = os.wait4(proc.pid, 0)
wall = time.perf_counter() - start
with open(report, "w") as out:
    json.dump({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "max_rss_kb": usage.ru_maxrss,
               "returncode": os.waitstatus_to_exitcode(status)}, out)
"""

RAW_INSERT = r"""
import json, sqlite3, sys, time
db, export = sys.argv[1], sys.argv[2]
rows = []
with open(export, encoding="utf-8") as lines:
    for line in lines:
        item = json.loads(line)
        if item["type"] != "entry":
            continue
        r = json.loads(item["record"])
        rows.append((1, r["seq"], r["at"], r["actor"], r["kind"], r["character"], r["scenario"], r["outcome"],
                     r["parent_seq"], r["voids_seq"], item["record"], item["prev_hash"], item["hash"]))
# The floor for bulk append: plain sqlite3, one executemany, one transaction, same schema.
conn = sqlite3.connect(db, isolation_level=None)
conn.execute("PRAGMA journal_mode=WAL")
conn.execute("PRAGMA synchronous=NORMAL")
conn.execute("PRAGMA foreign_keys=ON")
conn.execute("INSERT INTO campaigns (id, name, ruleset, settings, created_at) "
             "VALUES (1, 'Bulk Import', 'gurps3-ja', '{}', '2024-04-01T19:00:00.000000Z')")
start = time.perf_counter()
conn.execute("BEGIN IMMEDIATE")
conn.executemany(
    "INSERT INTO ledger (campaign_id, seq, at, actor, kind, character, scenario, outcome, parent_seq, "
    "voids_seq, record, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
conn.execute("COMMIT")
print(time.perf_counter() - start)
conn.close()
"""


def _import_summary(bench: Bench, argv: list[str], top: int = 10) -> list[str]:
    """Modules a command imports beyond the baseline's, by own import time (python -X importtime)."""

    def modules(cmd):
        result = subprocess.run([bench.python, "-X", "importtime", *cmd], capture_output=True, text=True, env=bench.env)
        found = {}
        for line in result.stderr.splitlines():
            if not line.startswith("import time:") or "|" not in line:
                continue
            parts = line[len("import time:") :].split("|")
            try:
                found[parts[2].strip()] = int(parts[0])
            except ValueError:
                continue
        return found

    base = modules(["-c", BASELINE_IMPORTS])
    rest = argv[len(bench.campaign) :]
    script = bench.campaign[0] if len(bench.campaign) == 1 else None
    cmd = [script, *rest] if script else ["-c", "from campaign.cli.app import main; main()", *rest]
    extra = {name: us for name, us in modules(cmd).items() if name not in base}
    total = sum(extra.values()) / 1000
    lines = [f"{len(extra)} modules beyond the baseline's, {total:.1f} ms of import time in all; largest by own time:"]
    lines += [f"  {us / 1000:6.1f} ms  {name}" for name, us in sorted(extra.items(), key=lambda kv: -kv[1])[:top]]
    return lines


PHASES_SCRIPT = r"""
import sys, time
t0 = time.perf_counter()
import typer, rich, sqlalchemy.orm
t1 = time.perf_counter()
import campaign.cli.app as app
t2 = time.perf_counter()
import typer.main
command = typer.main.get_command(app.app)
t3 = time.perf_counter()
import atexit, os
def report():
    t4 = time.perf_counter()
    os.write(2, ("PHASES %.1f %.1f %.1f %.1f\n" % ((t1-t0)*1e3, (t2-t1)*1e3, (t3-t2)*1e3, (t4-t3)*1e3)).encode())
atexit.register(report)
command(sys.argv[1:], prog_name="campaign")
"""


def _phases(bench: Bench, args: list[str], runs: int = 7) -> list[str]:
    got = []
    for _ in range(runs):
        result = subprocess.run(
            [bench.python, "-c", PHASES_SCRIPT, *args], capture_output=True, text=True, env=bench.env
        )
        for line in result.stderr.splitlines():
            if line.startswith("PHASES"):
                got.append([float(x) for x in line.split()[1:]])
    if not got:
        return ["(phases not measured)"]
    med = [statistics.median(col) for col in zip(*got)]
    return [
        f"in-process phases (median of {len(got)}): baseline imports {med[0]:.1f} ms, "
        f"campaign.cli.app import {med[1]:.1f} ms, click command tree {med[2]:.1f} ms, "
        f"the command itself {med[3]:.1f} ms"
    ]


PROFILE_SCRIPT = r"""
import cProfile, pstats, sys, io
import typer, rich, sqlalchemy.orm
from campaign.cli.app import main
args = sys.argv[1:]
sys.argv = ["campaign", *args[:args.index("--")], "history", "--limit", "1", "--json"]
try:  # warm up: imports and first queries are the latency rows' business, not this profile's
    main()
except SystemExit:
    pass
profile = cProfile.Profile()
sys.argv = ["campaign", *args[:args.index("--")], *args[args.index("--") + 1:]]
profile.enable()
try:
    main()
except SystemExit:
    pass
profile.disable()
out = io.StringIO()
stats = pstats.Stats(profile, stream=out)
stats.sort_stats("tottime").print_stats(8)
sys.stderr.write("PROFILE\n" + out.getvalue())
"""


def _cprofile(bench: Bench, args: list[str], label: str) -> list[str]:
    result = subprocess.run(
        [bench.python, "-c", PROFILE_SCRIPT, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=bench.env,
    )
    text = result.stderr.split("PROFILE\n", 1)[-1]
    lines = [f"cProfile of {label} (top functions by own time):"]
    table = False
    for line in text.splitlines():
        if line.strip().startswith("ncalls"):
            table = True
            lines.append("  " + line.strip())
            continue
        if table and line.strip():
            lines.append("  " + _shorten(line.strip()))
    return lines


def _verify_breakdown(db: Path, rows: int = 1 << 16) -> list[str]:  # noqa: C901 - times each part of the scan inline
    """CPU per entry of the two scans (campaign.ledger_scan) and of the parts of the full
    one, over the first entries, in one process."""
    from campaign import ledger_scan
    from campaign.chain import GENESIS_HASH
    from campaign.ledger_shapes import readers

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        campaign_id, name = conn.execute("SELECT id, name FROM campaigns ORDER BY id LIMIT 1").fetchone()
        rows = min(
            rows, conn.execute("SELECT max(seq) FROM ledger WHERE campaign_id = ?", (campaign_id,)).fetchone()[0]
        )
        params = {"c": campaign_id, "n": rows, "name": name}
        query = (
            "SELECT rowid, prev_hash, hash, CAST(prev_hash || record AS BLOB), "
            + ", ".join(ledger_scan.INDEXED_FIELDS)
            + " FROM ledger WHERE campaign_id = :c AND seq BETWEEN 1 AND :n"
        )
        decode, encode, _, refused = ledger_scan._fast_reader()
        shaped = readers()

        def read_back(row) -> None:
            body = row[3][64:]
            try:
                encode(shaped[row[7]](body)) == body  # noqa: B015 - the comparison is the work timed
            except (KeyError, *refused):
                encode(decode(body)) == body  # noqa: B015 - the comparison is the work timed

        def each_row(work):
            def run():
                cursor = conn.execute(query, params)
                while batch := cursor.fetchmany(ledger_scan.BATCH):
                    for row in batch:
                        work(row)

            return run

        def whole_scan():
            def run():
                done = ledger_scan.scan(conn, campaign_id, name, 1, rows, GENESIS_HASH, None)
                if done.next_seq != rows + 1:
                    raise RuntimeError("the generated chain does not scan")

            return run

        payloads = [row[3] for row in conn.execute(query, params)]

        def hash_loop():
            for payload in payloads:
                hashlib.sha256(payload).hexdigest()

        def floor():
            """The least any scan keeping the record rule must do: read the bytes and the
            kind, hash them, read the record back (no link, column or loop bookkeeping)."""
            cursor = conn.execute(
                "SELECT CAST(prev_hash || record AS BLOB), hash, kind FROM ledger WHERE campaign_id = :c "
                "AND seq BETWEEN 1 AND :n",
                params,
            )
            while batch := cursor.fetchmany(ledger_scan.BATCH):
                for row in batch:
                    hashlib.sha256(row[0]).hexdigest()
                    read_back((None, None, None, row[0], None, None, None, row[2]))

        timings = {}
        for label, work in (
            ("the scan (ledger_scan.scan: links, hashes, the record rule and the columns)", whole_scan()),
            ("reading the rows alone (13 columns)", each_row(lambda row: None)),
            ("reading + SHA-256", each_row(lambda row: hashlib.sha256(row[3]).hexdigest())),
            ("reading + msgspec reading the record and writing it back", each_row(read_back)),
            (FLOOR, floor),
            (HASH_LOOP, hash_loop),
        ):
            best = None
            for _ in range(3):
                start = time.process_time()
                work()
                spent = time.process_time() - start
                best = spent if best is None else min(best, spent)
            timings[label] = best / rows * 1e6
    finally:
        conn.close()
    lines = [f"CPU per entry of the scans over entries 1..{rows:,} (best of 3):"]
    lines += [f"  {us:5.2f} µs  {label}" for label, us in timings.items()]
    lines.append(
        f"  so no scan that keeps the record rule can pass {timings[HASH_LOOP] / timings[FLOOR]:.2f}x of the hash "
        "loop by CPU, before start-up"
    )
    return lines


FLOOR = "the floor with the record rule: reading bytes and kind + SHA-256 + the record read back"
HASH_LOOP = "the baseline's hash loop alone (the bytes already in memory)"


def _shorten(line: str) -> str:
    for prefix in (str(REPO) + "/", sys.prefix + "/lib/python3.11/site-packages/", sys.base_prefix + "/lib/"):
        line = line.replace(prefix, "")
    return line


def _query_plan(db: Path, campaign: str) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        cid = conn.execute("SELECT id FROM campaigns WHERE name = ?", (campaign,)).fetchone()[0]
        plan = conn.execute(
            "EXPLAIN QUERY PLAN SELECT l.record, l.prev_hash, l.hash, v.seq FROM ledger l "
            "LEFT OUTER JOIN ledger v ON v.campaign_id = l.campaign_id AND v.voids_seq = l.seq AND v.kind = 'void' "
            "WHERE l.campaign_id = ? AND l.character = ? AND l.kind = ? ORDER BY l.seq DESC LIMIT 50",
            (cid, generate.QUERY_CHARACTER, "fright"),
        ).fetchall()
        return ["query plan of the history filter: " + "; ".join(row[-1] for row in plan)]
    finally:
        conn.close()


def _child_env(workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAMPAIGN")}
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[name] = str(workdir / name.lower())
    env["PYTHONHASHSEED"] = "0"
    return env


# The baseline of the verify_judged row: the CLI with services.fair.verify reading no
# rolls, so fair_check judges none (what verify cost before results were recomputed).
UNJUDGED = (
    "import sys; import campaign.services.fair.verify as v; v.JUDGED_KINDS = (); "
    "from campaign.cli.app import main; sys.argv[0] = 'campaign'; main()"
)


def _campaign_command() -> list[str]:
    script = Path(sys.executable).parent / "campaign"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from campaign.cli.app import main; main()"]


def _compile_bytecode() -> None:
    """Installed wheels ship compiled bytecode (pip compiles on install), and the
    libraries in the baseline have theirs; give the checkout the same footing, or
    PYTHONDONTWRITEBYTECODE would charge every run for compiling the project."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "campaign")], check=True, stdout=subprocess.DEVNULL
    )


# --- machine and report ------------------------------------------------------------------


def _load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def machine() -> list[tuple[str, str]]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "?"
    try:
        for line in open("/proc/meminfo", encoding="utf-8"):
            if line.startswith("MemTotal"):
                ram = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    from importlib.metadata import version

    libs = ", ".join(f"{name} {version(name)}" for name in ("typer", "rich", "SQLAlchemy"))
    load = _load()
    return [
        ("CPU", f"{cpu} ({platform.machine()})"),
        ("cores", str(os.cpu_count())),
        ("RAM", ram),
        ("OS", f"{platform.system()} {platform.release()}"),
        ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("SQLite", sqlite3.sqlite_version),
        ("libraries", libs),
        ("date", dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("load average at start (1/5/15 min)", load),
    ]


def text_table(rows: list[Row]) -> str:
    header = ("what", "figure", "baseline", "ratio", "target", "")
    body = [(r.what, r.figure, _clip(r.baseline, 60), r.ratio_text, r.target, "ok" if r.ok else "MISSED") for r in rows]
    widths = [max(len(str(x[i])) for x in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)) for row in body]
    return "\n".join(lines)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def markdown(rows: list[Row], bench: Bench, elapsed: float) -> str:
    """docs/performance.md: only what this run measured (the table, its notes, the
    evidence). Why each figure is what it is stays in docs/performance-notes.md, by hand."""
    out = [
        "# Performance",
        "",
        "Generated by `make bench` (`python -m tests.perf.run`"
        + (" --quick" if bench.quick else "")
        + "); do not edit by hand, rerun it. "
        "Every figure is a ratio against a baseline measured in the same run, because absolute times on these "
        "shared 2-core machines are not comparable between runs. Latency rows interleave command and baseline "
        "runs; the databases are generated (tests/perf/generate.py, cached under build/bench-cache). What "
        "dominates each figure, and measurements made by hand between runs, are in performance-notes.md (where a "
        'server roll\'s time goes under 20 players: "table server: 20 players").',
        "",
        "## Machine",
        "",
    ]
    out += [f"- {k}: {v}" for k, v in machine()]
    out += [
        f"- whole benchmark run: {elapsed / 60:.1f} min",
        "",
        "## Results",
        "",
        "| what | measured | figure | baseline | ratio | target | |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r.what} | {r.measured} | {r.figure} | {r.baseline} | {r.ratio_text} | {r.target} | "
            f"{'ok' if r.ok else '**missed**'} |"
        )
    extra = [(r.what, n) for r in rows for n in r.notes]
    if extra:
        out += [""] + [f"- {what}: {note}" for what, note in extra]
    out += ["", "## Evidence from this run", ""]
    sections = [(r.what, _EVIDENCE.get(r.key, ())) for r in rows] + [("building the databases", ("build",))]
    for what, keys in sections:
        found = [key for key in keys if key in bench.evidence]
        if found:
            out += [f"### {what}", ""]
            for key in found:
                out += ["```", *bench.evidence[key], "```", ""]
    return "\n".join(out)


_EVIDENCE = {
    "command": ("imports-roll", "phases-roll"),
    "read": ("imports-read", "phases-read"),
    "scale": ("plan-scale",),
    "verify": ("profile-verify",),
    "memory-history": ("profile-history",),
    "memory-export": ("profile-export",),
    "stats": ("profile-stats",),
}

# Which databases each row reads (`--only` builds just those; verify_state builds its own).
DATABASES = {
    "command": ("latency",),
    "read": ("latency",),
    "scale": ("small", "multi"),
    "verify": ("big",),
    "memory": ("big",),
    "stats": ("big",),
    "verify_state": (),
    "verify_judged": (),
    "web": ("big", "latency"),
    "shell": (),
    "bcdice": (),
    "write": (),
    "table_load": (),
    "table_many": (),
    "table_proxied": (),
    "receipts": (),
    "table_players": (),
    "table_players_pg": (),
    "luck_first": ("big",),
    "sheet_import": (),
}
ROWS = (
    "command",
    "read",
    "scale",
    "verify",
    "verify_state",
    "verify_judged",
    "dice",
    "bulk",
    "memory",
    "stats",
    "web",
    "shell",
    "bcdice",
    "write",
    "table_load",
    "table_many",
    "table_proxied",
    "receipts",
    "table_players",
    "table_players_pg",
    "luck_first",
    "sheet_import",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="100,000-entry databases, fewer runs")
    parser.add_argument("--only", help=f"comma-separated rows of {', '.join(ROWS)} (docs are not written)")
    parser.add_argument("--workdir", help="where to build the databases (default: a temporary directory)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--no-profile", action="store_true", help="skip the profiling evidence for the notes")
    parser.add_argument("--no-write", action="store_true", help="do not write docs/performance.md")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else set(ROWS)
    unknown = only - set(ROWS)
    if unknown:
        parser.error(f"unknown rows: {', '.join(sorted(unknown))}")

    started = time.perf_counter()
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="campaign-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    bench = Bench(workdir, QUICK if args.quick else FULL, args.quick)
    print(f"campaign benchmark ({'quick' if args.quick else 'full'}) in {workdir}", flush=True)
    try:
        generate.self_check()
        _compile_bytecode()
        if only - {
            "dice",
            "bulk",
            "verify_state",
            "shell",
            "bcdice",
            "write",
            "table_load",
            "table_proxied",
            "verify_judged",
            "sheet_import",
            "receipts",
            "table_players",
            "table_players_pg",
        }:
            bench.build(only if args.only else None)
        steps = {
            "command": bench.row_command_latency,
            "read": bench.row_read_latency,
            "scale": bench.row_history_scale,
            "verify": bench.row_verify,
            "verify_state": bench.row_verify_state,
            "verify_judged": bench.row_verify_judged,
            "dice": bench.row_dice,
            "bulk": bench.row_bulk,
            "memory": bench.row_memory,
            "stats": bench.row_stats,
            "web": bench.row_web_history,
            "shell": bench.row_shell,
            "bcdice": bench.row_bcdice,
            "write": bench.row_write_cost,
            "table_load": bench.row_table_load,
            "table_many": bench.row_table_many,
            "table_proxied": bench.row_table_proxied,
            "receipts": bench.row_receipts,
            "table_players": bench.row_table_players,
            "table_players_pg": bench.row_table_players_pg,
            "luck_first": bench.row_luck_first,
            "sheet_import": bench.row_sheet_import,
        }
        for key in ROWS:
            if key in only:
                step_start = time.perf_counter()
                try:
                    steps[key]()
                except Exception as exc:  # one broken row is a missed row, not a lost run of the others
                    traceback.print_exc()
                    problem = f"{type(exc).__name__}: {str(exc)[:300]}"
                    bench.rows.append(Row(key, key, "the row failed to run", problem, "—", None, "runs", False))
                print(f"  {key}: done in {time.perf_counter() - step_start:.0f} s", flush=True)
        if not args.no_profile and not args.only:
            bench.profile()
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    elapsed = time.perf_counter() - started
    print()
    print(text_table(bench.rows))
    print(f"\n{elapsed / 60:.1f} min in all")
    if not args.no_write and not args.only:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text(markdown(bench.rows, bench, elapsed), encoding="utf-8")
        print(f"written to {DOC.relative_to(REPO)}")
    missed = [r.what for r in bench.rows if not r.ok]
    if missed:
        print(f"targets missed: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
