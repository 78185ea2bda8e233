"""Render docs/reliability.md from the figures a run of the reliability suite wrote.

CAMPAIGN_RELIABILITY_FIGURES=figures.json .venv/bin/pytest tests/reliability -q
.venv/bin/python -m tests.reliability.report figures.json > docs/reliability.md
"""

from __future__ import annotations

import json
import platform
import sys
from datetime import date
from typing import Any

BACKENDS = ("sqlite", "postgresql")


def _get(figures: dict, section: str, backend: str, key: str, default: Any = "–") -> Any:
    return figures.get(section, {}).get(backend, {}).get(key, default)


_OUTCOME = {
    "refused": "refused by the database",
    "verify": "taken; `history verify` names it",
    "taken": "taken (no check reads an entry's time)",
}


def _db_refusals(f: dict, w) -> None:
    """Section 11: the forged rows of test_db_refusals.py, case by case."""
    w("## 11. The database's own refusals (`test_db_refusals.py`, with `tests/integration/test_group_attacks.py`)\n")
    w(
        "Forged ledger rows inserted with the database owner's own connection, each with one thing wrong and "
        "everything else right (seq, link, SHA-256, columns, time). On PostgreSQL an insert trigger (migration "
        "0010) checks what `history verify` would, for every role; on SQLite a trigger checks seq and link only.\n"
    )
    w("| | SQLite | PostgreSQL |\n|---|---|---|")
    w(
        f"| forged rows refused by the database | {_get(f, 'db_refusals', 'sqlite', 'refused')} of "
        f"{_get(f, 'db_refusals', 'sqlite', 'tried')} | {_get(f, 'db_refusals', 'postgresql', 'refused')} of "
        f"{_get(f, 'db_refusals', 'postgresql', 'tried')} |"
    )
    by_backend = {backend: dict(_get(f, "db_refusals", backend, "cases", [])) for backend in BACKENDS}
    for case in dict.fromkeys(case for backend in BACKENDS for case in by_backend[backend]):
        outcomes = [_OUTCOME.get(by_backend[backend].get(case), "–") for backend in BACKENDS]
        w(f"| {case} | {outcomes[0]} | {outcomes[1]} |")
    w(
        "\nIn group mode (PostgreSQL, the owner a non-superuser with CREATEROLE; players hold no database role "
        "since migration 0016) the integration tests try the issue's attacks as the attacker would: the GM's "
        "role with a temporary `group_roles` table (TEMPORARY is revoked from PUBLIC, and every SECURITY DEFINER "
        "function pins `search_path` with `pg_temp` last, so even a granted temp table changes nothing), a "
        "fright entry with +1000 CP in a player's name written on the GM's role without that player's live "
        "session, with another player's or a revoked one (refused by the actor trigger), a forged GM entry, a "
        "row at seq 2^31-1 and one with a wrong hash from the GM's role and the owner (refused; the GM's next "
        "write and seal go on), and a held campaign lock (a role without grants cannot take it; held by another "
        'session, a writer gives up after 10 s with "the campaign is locked by another session; try again").\n'
    )


