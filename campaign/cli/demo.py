"""`campaign demo`: a guided tour that builds a sample campaign and shows each feature."""

from __future__ import annotations

import shlex
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

DEMO_SEED = 20261129


def _stats(*values: str) -> list[str]:
    return [word for value in values for word in ("--stat", value)]


#: The two players and their PCs the tour starts with; the tests build their parties from
#: the same commands (tests/cli/conftest.py, tests/browser/support.py), so a change to
#: the sample party is made once.
PARTY: list[list[str]] = [
    ["player", "add", "Aki"],
    ["player", "add", "Ren"],
    ["char", "add", "鈴音", "--player", "Aki", *_stats("IQ=12", "HT=11", "Will=11", "FP=11", "HP=11"), "--cp", "100"],
    ["char", "add", "刀矢", "--player", "Ren", *_stats("IQ=10", "HT=12", "Will=13"), "--cp", "100"],
]


def _proof_file(db: str) -> str:
    """Where the tour writes its proof bundle: beside a SQLite file, else (a database URL:
    no folder of its own) in the temporary directory."""
    from campaign.db.engine import resolve_url, sqlite_path

    path = sqlite_path(resolve_url(db))
    return str((Path(path).parent if path else Path(tempfile.gettempdir())) / "proof.json")


def _steps(db: str) -> list[list[str] | Callable[[], list[str]]]:
    g = ["--db", db]
    proof = _proof_file(db)
    return [
        g + ["init", "百鬼夜翔 夜桜編", "--ruleset", "gurps3-ja"],
        *(g + step for step in PARTY),
        g + ["char", "add", "管狐", "--npc", "--summoner", "鈴音", "--stat", "IQ=8", "--stat", "Will=10"],
        g + ["char", "relate", "鈴音", "刀矢", "--note", "幼馴染"],
        g + ["char", "list"],
        g + ["char", "show", "鈴音"],
        g + ["--as", "Aki", "roll", "3D6<=12", "回避", "--char", "鈴音"],
        g + ["--as", "Ren", "roll", "2D6+3>=10", "--char", "刀矢"],
        g + ["roll", "3D6<=11", "--char", "鈴音", "--dice", "6,6,5"],
        # A failed fright check: 16 against Will 11, then 18 + 5 on the table = 23, a mild
        # phobia (-10 CP) written onto 鈴音, not counted toward the disadvantage limit.
        g + ["fright", "鈴音", "--pick", "暗所恐怖症", "--reason", "屋敷の地下室", "--dice", "6,5,5,6,6,6"],
        g + ["char", "show", "鈴音"],
        g + ["roll", "FEAR+5", "--char", "刀矢"],
        g + ["table", "roll", "CRT", "--char", "刀矢"],
        # 鈴音 vanishes in the fog; her reunion check (1d6 <= 1 + searchers) fails at the
        # end of scenario 1, then 刀矢 searches for her and she is found after scenario 2.
        g + ["scenario", "start", "第一話 霧の館", "--with", "鈴音", "--with", "刀矢", "--with", "管狐"],
        g + ["missing", "mark", "鈴音", "--reason", "霧の中に消えた"],
        g + ["scenario", "end", "--dice", "鈴音=4"],
        g + ["scenario", "start", "第二話 捜索", "--with", "管狐", "--search", "刀矢=鈴音"],
        g + ["missing", "list"],
        g + ["scenario", "end", "--dice", "鈴音=2"],
        g + ["history", "--kind", "reunion", "--char", "鈴音"],
        g + ["history", "--limit", "5"],
        g + ["history", "seal", "--reason", "第1話 終了"],
        g + ["history", "verify"],
        # Between sessions: wounds, a timed condition running out, CP awards, a rename.
        g + ["char", "damage", "鈴音", "HP", "3", "--reason", "落石"],
        g + ["char", "heal", "鈴音", "HP", "2", "--reason", "応急手当"],
        g + ["condition", "add", "刀矢", "panic", "--for", "6h", "--reason", "怪異を見た"],
        g + ["condition", "list"],
        g + ["time", "advance", "6h", "--reason", "野営"],
        g + ["award", "3", "--to", "鈴音,刀矢", "--reason", "第二話 クリア"],
        g + ["char", "rename", "管狐", "白狐"],
        g + ["char", "show", "白狐"],
        # A dispute settled: the sheet before the fright check, the luck table, a secret
        # roll revealed, and one entry proved without the database.
        lambda: g + ["char", "show", "鈴音", "--before", str(_first_seq(db, "fright"))],
        g + ["char", "timeline", "鈴音"],
        g + ["luck"],
        g + ["roll", "S3D6<=12", "聞き耳", "--char", "刀矢"],
        lambda: g + ["history", "reveal", str(_first_seq(db, "roll", latest=True))],
        g + ["history", "seal", "--reason", "第2話 終了"],
        lambda: g + ["history", "proof", str(_first_seq(db, "fright")), "-o", proof],
        g + ["proof", "check", proof],
        g + ["history", "verify"],
    ]


def _first_seq(db: str, kind: str, latest: bool = False) -> int:
    """The seq of the tour's first (or latest) top-level entry of a kind."""
    from campaign.db.database import Database
    from campaign.services.ledger.history import HistoryFilter, iter_history

    database = Database(db)
    try:
        entries = [
            e for e in iter_history(database, None, HistoryFilter(kind=kind, limit=None)) if e["parent_seq"] is None
        ]
    finally:
        database.close()
    seq: int = entries[0]["seq"] if latest else entries[-1]["seq"]
    return seq


def demo(
    ctx: typer.Context,
    keep: Annotated[bool, typer.Option("--keep", help="Print where the demo database is and keep it.")] = False,
) -> None:
    """Build a sample campaign and walk through what the tool does, printing each step.

    Uses a temporary database unless --db is given. Dice come from a fixed seed, so the
    tour prints the same results every time.

    Example: campaign demo
    """
    from campaign import i18n
    from campaign.cli.app import app
    from campaign.cli.context import state
    from campaign.cli.output import print_text

    lang = ["--lang", i18n.override()] if i18n.override() else []  # each step is its own command: keep --lang

    s = state(ctx)
    workdir = None
    db = s.db_option
    if db is None:
        workdir = tempfile.mkdtemp(prefix="campaign-demo-")
        db = str(Path(workdir) / "demo.db")
    try:
        for step, argv in enumerate(_steps(db)):
            argv = argv() if callable(argv) else argv  # a step naming an entry made earlier in the tour
            print_text("\n$ campaign " + " ".join(shlex.quote(a) for a in argv[2:]), style="bold cyan")
            sys.stdout.flush()
            code = app([*lang, "--seed", str(DEMO_SEED + step), *argv], standalone_mode=False)
            sys.stdout.flush()
            sys.stderr.flush()
            if code:
                raise typer.Exit(code)
    finally:
        if workdir and not keep:  # the temporary database goes, and with it its line in the selection file
            import shutil

            from campaign.db.engine import resolve_url
            from campaign.selection import forget_database

            shutil.rmtree(workdir, ignore_errors=True)
            forget_database(resolve_url(db))
    if keep or s.db_option:
        print_text("\n" + i18n._("demo database: {db}").format(db=db))
