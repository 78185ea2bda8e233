"""Shared machinery for the reliability suite.

- `dump(db_url)`: a byte-comparable text of everything in the database (SQLite
  `iterdump()`; PostgreSQL a SELECT of every table ordered by its key), so a refused
  command can be proven to have changed nothing.
- `expected_state()` replays the ledger: each entry's `applied` ops (and each void's
  reversal) rebuilt into characters, traits and conditions. `actual_state()` reads the
  same from the tables. Equal means every effect in the database has its entry and
  every entry's effects are in the database (no half-applied command).
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
from campaign.db.models import Campaign, Character, Condition, LedgerEntry, Trait

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
        return "\n".join(f"-- {table}\n" + "\n".join(repr(tuple(row)) for row in conn.execute(query))
                         for table, query in queries)


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


def _trait_facts(record: dict[str, Any], origin: str) -> dict[str, Any]:
    """Name, category, CP and flag of the trait an entry created, from its detail."""
    detail = record["detail"]
    candidates = []
    if isinstance(detail.get("trait"), dict):
        candidates.append(detail["trait"])
    candidates += detail.get("traits_added") or []
    for trait in candidates:
        if trait.get("origin") == origin:
            return {"name": trait["name"], "category": trait["category"], "cp": trait["cp"],
                    "counts_toward_limit": trait["counts_toward_limit"]}
    raise Mismatch(f"entry #{record['seq']} applied trait {origin} but its detail does not describe it")


def _condition_facts(record: dict[str, Any], origin: str) -> dict[str, Any]:
    for effect in record["detail"].get("effects") or []:
        if effect.get("kind") == "condition" and effect.get("origin") == origin:
            return {"name": effect["condition"], "duration": effect["duration_text"]}
    raise Mismatch(f"entry #{record['seq']} applied condition {origin} but its detail does not describe it")


UNMODELLED_OPS = {"setting", "missing_started", "missing_ended", "faces", "search_started", "search_ended",
                  "reunion_check"}


class Model:
    """Characters as the ledger says they are."""

    def __init__(self) -> None:
        self.characters: dict[str, dict[str, Any]] = {}
        self.traits: dict[tuple[str, str], dict[str, Any]] = {}
        self.conditions: dict[tuple[str, str], dict[str, Any]] = {}
        self.by_seq: dict[int, dict[str, Any]] = {}
        self.entries = 0

    def feed(self, record: dict[str, Any]) -> None:
        self.entries += 1
        seq = record["seq"]
        if seq != self.entries:
            raise Mismatch(f"ledger seq {seq} where {self.entries} was expected")
        self.by_seq[seq] = record
        detail = record["detail"] or {}
        if record["kind"] == "character" and "applied" not in detail:
            self.characters[record["character"]] = {
                "stats": dict(detail["stats"]), "cp_total": detail["cp_total"], "pools": {},
            }
            return
        if record["kind"] == "void":
            voided = self.by_seq[detail["voided"]]
            children = [r for r in self.by_seq.values() if r["parent_seq"] == voided["seq"]]
            for child in sorted(children, key=lambda r: -r["seq"]):
                self._reverse(child, seq)
            self._reverse(voided, seq)
            return
        for op in detail.get("applied") or []:
            self._apply(record, op)

    def _char(self, name: str) -> dict[str, Any]:
        if name not in self.characters:
            raise Mismatch(f"ledger changes unknown character {name!r}")
        return self.characters[name]

    def _expect(self, what: str, have: Any, want: Any, seq: int) -> None:
        if have != want:
            raise Mismatch(f"entry #{seq}: {what} was {have!r} in the replay, the entry says {want!r}")

    def _apply(self, record: dict[str, Any], op: dict[str, Any]) -> None:
        seq, kind = record["seq"], op["op"]
        char = self._char(op["character"]) if "character" in op else None
        if kind == "stat":
            self._expect(f"stat {op['stat']}", char["stats"].get(op["stat"]), op["before"], seq)
            char["stats"][op["stat"]] = op["after"]
        elif kind == "cp":
            char["cp_total"] += op["delta"]
        elif kind == "pool":
            current = char["pools"].get(op["pool"])
            if current is not None:  # else the pool was full: `before` is its maximum
                self._expect(f"pool {op['pool']}", current, op["before"], seq)
            char["pools"][op["pool"]] = op["after"]
        elif kind == "trait_added":
            key = (op["character"], op["origin"])
            self.traits[key] = {**_trait_facts(record, op["origin"]), "source_seq": seq, "removed_seq": None}
        elif kind == "trait_removed":
            trait = self.traits[(op["character"], op["origin"])]
            self._expect("trait state", trait["removed_seq"], None, seq)
            trait["removed_seq"] = seq
        elif kind == "trait_renamed":
            trait = self.traits[(op["character"], op["origin"])]
            self._expect("trait name", trait["name"], op["before"], seq)
            trait["name"] = op["after"]
        elif kind == "trait_cp":
            trait = self.traits[(op["character"], op["origin"])]
            self._expect("trait CP", trait["cp"], op["before"], seq)
            trait["cp"] = op["after"]
        elif kind == "trait_category":
            trait = self.traits[(op["character"], op["origin"])]
            self._expect("trait category", trait["category"], op["before"], seq)
            trait["category"] = op["after"]
        elif kind == "condition_added":
            key = (op["character"], op["origin"])
            self.conditions[key] = {**_condition_facts(record, op["origin"]), "source_seq": seq, "cleared_seq": None}
        elif kind == "condition_cleared":
            condition = self.conditions[(op["character"], op["origin"])]
            self._expect("condition state", condition["cleared_seq"], None, seq)
            condition["cleared_seq"] = seq
        elif kind in UNMODELLED_OPS:
            pass  # settings, missing characters and searches: not compared here
        else:
            raise Mismatch(f"entry #{seq}: the replay does not know op {kind!r}")

    def _reverse(self, record: dict[str, Any], void_seq: int) -> None:
        for op in reversed((record["detail"] or {}).get("applied") or []):
            kind = op["op"]
            char = self._char(op["character"]) if "character" in op else None
            if kind == "stat":
                if op["before"] is None:
                    char["stats"].pop(op["stat"], None)
                else:
                    char["stats"][op["stat"]] = op["before"]
            elif kind == "cp":
                char["cp_total"] -= op["delta"]
            elif kind == "pool":
                delta = op["after"] - (op["before"] if op["before"] is not None else op["after"])
                char["pools"][op["pool"]] = char["pools"].get(op["pool"], op["after"]) - delta
                if op["before"] is None:
                    char["pools"].pop(op["pool"])
            elif kind == "trait_added":
                self.traits[(op["character"], op["origin"])]["removed_seq"] = void_seq
            elif kind == "trait_removed":
                self.traits[(op["character"], op["origin"])]["removed_seq"] = None
            elif kind in ("trait_renamed", "trait_cp", "trait_category"):
                field = {"trait_renamed": "name", "trait_cp": "cp", "trait_category": "category"}[kind]
                self.traits[(op["character"], op["origin"])][field] = op["before"]
            elif kind == "condition_added":
                condition = self.conditions[(op["character"], op["origin"])]
                if condition["cleared_seq"] is None:
                    condition["cleared_seq"] = void_seq
            elif kind == "condition_cleared":
                self.conditions[(op["character"], op["origin"])]["cleared_seq"] = None
            elif kind in UNMODELLED_OPS:
                pass
            else:
                raise Mismatch(f"void #{void_seq}: the replay does not know op {kind!r}")

    def state(self) -> dict[str, Any]:
        return {
            "characters": {name: {"stats": c["stats"], "cp_total": c["cp_total"], "pools": c["pools"]}
                           for name, c in sorted(self.characters.items())},
            "traits": {f"{c}/{o}": t for (c, o), t in sorted(self.traits.items())},
            "conditions": {f"{c}/{o}": t for (c, o), t in sorted(self.conditions.items())},
        }


def expected_state(db: Database, campaign: str) -> dict[str, Any]:
    model = Model()
    with db.read() as session:
        campaign_id = session.scalar(select(Campaign.id).where(Campaign.name == campaign))
        for record in _records(session, campaign_id):
            model.feed(record)
    return model.state()


def actual_state(db: Database, campaign: str) -> dict[str, Any]:
    with db.read() as session:
        campaign_id = session.scalar(select(Campaign.id).where(Campaign.name == campaign))
        characters = session.scalars(select(Character).where(Character.campaign_id == campaign_id)).all()
        names = {c.id: c.name for c in characters}
        traits = session.scalars(select(Trait).where(Trait.character_id.in_(list(names)))).all()
        conditions = session.scalars(select(Condition).where(Condition.character_id.in_(list(names)))).all()
        return {
            "characters": {c.name: {"stats": dict(c.stats), "cp_total": c.cp_total, "pools": dict(c.pools)}
                           for c in sorted(characters, key=lambda c: c.name)},
            "traits": {f"{names[t.character_id]}/{t.origin}": {
                "name": t.name, "category": t.category, "cp": t.cp, "counts_toward_limit": t.counts_toward_limit,
                "source_seq": t.source_seq, "removed_seq": t.removed_seq}
                for t in sorted(traits, key=lambda t: (names[t.character_id], t.origin))},
            "conditions": {f"{names[c.character_id]}/{c.origin}": {
                "name": c.name, "duration": c.duration, "source_seq": c.source_seq, "cleared_seq": c.cleared_seq}
                for c in sorted(conditions, key=lambda c: (names[c.character_id], c.origin))},
        }


def assert_state_matches_ledger(db: Database, campaign: str) -> dict[str, Any]:
    """The tables hold exactly what the ledger says was applied; returns that state."""
    expected, actual = expected_state(db, campaign), actual_state(db, campaign)
    if expected != actual:
        diff = []
        for section in ("characters", "traits", "conditions"):
            for key in sorted(set(expected[section]) | set(actual[section])):
                want, have = expected[section].get(key), actual[section].get(key)
                if want != have:
                    diff.append(f"{section} {key}: ledger says {want!r}, database has {have!r}")
        raise Mismatch("state differs from the ledger:\n" + "\n".join(diff[:20]))
    return actual


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
    cli.run(*c, "char", "add", "鈴音", "--player", "Aki", "--stat", "Will=10", "--stat", "IQ=11", "--stat", "HT=11",
            "--stat", "FP=11", "--stat", "HP=11", "--cp", "100")
    cli.run(*c, "char", "add", "刀矢", "--player", "Ren", "--stat", "Will=12", "--stat", "IQ=10", "--stat", "HT=12",
            "--cp", "120")
    cli.run(*c, "char", "add", "管狐", "--npc", "--summoner", "鈴音", "--stat", "Will=9", "--stat", "HT=9")
    cli.run(*c, "char", "relate", "鈴音", "刀矢", "--note", "幼馴染")
    cli.run(*c, "roll", "3D6<=11", "--char", "鈴音", "--dice", "1,2,3")
    frights = [cli.json(*c, "--seed", str(seed), "fright", "鈴音", "--mod", "-8", "--reason", f"怪異 {seed}")
               for seed in range(1, 7)]
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
    cli.run(*c, "history", "void", str(frights[-1]["seq"]), "--reason", "別の人物だった")
    cli.run(*c, "settings", "fright_cap=13")
    cli.run(*c, "missing", "mark", "管狐", "--faces", "8", "--reason", "霧の中へ")
    cli.run(*c, "scenario", "start", "霧の館", "--with", "刀矢", "--search", "鈴音=管狐")
    cli.run(*c, "scenario", "end", "--dice", "管狐=7")
    cli.run(*c, "history", "seal", "--reason", "第一話終了")
    cli.run(*c, "roll", "2D6", "--dice", "3,4")
