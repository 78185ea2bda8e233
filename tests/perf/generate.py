"""Fast, realistic campaign export files for the benchmarks.

Writes the JSON Lines format of campaign.services.ledger.transfer (header, players,
characters, scenarios, ledger entries with their chain hashes, footer), so the
benchmark databases are built through the bulk path the product ships: `campaign
import`. Entries look like real ones: roll details come from the real dice engine
(a pool evaluated once, then reused), fright checks carry the check structure the
fright service records, scenarios open and close, and a few entries are voided.

Speed matters (1,000,000 entries in well under a minute): one prebuilt C JSON encoder
for the canonical records, one sha256 per entry, string concatenation for the lines.
"""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from campaign.core.dice import evaluate
from campaign.core.dice_source import SeededDice
from campaign.core.success import judge_success
from campaign.ledger import GENESIS_HASH, canonical_json

# Same output as ledger.canonical_json, without building an encoder per call.
_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
_quote = json.encoder.encode_basestring  # JSON string literal, non-ASCII kept (C version)

PLAYERS = ("Yuki", "Ren", "Sora", "Hana")
# X for `history --char X --kind fright`; every campaign has these four PCs.
CHARACTERS = ("鈴音", "Aki", "健二", "Mira")
QUERY_CHARACTER = CHARACTERS[0]
ROLL_EXPRESSIONS = (
    "3D6<=12",
    "3D6<=14",
    "3D6<=10",
    "3D6",
    "2D6+3",
    "1D6",
    "3D6-2<=11",
    "2D6>=8",
    "4D6KH3",
    "D66",
    "1D100<=45",
    "3B6>=4",
    "x3 2D6",
    "3D6+1<=13",
)
REASONS = (None, None, None, "回避", "聞き耳", "dodge", "Stealth", "目星", "Fast-Talk", "応急手当")
SCENARIO_LENGTH = 500  # entries per scenario
FRIGHT_SHARE = 0.25  # of all entries: ~6% per character, so --limit 50 fills from 1,000 entries


def _roll_pool(rng: random.Random, size: int = 600) -> list[tuple[str, dict]]:
    """(expression, NewEntry fields) for real rolls: the dice engine's own detail."""
    source = SeededDice(rng.randrange(1 << 30))
    pool = []
    for index in range(size):
        text = ROLL_EXPRESSIONS[index % len(ROLL_EXPRESSIONS)]
        result = evaluate(text, source, gurps=text.startswith("3D6") and "<=" in text)
        pool.append(
            (
                text,
                {
                    "expression": result.expression,
                    "dice": list(result.faces),
                    "total": result.total,
                    "target": result.target,
                    "outcome": result.outcome,
                    "margin": result.margin,
                    "detail": result.to_detail(),
                },
            )
        )
    return pool


def _fright_pool(rng: random.Random, size: int = 200) -> list[dict]:
    pool = []
    for _ in range(size):
        faces = [rng.randint(1, 6) for _ in range(3)]
        will = rng.choice((11, 12, 13, 14))
        total = sum(faces)
        outcome = judge_success(total, total, will).outcome  # docs/rules.md "Success roll": criticals too
        margin = will - total
        check = {
            "cap": None,
            "combat_reflexes": False,
            "dice": faces,
            "margin": margin,
            "modifier": 0,
            "outcome": outcome,
            "severe_phobia": False,
            "target": will,
            "total": total,
            "will": will,
            "will_stat": "Will",
        }
        table = None
        if outcome in ("failure", "critical_failure"):
            roll = [rng.randint(1, 6) for _ in range(3)]
            table = {
                "table": "fright",
                "faces": roll,
                "roll": sum(roll) - margin,
                "entry": "Stunned for one turn; recovers automatically.",
            }
        pool.append(
            {
                "expression": f"3D6<={will}",
                "dice": faces,
                "total": total,
                "target": will,
                "outcome": outcome,
                "margin": margin,
                "detail": {
                    "applied": [],
                    "check": check,
                    "choice": 0,
                    "effects": [],
                    "notes": [],
                    "pick": None,
                    "table": table,
                    "traits_added": [],
                },
            }
        )
    return pool