def render(figures: dict[str, Any], seconds: float | None = None) -> str:
    f = figures
    out = []
    w = out.append
    w("# Reliability and security: the figures\n")
    w(
        "Generated from an actual run of the reliability suite (`tests/reliability/`), on SQLite and on a "
        "throwaway PostgreSQL cluster the suite starts itself. Reproduce with:\n"
    )
    w(
        "```sh\nCAMPAIGN_TEST_POSTGRES=required CAMPAIGN_RELIABILITY_FIGURES=figures.json \\\n"
        "    .venv/bin/pytest tests/reliability -q\n"
        ".venv/bin/python -m tests.reliability.report figures.json > docs/reliability.md\n```\n"
    )
    w(
        "The suite is part of the default run (`make test`, `.ci/run`). Every random choice is seeded, so the "
        "figures repeat exactly except for timings and how many commits were in flight when a writer died.\n"
    )
    run_on = (
        f"Last generated {date.today().isoformat()} on {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}"
    )
    tests = f.get("suite", {}).get("all", {}).get("tests")
    w(run_on + (f": {tests} tests in {seconds:.0f} s." if seconds else ".") + "\n")

    w("## 1. Load: concurrent writers (`test_load.py`)\n")
    w(
        "8 processes x 200 mixed commands against one campaign, started together; every 50th command "
        "goes through the real `campaign` executable, the rest call the services in a loop.\n"
    )
    w("| | SQLite | PostgreSQL |\n|---|---|---|")
    for key, label in (
        ("processes", "processes"),
        ("commands", "command entries (exactly 8 x 200)"),
        ("sub_entries", "sub-entries (fright table and sub-rolls)"),
        ("entries", "ledger entries in all (with setup)"),
        ("errors", "errors seen by any process"),
        ("seconds", "wall time (s)"),
    ):
        w(f"| {label} | {_get(f, 'load', 'sqlite', key)} | {_get(f, 'load', 'postgresql', key)} |")
    ops = sorted(set(_get(f, "load", "sqlite", "by_op", {})) | set(_get(f, "load", "postgresql", "by_op", {})))
    for op in ops:
        w(
            f"| {op} | {_get(f, 'load', 'sqlite', 'by_op', {}).get(op, 0)} | "
            f"{_get(f, 'load', 'postgresql', 'by_op', {}).get(op, 0)} |"
        )
    w(
        "\nChecked: seq gapless; `history verify` passes (through the executable); every command a worker saw "
        'succeed is in the ledger under its actor, kind and sub-entry count; no "database is locked"; the '
        "tables equal the replay of the ledger's ops (every state table, every column) and "
        "`char show --json` shows that state.\n"
    )

    w("## 2. Crash: SIGKILL at random points (`test_crash.py`)\n")
    w("| | SQLite | PostgreSQL |\n|---|---|---|")
    for key, label in (
        ("kills", "fright-check writers killed with SIGKILL (seed 20261129)"),
        ("fright_checks_committed", "fright checks committed across those lives"),
        ("committed_unlogged_at_kill", "kills that came between COMMIT and the writer's log line"),
        ("entries", "ledger entries at the end"),
    ):
        w(f"| {label} | {_get(f, 'crash', 'sqlite', key)} | {_get(f, 'crash', 'postgresql', key)} |")
    w(
        f"| `campaign init` on a new database killed (before, during or after its migration) | "
        f"{_get(f, 'crash', 'sqlite', 'first_migration_kills')} | "
        f"{_get(f, 'crash', 'postgresql', 'first_migration_kills')} |"
    )
    w(
        f"| first open of a first-release database killed at each step of its upgrade and rebuild "
        f"(`test_upgrade_crash.py`) | {_get(f, 'upgrade_crash', 'sqlite', 'kills')} | "
        f"{_get(f, 'upgrade_crash', 'postgresql', 'kills')} |"
    )
    w(
        f"| `export FILE` runs killed mid-write | {_get(f, 'export_kill', 'sqlite', 'killed_mid_write')} | "
        f"{_get(f, 'export_kill', 'postgresql', 'killed_mid_write')} |"
    )
    w(
        f"| `db backup` runs killed mid-copy ({_get(f, 'backup_kill', 'sqlite', 'database_megabytes')} MB "
        f"database) | {_get(f, 'backup_kill', 'sqlite', 'killed_mid_copy')} | refused: use pg_dump |"
    )
    w(
        "\nAfter every kill: the database opens, `history verify` passes, the tables equal the replay of the "
        "ledger (no effect without its entry, no entry without its effects), and every check the writer saw "
        "commit is there. After a killed `init`, the next open completes the schema and the campaign exists "
        "whole or not at all. After every killed backup/export: the original is byte-for-byte unchanged and "
        "nothing is left under the target name (a killed process leaves its hidden `.NAME.PID.partial`).\n"
    )

    w("## 3. Tampering (`test_tamper_cli.py`, with `tests/integration/test_ledger_tamper.py`)\n")
    w("| | SQLite | PostgreSQL |\n|---|---|---|")
    w(
        f"| tamper cases detected by `history verify [--head]`, exit 1 naming the seq | "
        f"{_get(f, 'tamper', 'sqlite', 'detected')} of {_get(f, 'tamper', 'sqlite', 'cases')} | "
        f"{_get(f, 'tamper', 'postgresql', 'detected')} of {_get(f, 'tamper', 'postgresql', 'cases')} |"
    )
    w(
        f"| raw edits refused by the database itself | {_get(f, 'tamper', 'sqlite', 'raw_edits_refused')} | "
        f"{_get(f, 'tamper', 'postgresql', 'raw_edits_refused')} |"
    )
    w(
        "\nCases: a face of a roll, a face of a fright sub-roll, a total, an actor (record and column), what a "
        "fright check applied, a deleted row, a deleted fright sub-entry, a re-ordered seq, a forged entry at "
        "the end, an edited entry with its own hash recomputed; and with the sealed head: a truncated tail, a "
        "truncated tail resealed, a whole chain recomputed after an edit. Raw edits: UPDATE, DELETE, and "
        "SQLite's `INSERT OR REPLACE` / `REPLACE` (PostgreSQL: TRUNCATE, `ON CONFLICT DO UPDATE`).\n"
    )

    w("## 4. Hostile input (`test_hostile_input.py`)\n")
    w(
        "Hypothesis, `derandomize=True` (fixed seed), in-process through the real Click app with "
        "`catch_exceptions=False`: every run exits 0, 1 or 2, says something when it refuses, prints no "
        "traceback, and a refused run leaves a full dump of the database unchanged.\n"
    )
    w("| inputs per target | SQLite | PostgreSQL |\n|---|---|---|")
    for target in ("dice_expressions", "names", "numbers", "dice_lists", "dates"):
        w(
            f"| {target.replace('_', ' ')} | {_get(f, 'fuzz', 'sqlite', target + '_inputs')} | "
            f"{_get(f, 'fuzz', 'postgresql', target + '_inputs')} |"
        )
    w(
        f"| **inputs tried (hypothesis)** | **{_get(f, 'fuzz', 'sqlite', 'inputs')}** | "
        f"**{_get(f, 'fuzz', 'postgresql', 'inputs')}** |"
    )
    w(
        f"| command runs (some inputs run two commands) | {_get(f, 'fuzz', 'sqlite', 'runs')} | "
        f"{_get(f, 'fuzz', 'postgresql', 'runs')} |"
    )
    w(
        f"| matrix runs (every command x every special value) | {_get(f, 'fuzz', 'sqlite', 'matrix_runs')} | "
        f"{_get(f, 'fuzz', 'postgresql', 'matrix_runs')} |"
    )
    for code in ("0", "1", "2"):
        w(
            f"| hypothesis runs that exited {code} | {_get(f, 'fuzz_exits', 'sqlite', code, 0)} | "
            f"{_get(f, 'fuzz_exits', 'postgresql', code, 0)} |"
        )
    w(
        "\nNames include SQL metacharacters, quotes, 10,000-character strings, emoji and ZWJ sequences, "
        "right-to-left text and overrides, NUL, control characters and bytes that are not UTF-8; numbers "
        "include 5,000-digit, negative, 32/64-bit boundary and non-ASCII digits; `--dice` lists, dates and "
        "times with every UTC offset.\n"
    )

    w("## 5. Migrations (`test_migrations_data.py`)\n")
    w("| | SQLite | PostgreSQL |\n|---|---|---|")
    w(
        f"| upgrades from an earlier revision with data | {_get(f, 'migrations', 'sqlite', 'upgrades_with_data')} "
        f"| {_get(f, 'migrations', 'postgresql', 'upgrades_with_data')} |"
    )
    w(
        f"| rows kept through those upgrades | {_get(f, 'migrations', 'sqlite', 'rows_kept')} | "
        f"{_get(f, 'migrations', 'postgresql', 'rows_kept')} |"
    )
    w(
        f"| downgrade + upgrade round trips (every step to base) | {_get(f, 'migrations', 'sqlite', 'round_trips')} "
        f"| {_get(f, 'migrations', 'postgresql', 'round_trips')} |"
    )
    w(
        "\nThe tests iterate over Alembic's revision list, so a new revision is covered without editing them. "
        "After each: `history verify` passes, the state matches the ledger, the ledger guards are in place and "
        "Alembic `check` finds no drift; a round trip restores exactly the schema of a fresh database (tables, "
        "columns, keys, indexes, constraints, triggers).\n"
    )

    w("## 6. Files (`test_files.py`)\n")
    w(
        f"- Owner-only (0600) even under umask 000: the database, its WAL and SHM, a backup, the default "
        f"database in the user data directory ({_get(f, 'files', 'sqlite', 'private_files_checked')} files)."
    )
    w(
        f"- Refused with one `error:` line, exit 1, no traceback, every byte kept: "
        f"{_get(f, 'files', 'sqlite', 'refused_databases')} kinds of SQLite file (text, random bytes, another "
        f"program's database, wrecked schema page, cut short, header then junk, a newer campaign's schema, a "
        f"missing revision, a directory), each through 7 commands: {_get(f, 'files', 'sqlite', 'refused_runs')} "
        f"runs (`db current` may report a newer revision: that is its job); "
        f"PostgreSQL: {_get(f, 'files', 'postgresql', 'refused_runs')} runs over a foreign database, a newer "
        f"schema and an unreachable server.\n"
    )

    w("## 7. Moving a campaign (`test_transfer_more.py`, with `tests/integration/test_transfer.py`)\n")
    w(
        f"- SQLite -> PostgreSQL -> SQLite with fright traits, conditions, pools, trait changes, a voided fright "
        f"check, a missing character and a search ({_get(f, 'transfer', 'sqlite->postgresql->sqlite', 'entries')} "
        f"entries): identical `history --all --json`, `char show --json`, trait/condition/missing/scenario "
        f"listings, settings and export files; state still equals the ledger; a pre-move fright check voids "
        f"after the move."
    )
    w("- `--campaign C export` picks one of several; without a choice it is refused and writes nothing.")
    w("- `export -` / `import -` through stdout/stdin, in-process and as a real shell pipe into each backend.")
    w(
        f"- Refused imports (a fright sub-roll face, a trait of an unknown character, edited ops, a "
        f"wrong footer head, a second header): {_get(f, 'transfer', 'sqlite', 'refused_imports')} on SQLite and "
        f"{_get(f, 'transfer', 'postgresql', 'refused_imports')} on PostgreSQL, each naming its line and leaving "
        f"a full dump of the target unchanged.\n"
    )
    w("## 8. Forged state (`test_forged_state.py`, with `tests/integration/test_projection_property.py`)\n")
    w(
        "The state tables are the projection of the ledger: `history verify` replays every live entry's ops "
        "and compares each table, row and column with what it finds.\n"
    )
    w("| | SQLite | PostgreSQL |\n|---|---|---|")
    w(
        f"| direct edits of state tables named by `history verify` (exit 1, table, row, column) | "
        f"{_get(f, 'forged_state', 'sqlite', 'edits_detected')} of {_get(f, 'forged_state', 'sqlite', 'edits')} | "
        f"{_get(f, 'forged_state', 'postgresql', 'edits_detected')} of "
        f"{_get(f, 'forged_state', 'postgresql', 'edits')} |"
    )
    w(
        f"| imports with forged state lines refused, target unchanged | "
        f"{_get(f, 'forged_state', 'sqlite', 'imports_refused')} of {_get(f, 'forged_state', 'sqlite', 'imports')} | "
        f"{_get(f, 'forged_state', 'postgresql', 'imports_refused')} of "
        f"{_get(f, 'forged_state', 'postgresql', 'imports')} |"
    )
    w(
        "\nEdits: campaign settings; a character's CP total, stats and pools; a deleted relationship; a deleted "
        "trait; a trait's limit flag; a cleared condition restored; an ended scenario reopened; a reunion die; "
        "an ended search restarted; a forged reunion roll (1, success); an inserted player. After each, "
        "`--chain-only` still passes (the chain was not touched) and replaying the ledger repairs the tables. "
        "Forged import lines: CP total, a stat, a stat as a string, NaN, a number beyond 64 bits, settings as a "
        "list, a reunion of 7 on 1d6 marked success, an untracked trait.\n"
    )
    w(
        "A property test (hypothesis, derandomised) runs random programs of fright checks, trait and condition "
        "changes, settings, disappearances, scenarios with search parties and reunion checks, interleaved with "
        "voids (alone, cascaded, voids of voids): after every step the tables equal the replay.\n"
    )
    w("## 9. Concurrent writers on one campaign (`tests/integration/test_snapshots.py`)\n")
    w("| | SQLite | PostgreSQL |\n|---|---|---|")
    w(
        f"| settings changes by 2 processes at once / lost updates | "
        f"{_get(f, 'concurrency', 'sqlite', 'settings_changes')} / "
        f"{_get(f, 'concurrency', 'sqlite', 'lost_updates')} | "
        f"{_get(f, 'concurrency', 'postgresql', 'settings_changes')} / "
        f"{_get(f, 'concurrency', 'postgresql', 'lost_updates')} |"
    )
    w(
        f"| exports under a concurrent writer / consistent with their own ledger | "
        f"{_get(f, 'concurrency', 'sqlite', 'exports')} / {_get(f, 'concurrency', 'sqlite', 'exports_consistent')} | "
        f"{_get(f, 'concurrency', 'postgresql', 'exports')} / "
        f"{_get(f, 'concurrency', 'postgresql', 'exports_consistent')} |"
    )
    w(
        f"| first uses of a blank database at once (4 x 4 processes) / failures | — | "
        f"{_get(f, 'concurrency', 'postgresql', 'first_use_processes')} / "
        f"{_get(f, 'concurrency', 'postgresql', 'first_use_failures')} |"
    )
    w(
        "\nEach settings entry's `before` equals the previous entry's `after` (the campaign row is locked before "
        "it is read); each export's state lines agree with its own entries (one REPEATABLE READ snapshot on "
        "PostgreSQL); the first migration of a blank PostgreSQL database runs under an advisory lock.\n"
    )
    w("## 10. Web feed load (`test_web_load.py`)\n")
    w(
        "`campaign serve` as a subprocess; 50 Server-Sent Event clients on `/api/feed` (httpx streams in one "
        "event loop) while another process rolls through the services layer at a paced 20 rolls/s for 30 s.\n"
    )
    w("| | SQLite | PostgreSQL |\n|---|---|---|")
    for key, label in (
        ("clients", "concurrent feed clients"),
        ("entries", "entries written (20/s x 30 s)"),
        ("rate", "rolls per second achieved by the writer"),
        ("events", "entry events delivered (clients x entries)"),
        ("errors", "errors (writer, streams, server log)"),
        ("latency_p50_ms", "delivery latency p50, commit to client (ms)"),
        ("latency_p95_ms", "delivery latency p95 (ms)"),
        ("latency_max_ms", "delivery latency max (ms)"),
        ("seconds", "wall time (s)"),
    ):
        w(f"| {label} | {_get(f, 'web_feed', 'sqlite', key)} | {_get(f, 'web_feed', 'postgresql', key)} |")
    w(
        "\nChecked: every client received every entry exactly once and in seq order, no stream failed or "
        "stalled, the server logged no error.\n"
    )
    _db_refusals(f, w)
    w("## Bugs these tests found (all fixed)\n")
    for line in FOUND:
        w(f"- {line}")
    w("")
    return "\n".join(out)


