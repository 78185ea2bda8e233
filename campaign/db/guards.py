"""The triggers that make the ledger append-only in the database itself.

Dropping them is how a tamperer would prepare an edit of history, so `db current` looks
for each one by name (and, on PostgreSQL, that it is enabled and its function exists) and
reports every missing one as damage.
"""

from __future__ import annotations

from sqlalchemy import Engine, text

# By schema revision that created them (migrations/versions/0001*, 0002*, 0010*).
SQLITE_GUARDS = {
    "ledger_no_update": "0001",
    "ledger_no_delete": "0001",
    "ledger_no_replace": "0002",
    "ledger_append_follows_head": "0010",
}
POSTGRES_TRIGGERS = ("ledger_no_update_delete", "ledger_no_truncate")
POSTGRES_FUNCTION = "ledger_refuse_change"
# 0010: the insert trigger that refuses a row not extending the chain, and its function.
POSTGRES_CHAIN = ("ledger_chain_holds", "ledger_check_chain", "0010")


def missing_ledger_guards(engine: Engine, revision: str | None) -> list[str]:
    """One line per guard that should be there at this revision and is not."""
    if revision is None:
        return []  # a blank database has no ledger yet
    with engine.connect().execution_options(sqlite_begin="DEFERRED") as conn:
        if engine.dialect.name == "sqlite":
            rows = conn.execute(
                text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'ledger'")
            ).all()
            present = {name for name, sql in rows if sql and "RAISE" in sql.upper()}
            return [
                f"ledger trigger {name} is missing: the ledger can be changed in place"
                for name, since in SQLITE_GUARDS.items()
                if revision >= since and name not in present
            ]
        rows = conn.execute(
            text(
                "SELECT t.tgname, t.tgenabled, p.proname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid "
                "WHERE t.tgrelid = to_regclass('ledger') AND NOT t.tgisinternal"
            )
        ).all()
        function = conn.execute(
            text("SELECT count(*) FROM pg_proc WHERE proname = :name"), {"name": POSTGRES_FUNCTION}
        ).scalar()
    found = {name: (enabled, proname) for name, enabled, proname in rows}
    problems = []
    for name in POSTGRES_TRIGGERS:
        if name not in found:
            problems.append(f"ledger trigger {name} is missing: the ledger can be changed in place")
        elif found[name][0] == "D":
            problems.append(f"ledger trigger {name} is disabled: the ledger can be changed in place")
        elif found[name][1] != POSTGRES_FUNCTION:
            problems.append(f"ledger trigger {name} calls {found[name][1]}(), not {POSTGRES_FUNCTION}()")
    if not function:
        problems.append(f"ledger trigger function {POSTGRES_FUNCTION}() is missing")
    trigger, checker, since = POSTGRES_CHAIN
    if revision >= since:
        if trigger not in found:
            problems.append(f"ledger trigger {trigger} is missing: rows that break the chain can be inserted")
        elif found[trigger][0] == "D" or found[trigger][1] != checker:
            problems.append(f"ledger trigger {trigger} is disabled or calls {found[trigger][1]}(), not {checker}()")
    return problems