START = datetime(2024, 4, 1, 19, 0, tzinfo=UTC)
CREATED = START.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def export_lines(name: str, entries: int, *, seed: int = 0, ruleset: str = "gurps3-ja") -> Iterator[str]:
    """The export file of one campaign with `entries` ledger entries (at least 10)."""
    start, created = START, CREATED
    header = {
        "type": "header",
        "format": "campaign-export",
        "version": 1,
        "campaign": {"name": name, "ruleset": ruleset, "settings": {"fright_cap": None}, "created_at": created},
    }
    yield json.dumps(header, ensure_ascii=False) + "\n"
    for player in PLAYERS:
        yield json.dumps({"type": "player", "name": player}, ensure_ascii=False) + "\n"
    for player, character in zip(PLAYERS, CHARACTERS):
        yield (
            json.dumps(
                {
                    "type": "character",
                    "name": character,
                    "kind": "pc",
                    "player": player,
                    "summoner": None,
                    "stats": {"ST": 10, "DX": 11, "IQ": 12, "HT": 11, "Will": 13, "FP": 11, "HP": 10},
                    "cp_total": 150,
                    "pools": {},
                },
                ensure_ascii=False,
            )
            + "\n"
        )
    # (the character entries below carry the same stats: import checks state lines against the ledger)
    # Scenario state lines must precede the entries' footer; compute their bounds up front.
    scenario_count = max(1, (entries - 10) // SCENARIO_LENGTH)
    for number in range(1, scenario_count + 1):
        first = 10 + (number - 1) * SCENARIO_LENGTH
        last = min(entries, first + SCENARIO_LENGTH - 1)
        ended = number < scenario_count  # the last scenario is still being played
        yield (
            json.dumps(
                {
                    "type": "scenario",
                    "number": number,
                    "title": f"第{number}話",
                    "started_seq": first,
                    "ended_seq": last if ended else None,
                    "started_at": _at(start, first),
                    "ended_at": _at(start, last) if ended else None,
                    "participants": list(CHARACTERS),
                },
                ensure_ascii=False,
            )
            + "\n"
        )
    prev = GENESIS_HASH
    for _, record_json, prev, digest in chain(name, entries, seed=seed, ruleset=ruleset):
        yield f'{{"type": "entry", "record": {_quote(record_json)}, "prev_hash": "{prev}", "hash": "{digest}"}}\n'
        prev = digest
    yield json.dumps({"type": "footer", "entries": entries, "head": prev}) + "\n"


def chain(
    name: str, entries: int, *, seed: int = 0, ruleset: str = "gurps3-ja"
) -> Iterator[tuple[dict, str, str, str]]:
    """(record, its canonical JSON, prev_hash, hash) of each entry of the campaign export_lines writes."""
    rng = random.Random(f"{seed}:{name}")
    rolls = _roll_pool(rng)
    frights = _fright_pool(rng)
    start = START
    scenario_count = max(1, (entries - 10) // SCENARIO_LENGTH)
    prev = GENESIS_HASH
    base = {
        "campaign": name,
        "actor": "GM",
        "character": None,
        "scenario": None,
        "parent_seq": None,
        "voids_seq": None,
        "expression": None,
        "dice": None,
        "total": None,
        "target": None,
        "outcome": None,
        "margin": None,
        "source": None,
        "reason": None,
        "detail": {},
        "ops": [],
        "voidable": True,
    }
    stats = {"ST": 10, "DX": 11, "IQ": 12, "HT": 11, "Will": 13, "FP": 11, "HP": 10}
    random_value = rng.random
    choice = rng.choice
    last_roll = None
    seconds = start.timestamp()
    for seq in range(1, entries + 1):
        record = dict(base)
        record["seq"] = seq
        seconds += 37.25
        record["at"] = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        if seq == 1:
            record.update(
                kind="campaign",
                reason="created",
                voidable=False,
                detail={"name": name, "ruleset": ruleset},
                ops=[{"op": "campaign_created", "ruleset": ruleset, "settings": {"fright_cap": None}}],
            )
        elif seq <= 5:
            record.update(
                kind="player",
                reason="added",
                voidable=False,
                detail={"player": PLAYERS[seq - 2]},
                ops=[{"op": "player_added", "player": PLAYERS[seq - 2]}],
            )
        elif seq <= 9:
            character = CHARACTERS[seq - 6]
            record.update(
                kind="character",
                character=character,
                reason="added",
                voidable=False,
                ops=[
                    {
                        "op": "character_added",
                        "character": character,
                        "kind": "pc",
                        "player": PLAYERS[seq - 6],
                        "summoner": None,
                        "stats": stats,
                        "cp": 150,
                    }
                ],
            )
        else:
            offset = seq - 10
            number = min(offset // SCENARIO_LENGTH + 1, scenario_count)
            record["scenario"] = number
            first = 10 + (number - 1) * SCENARIO_LENGTH
            if seq == first or (seq == min(entries, first + SCENARIO_LENGTH - 1) and number < scenario_count):
                starts = seq == first
                record.update(
                    kind="scenario",
                    reason="start" if starts else "end",
                    voidable=False,
                    detail={"action": "start" if starts else "end", "number": number, "title": f"第{number}話"},
                    ops=[
                        {
                            "op": "scenario_started",
                            "number": number,
                            "title": f"第{number}話",
                            "participants": list(CHARACTERS),
                        }
                        if starts
                        else {"op": "scenario_ended", "number": number}
                    ],
                )
            elif seq % 997 == 0 and last_roll is not None:
                record.update(
                    kind="void",
                    voids_seq=last_roll,
                    reason="wrong character",
                    detail={"voided": last_roll, "voided_kind": "roll", "reversed": []},
                )
                last_roll = None
            else:
                draw = random_value()
                record["character"] = CHARACTERS[int(draw * 4096) % 4]
                record["source"] = "rng"
                if draw < FRIGHT_SHARE:
                    record["kind"] = "fright"
                    record.update(choice(frights))
                else:
                    record["kind"] = "roll"
                    text, fields = choice(rolls)
                    record.update(fields)
                    record["reason"] = choice(REASONS)
                    last_roll = seq
        record_json = _canonical(record)
        digest = hashlib.sha256((prev + record_json).encode()).hexdigest()
        yield record, record_json, prev, digest
        prev = digest


def _at(start: datetime, seq: int) -> str:
    return (start + timedelta(seconds=37.25 * seq)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def self_check() -> None:
    """The fast encoder must spell records exactly as the ledger does."""
    lines = list(export_lines("self-check", 40))
    for line in lines:
        item = json.loads(line)
        if item["type"] == "entry":
            record = json.loads(item["record"])
            assert canonical_json(record) == item["record"], "generator's canonical JSON drifted from ledger's"


_LEDGER_INSERT = (
    "INSERT INTO ledger (campaign_id, seq, at, actor, kind, character, scenario, outcome, parent_seq, voids_seq, "
    "record, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def build_database(path: Path, campaigns: Sequence[tuple[str, int]]) -> None:
    """A database holding these campaigns (name, entries), the ledger of each the one
    export_lines writes, built fast: the schema by campaign.db.database, every ledger row
    by one sqlite3 executemany in one transaction, then the state tables by the product's
    own rebuild from the ledger (`db upgrade --rebuild`, which verifies each chain
    first). The same database `campaign import` of the export files would give (the
    state included, so a full `history verify` passes), in a fraction of the time; the
    bulk-append row of the benchmark measures import itself."""
    from campaign.db.database import Database
    from campaign.services.ledger.rebuild import rebuild_states

    Database(str(path)).close()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        for name, entries in campaigns:
            campaign_id = conn.execute(
                "INSERT INTO campaigns (name, ruleset, settings, created_at) VALUES (?, 'gurps3-ja', '{}', ?)",
                (name, CREATED),
            ).lastrowid
            conn.executemany(
                _LEDGER_INSERT,
                (
                    (campaign_id, *(record[field] for field in INDEXED), text, prev, digest)
                    for record, text, prev, digest in chain(name, entries)
                ),
            )
        conn.execute("COMMIT")
    finally:
        conn.close()
    db = Database(str(path))
    try:
        rebuild_states(db)
    finally:
        db.close()


INDEXED = ("seq", "at", "actor", "kind", "character", "scenario", "outcome", "parent_seq", "voids_seq")
# The cache key of built databases: any change to this file builds them again.
VERSION = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