FOUND = [
    "SQLite's `INSERT OR REPLACE INTO ledger` overwrote an entry despite the append-only triggers (REPLACE "
    "deletes without firing DELETE triggers): migration 0002 adds `ledger_no_replace`.",
    "`history show N`, `history void N`, `history --limit N` and `--scenario N` with N beyond 64 bits ended in a "
    "traceback (SQLite OverflowError): out-of-range numbers now match nothing or are refused.",
    "`history --since/--until` at the edges of the calendar with a UTC offset (`0001-01-01T00:00+01:00`, "
    "`--until 9999-12-31`) ended in a traceback: refused with exit 2.",
    "Any argument with bytes that are not UTF-8 (a Latin-1 file name, `$'\\xff'`) ended in a traceback when "
    "stored or hashed: refused up front with exit 2.",
    "A looked-up name containing NUL ended in a traceback on PostgreSQL (text cannot hold NUL): treated as "
    "unknown (exit 1), as on SQLite.",
    "A database written by a newer campaign (unknown schema revision) ended in an Alembic traceback: one "
    "line saying so, exit 1, file untouched.",
    "A campaign database with an empty `alembic_version` made the tool try to create its tables again "
    "(traceback): refused as not a campaign database.",
    "One-line messages were hard-wrapped at 80 columns by Rich when stderr was not a terminal (logs, "
    "pipes): a message is now always one line.",
]


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        data = json.load(handle)
    seconds = data.get("suite", {}).get("all", {}).get("seconds")
    sys.stdout.write(render(data, seconds))
