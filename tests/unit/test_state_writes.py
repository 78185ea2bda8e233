"""One write path, checked from the source: only campaign.db.state_mapping writes
the state tables (the ones replaying the ledger makes, campaign.projection.state).

Every module under campaign/ is parsed with `ast` (nothing is imported). A state-table
write is any of: building a state model's row (`Trait(...)`, which is how rows are
added), `insert(`/`update(`/`delete(` on a state model or its `__table__`, assigning a
column only state models have (`x.stats = ...`, `x.removed_seq = ...`), `setattr` on
one of those columns, or SQL text that inserts into, updates or deletes from a state
table. The other tables (the ledger and what lives beside it: seal heads, secret rolls,
fair seeds, web_*, table calls, BCDice tokens, group roles) are not projections of the
ledger and are written where their service lives.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from campaign.db import models, models_state  # noqa: F401 (every state model registered)

PACKAGE = Path(__file__).parents[2] / "campaign"
MAPPING = "campaign/db/state_mapping.py"

STATE_MODELS = (
    "Player",
    "Character",
    "Relationship",
    "Trait",
    "Condition",
    "Scenario",
    "ScenarioParticipant",
    "Disappearance",
    "Search",
    "ReunionCheck",
)
STATE_TABLES = (
    "players",
    "characters",
    "relationships",
    "traits",
    "conditions",
    "scenarios",
    "scenario_participants",
    "disappearances",
    "searches",
    "reunion_checks",
)
# Not state: written by their own services, never by replay.
NOT_STATE = (
    "ledger",
    "seal_heads",
    "secret_rolls",
    "fair_seeds",
    "web_invites",
    "web_sessions",
    "web_requests",
    "table_calls",
    "bcdice_tokens",
    "group_roles",
    "campaigns",
)
# The campaign row holds the chain: made once, by `init` and by `import`, with its ruleset
# (and the settings the first entry's op records); its state columns are the mapping's after that.
CAMPAIGN_MADE_IN = ("campaign/services/campaigns/setup.py", "campaign/services/ledger/transfer.py")
CAMPAIGN_STATE_COLUMNS = ("settings", "clock")
# Column names that other objects use too (a dataclass's `name`, a result's `kind`):
# assigning them is not a sign of a state write on its own.
SHARED_NAMES = {
    "id",
    "name",
    "kind",
    "status",
    "detail",
    "faces",
    "reason",
    "seq",
    "roll",
    "title",
    "category",
    "cp",
    "success",
    "threshold",
    "note",
    "origin",
    "duration",
    "stats",
    "items",
    "notes",
    "skills",
    "player_id",
    "campaign_id",
}

# Names that hold a projection State (or are the object itself), not an ORM row:
# transfer's `claimed` is the state an export file claims, compared with the replay.
STATE_VALUES = {"self", "claimed"}


def _state_columns() -> set[str]:
    found: set[str] = set()
    for name in STATE_MODELS:
        model = getattr(models, name)
        found.update(column.key for column in model.__table__.columns)
    return (found | set(CAMPAIGN_STATE_COLUMNS)) - SHARED_NAMES


STATE_COLUMNS = _state_columns()
_SQL_WRITE = re.compile(r"\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+\"?(" + "|".join(STATE_TABLES) + r")\b", re.I)


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def writes(source: str, relative: str) -> list[str]:
    """Each state-table write in `source`, as "line: what"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            callee = _name(node.func)
            if callee in STATE_MODELS:
                found.append(f"{node.lineno}: builds a {callee} row")
            if callee == "Campaign" and relative not in CAMPAIGN_MADE_IN:
                found.append(f"{node.lineno}: builds a campaign row")
            if callee in ("insert", "update", "delete") and node.args and _name(node.args[0]) in STATE_MODELS:
                found.append(f"{node.lineno}: {callee}({_name(node.args[0])})")
            if (
                callee in ("insert", "update", "delete")
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == "__table__"
                and _name(node.func.value.value) in STATE_MODELS
            ):
                found.append(f"{node.lineno}: {_name(node.func.value.value)}.__table__.{callee}()")
            if (
                callee == "setattr"
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in STATE_COLUMNS
            ):
                found.append(f"{node.lineno}: setattr(..., {node.args[1].value!r})")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if (
                        isinstance(part, ast.Attribute)
                        and isinstance(part.ctx, ast.Store)
                        and part.attr in STATE_COLUMNS
                        and _name(part.value) not in STATE_VALUES
                    ):
                        found.append(f"{node.lineno}: assigns .{part.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL_WRITE.search(node.value):
            found.append(f"{node.lineno}: SQL {_SQL_WRITE.search(node.value).group(0)!r}")
    return found


def reaches_database(source: str) -> bool:
    """Whether a module imports SQLAlchemy or campaign.db: one that does not (core,
    projection: they change a State in memory) cannot write a table."""
    for node in ast.walk(ast.parse(source)):
        names = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        if any(name.startswith(("sqlalchemy", "campaign.db")) for name in names):
            return True
    return False


def _modules() -> list[tuple[str, str]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if reaches_database(source):
            found.append((str(path.relative_to(PACKAGE.parent)), source))
    return found


def test_only_the_mapping_module_writes_state_tables():
    offenders = {
        relative: hits
        for relative, source in _modules()
        if relative != MAPPING
        for hits in [writes(source, relative)]
        if hits
    }
    assert offenders == {}


def test_the_pure_layers_are_skipped_and_the_database_layers_read():
    """The scan reads every module that can reach the database, and only those."""
    read = {relative for relative, _ in _modules()}
    assert {"campaign/services/recording.py", "campaign/services/disputes/voids.py", MAPPING} <= read
    assert not any(relative.startswith(("campaign/core/", "campaign/projection/")) for relative in read)


def test_the_mapping_module_is_seen_writing():
    """The check can fail: the module that does write is found writing every kind of row."""
    source = (PACKAGE.parent / MAPPING).read_text(encoding="utf-8")
    hits = writes(source, MAPPING)
    assert any("builds a Relationship row" in hit for hit in hits)
    assert any("builds a ScenarioParticipant row" in hit for hit in hits)
    assert any("delete(ScenarioParticipant)" in hit for hit in hits)


@pytest.mark.parametrize(
    "snippet, what",
    [
        ("session.add(Trait(name='x'))", "builds a Trait row"),
        ("character.pools = {}", "assigns .pools"),
        ("trait.removed_seq = 5", "assigns .removed_seq"),
        ("campaign.clock += 60", "assigns .clock"),
        ("setattr(row, 'unlimited_cp', 3)", "setattr(..., 'unlimited_cp')"),
        ("session.execute(update(Character).values(cp_total=1))", "update(Character)"),
        ("session.execute(Search.__table__.delete())", "Search.__table__.delete()"),
        ("session.execute(text('UPDATE traits SET cp = 1'))", "SQL 'UPDATE traits'"),
        ("session.execute(text('insert into scenario_participants VALUES (1, 2)'))", "SQL"),
        ("Campaign(name='x', ruleset='gurps4', settings={})", "builds a campaign row"),
    ],
)
def test_each_kind_of_write_is_caught(snippet, what):
    assert any(what in hit for hit in writes(snippet, "campaign/services/elsewhere.py")), snippet


@pytest.mark.parametrize(
    "snippet",
    [
        "session.add(SealHead(campaign_id=1, hash='x', seq=1))",
        "session.add(SecretRoll(campaign_id=1, seq=1, salt='s', result='{}'))",
        "session.execute(update(WebInvite).values(used_at='now'))",
        "row.name = 'x'",
        "text('SELECT * FROM traits')",
        "self.clock = 5",
    ],
)
def test_other_tables_and_reads_are_not_state_writes(snippet):
    assert writes(snippet, "campaign/services/elsewhere.py") == []


def test_the_mapping_covers_every_state_column():
    """Each state table's columns are its row model's fields (by name, or through a Ref),
    its key, its id and its campaign: a column without a field, or a field without a
    column, would be a state the ledger cannot rebuild (or a table replay cannot fill)."""
    from campaign.db.state_mapping import CAMPAIGN_COLUMNS, TABLES

    for table in TABLES:
        columns = {column.key for column in table.model.__table__.columns}
        mapped = set(table.plain()) | {ref.column for ref in table.refs} | {"id", table.key}
        if table.scope == "campaign":
            mapped.add("campaign_id")
        assert columns == mapped, table.section
    assert set(CAMPAIGN_COLUMNS) <= {column.key for column in models.Campaign.__table__.columns}
