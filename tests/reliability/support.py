"""Shared machinery for the reliability suite.

- `dump(db_url)`: a byte-comparable text of everything in the database (SQLite
  `iterdump()`; PostgreSQL a SELECT of every table ordered by its key), so a refused
  command can be proven to have changed nothing.
- `assert_state_matches_ledger()` replays the ledger (campaign.projection) and compares
  every state table with it.
- `populate()` builds a campaign with every kind of state through the CLI; `populated()`
  copies one built once per session.
- `cli_has()` tells whether a CLI command exists yet (fright/trait are landing), so
  the harness plugs them in as soon as they do.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from sqlalchemy import inspect, select, text

from campaign.db.database import Database
from campaign.db.engine import resolve_url, sqlite_path
from campaign.db.models import Campaign, LedgerEntry

# --------------------------------------------------------------------------- dumps


def dump(db_url: str) -> str:
    """Everything stored, as text: equal dumps mean an unchanged database."""
    url = resolve_url(db_url)
    path = sqlite_path(url)
    if path is not None:
        if not path.exists():
            return "(no file)"
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return "\n".join(conn.iterdump())
        finally:
            conn.close()
    if url not in _ENGINES:
        from sqlalchemy import create_engine

        engine = create_engine(url)
        with engine.connect() as conn:
            inspector = inspect(conn)
            queries = []
            for table in sorted(inspector.get_table_names()):
                key = inspector.get_pk_constraint(table)["constrained_columns"]
                order = ", ".join(f'"{column}"' for column in key) or "1"
                queries.append((table, text(f'SELECT * FROM "{table}" ORDER BY {order}')))
        _ENGINES[url] = engine, queries
    engine, queries = _ENGINES[url]
    with engine.connect() as conn:
        return "\n".join(
            f"-- {table}\n" + "\n".join(repr(tuple(row)) for row in conn.execute(query)) for table, query in queries
        )


_ENGINES: dict[str, Any] = {}


# --------------------------------------------------------------------------- CLI probing


def cli_has(*path: str) -> bool:
    """True when `campaign <path...>` is a registered command."""
    import typer.main

    from campaign.cli.app import app

    command = typer.main.get_command(app)
    for name in path:
        commands = getattr(command, "commands", None)
        if not commands or name not in commands:
            return False
        command = commands[name]
    return True


# --------------------------------------------------------------------------- ledger replay


class Mismatch(AssertionError):
    pass


def _records(session, campaign_id: int):
    rows = session.execute(
        select(LedgerEntry.record).where(LedgerEntry.campaign_id == campaign_id).order_by(LedgerEntry.seq)
    ).scalars()
    for record in rows:
        yield json.loads(record)


def _plain(state) -> dict[str, Any]:
    """A projection State as the comparable dict these tests have always used."""
    return {
        "characters": {
            name: {"stats": c.stats, "cp_total": c.cp_total, "pools": c.pools}
            for name, c in sorted(state.characters.items())
        },
        "traits": {
            f"{t.character}/{origin}": {
                "name": t.name,
                "category": t.category,
                "cp": t.cp,
                "counts_toward_limit": t.counts_toward_limit,
                "source_seq": t.source_seq,
                "removed_seq": t.removed_seq,
            }
            for origin, t in sorted(state.traits.items(), key=lambda item: (item[1].character, item[0]))
        },
        "conditions": {
            f"{c.character}/{origin}": {
                "name": c.name,
                "duration": c.duration,
                "source_seq": c.source_seq,
                "cleared_seq": c.cleared_seq,
            }
            for origin, c in sorted(state.conditions.items(), key=lambda item: (item[1].character, item[0]))
        },
    }


def assert_state_matches_ledger(db: Database, campaign: str) -> dict[str, Any]:
    """The tables hold exactly the replay of the ledger (every table, every column);
    returns that state. Every effect in the database has its entry and every entry's
    effects are in the database: no half-applied command."""
    from campaign.db.state_tables import ledger_entries, load_state
    from campaign.projection.replay import project
    from campaign.projection.state import differences

    with db.read() as session:
        row = session.scalars(select(Campaign).where(Campaign.name == campaign)).one()
        expected, actual = project(ledger_entries(session, row)), load_state(session, row)
    diff = [d.text() for d in differences(expected, actual)]
    if diff:
        raise Mismatch("state differs from the ledger:\n" + "\n".join(diff[:20]))
    return _plain(actual)


def ledger_rows(db: Database, campaign: str) -> list[dict[str, Any]]:
    with db.read() as session:
        campaign_id = session.scalar(select(Campaign.id).where(Campaign.name == campaign))
        return list(_records(session, campaign_id))


# --------------------------------------------------------------------------- figures for docs/reliability.md

FIGURES: dict[str, dict[str, dict[str, Any]]] = {}


def record(section: str, backend: str, **values: Any) -> None:
    """Remember a figure; CAMPAIGN_RELIABILITY_FIGURES=path writes them all at the end."""
    slot = FIGURES.setdefault(section, {}).setdefault(backend, {})
    for key, value in values.items():
        slot[key] = slot.get(key, 0) + value if isinstance(value, int) and not isinstance(value, bool) else value


def backend_of(db_url: str) -> str:
    return "sqlite" if sqlite_path(resolve_url(db_url)) is not None else "postgresql"


# --------------------------------------------------------------------------- a campaign with everything


def populate(db_url: str, name: str = "移行卓") -> None:
    """A campaign using every kind of state: players, PCs, an NPC, a relation, rolls,
    fright checks (traits, conditions, pools), trait add/rename/remove, a cleared
    condition, a voided fright check, a setting, a missing character with a search
    party and a failed reunion check, a seal and an entry after it."""
    from tests.cli.conftest import Cli

    cli = Cli(db_url)
    cli.run("init", name)
    c = ("-c", name)
    cli.run(*c, "player", "add", "Aki")
    cli.run(*c, "player", "add", "Ren")
    cli.run(
        *c,
        "char",
        "add",
        "鈴音",
        "--player",
        "Aki",
        "--stat",
        "Will=10",
        "--stat",
        "IQ=11",
        "--stat",
        "HT=11",
        "--stat",
        "FP=11",
        "--stat",
        "HP=11",
        "--cp",
        "100",
    )
    cli.run(
        *c,
        "char",
        "add",
        "刀矢",
        "--player",
        "Ren",
        "--stat",
        "Will=12",
        "--stat",
        "IQ=10",
        "--stat",
        "HT=12",
        "--cp",
        "120",
    )
    cli.run(*c, "char", "add", "管狐", "--npc", "--summoner", "鈴音", "--stat", "Will=9", "--stat", "HT=9")
    cli.run(*c, "char", "relate", "鈴音", "刀矢", "--note", "幼馴染")
    cli.run(*c, "roll", "3D6<=11", "--char", "鈴音", "--dice", "1,2,3")
    frights = [
        cli.json(*c, "--seed", str(seed), "fright", "鈴音", "--mod", "-8", "--reason", f"怪異 {seed}")
        for seed in range(1, 7)
    ]
    cli.run(*c, "trait", "add", "刀矢", "Combat Reflexes", "--cp", "15")
    cli.run(*c, "trait", "add", "刀矢", "臆病", "--cp", "-10", "--category", "mental")
    cli.run(*c, "trait", "rename", "刀矢", "臆病", "慎重")
    cli.run(*c, "trait", "remove", "刀矢", "慎重", "--reason", "克服した")
    cli.json(*c, "--seed", "11", "fright", "刀矢", "--mod", "-9")
    shown = cli.json(*c, "char", "show", "鈴音")
    assert shown["traits"] and shown["conditions"], "the seeds gave no trait or condition: pick others"
    placeholder = shown["traits"][0]["name"]
    cli.run(*c, "trait", "rename", "鈴音", placeholder, "暗所恐怖症")
    cli.run(*c, "condition", "clear", "鈴音", shown["conditions"][0]["name"], "--reason", "意思判定に成功")
    cli.run(*c, "history", "void", "--yes", str(frights[-1]["seq"]), "--reason", "別の人物だった")
    cli.run(*c, "settings", "fright_cap=13")
    cli.run(*c, "missing", "mark", "管狐", "--faces", "8", "--reason", "霧の中へ")
    cli.run(*c, "scenario", "start", "霧の館", "--with", "刀矢", "--search", "鈴音=管狐")
    cli.run(*c, "scenario", "end", "--dice", "管狐=7")
    cli.run(*c, "history", "seal", "--reason", "第一話終了")
    cli.run(*c, "roll", "2D6", "--dice", "3,4")


def populated(request, db_url: str, name: str = "移行卓") -> str:
    """Make the fresh `db_url` a copy of `populate(name)`'s campaign, built once per session
    through the CLI (tests/conftest.party_copy) and selected for the test's user as its
    `init` would be. Returns db_url."""
    from tests.conftest import party_copy

    return party_copy(
        request, "populated_" + name.encode("utf-8").hex(), db_url, lambda db: populate(db, name), campaign=name
    )
