"""What dominates each figure: the prose of docs/performance.md.

The harness adds the evidence measured in the same run under each note (python -X
importtime against the baseline's imports, in-process phase timings, cProfile, SQLite's
query plan). Keep these notes about structure, not about absolute times.
"""

NOTES: dict[str, str] = {
    "command": """
The baseline, `python -c "import typer, rich, sqlalchemy.orm"`, is mostly imports, then
interpreter teardown: at exit CPython runs full garbage collections over the ~50k objects
those libraries create (the note under the table times the same script with `gc.freeze()`
at its end: a fifth to a third faster). `campaign` pays the same imports, then, in order
of size: mapping the four ORM classes every command needs (campaigns, players, characters,
ledger), the SQLite dialect (SQLAlchemy imports its aiosqlite module with it), the dice
engine's modules (mostly dataclass creation), the first ORM query (mapper configuration and
statement compilation), and the append itself (two plain SQL statements, one INSERT, one
commit in WAL mode). Its console script freezes the collector before exit (campaign.cli.app.main)
after closing the database, so its teardown is nearly free; the notes under the table give
the figure without that (the same roll through the Typer app), which pays a teardown
larger than the baseline's.
""",
    "read": """
Same start-up as the command row. The `--json` path never loads Rich; the query (one
index range on ix_ledger_campaign_* plus an outer join per row on ix_ledger_campaign_voids
to mark voided entries) returns 20 rows; what remains is compiling that ORM statement once
per process and encoding the JSON.
""",
    "scale": """
The filter `--char X --kind fright` is served by ix_ledger_campaign_character
(campaign_id, character, kind, seq): SQLite walks the last 50 matching index entries
backwards, and marks voided ones through ix_ledger_campaign_voids, so the work is the same
50 rows whatever the size of the database (see the plan below). Both sides are dominated
by process start-up and rendering the Rich table. (One real regression was caught here:
an un-checkpointed 1 GB write-ahead log made every open of the big database replay it;
the CLI now closes the database explicitly at the end of every command.)
""",
    "verify": """
Verify checks, per entry: the seq, the link to the previous hash, SHA-256 over
prev_hash + record, that the record is JSON of this campaign at this seq, and every
indexed column against the record, with one set of rules (campaign/chain.py,
campaign/ledger_scan.py row_problem) shared with import and proof bundles. On SQLite the
fast path (campaign/ledger_scan.py scan) reads the rows in rowid order through the raw
DB-API cursor in batches: the stored bytes (prev_hash || record, cast to a blob by
SQLite) hashed with hashlib, the record read by msgspec for just the fields the columns
copy (it checks the rest is JSON and skips it, several times faster than json.loads or
SQLite's json_extract), and its values rendered as JSON and compared with one json_array
SQLite makes of the columns. Hashing holds the GIL, so a long chain is split in two
processes: this one scans the first half, `python -m campaign.ledger_scan` the second,
and the halves are joined only when the second hangs from the hash the first ended on.
A row the fast reading cannot vouch for is judged by the exact rules; anything else
unexpected hands the rest to the row-by-row path, which names the seq and the reason, so
the answers are those of the row-by-row path (tests/integration/test_verify_fast.py
compares them under 45 kinds of tampering, on both halves). The figure needs the second
core: with another process busy on it, it drops towards the one-core figure. The
baseline hashes bytes already in memory; verify must also read ~1.3 GB of rows.
""",
    "dice": """
Both sides cache parsed expressions (ours: functools.lru_cache on the normalised text; d20:
an LFU cache of lark trees), so the figure is evaluation: our tree of frozen dataclasses
walked by one recursive function, against d20's lark-built AST with its own node objects
and result tree. Both draw faces from a random.Random (ours through SeededDice).
""",
    "bulk": """
`campaign import` parses each line and its record (about a quarter of the time), re-hashes
the chain as it goes, and hands batches of 5,000 rows to SQLAlchemy Core's executemany
(one INSERT statement, no ORM objects). The rest is SQLite itself, as in the baseline:
maintaining the primary key and eight indexes and running the append-only guard trigger
per row. The baseline is plain sqlite3 executemany of the same rows into the same schema
(same indexes and triggers, same pragmas), one transaction, the rows parsed beforehand.
""",
    "memory-history": """
`history --all --json` streams: rows come from SQLite in batches of 1,000 (yield_per) and
are written to stdout one by one, so memory is the interpreter and its libraries plus one
batch, whatever the length of the ledger. Time goes to json.loads of each record and
json.dumps of each entry.
""",
    "memory-export": """
`export` streams the same way (batches of 5,000), writing each record exactly as hashed;
memory is flat. Time goes to writing one JSON line per entry.
""",
    "stats": """
`stats` reads exactly what `history --all --json` reads (every matching record, batches of
5,000, one json.loads each) but, instead of re-encoding and printing each entry, adds its
faces to per-source, per-die-size counters and, for a success roll, adds the exact
probability its target gave (cached per target: a long campaign asks for the same few). So
its time per entry is below history's, and the whole command pays a fixed cost on top:
importing scipy.stats (about a second here) for the chi-square and normal distributions,
which no other command imports. Memory is flat in the number of entries: the counters are
a few lists per die size. Most of the peak RSS is the scipy.stats import itself (numpy,
scipy.special, and the rest of scipy that scipy.stats pulls in, some 75 MB above the
history command): the note under the table gives the same command over a filter that
matches nothing, whose peak is within a few MB of the full run's.
""",
    "shell": """
A roll typed into `campaign shell` pays none of a process's start-up: the interpreter,
Typer, SQLAlchemy and the command modules are imported once, the database is opened (and
its revision checked) once, and SQLAlchemy's compiled-statement cache stays warm between
commands. What remains per roll is Click parsing the line, one write transaction (BEGIN
IMMEDIATE, the campaign lookup, the ledger head, one INSERT through a statement object
built once in campaign.ledger, the commit in WAL mode) and the dice themselves; the timing
wraps the whole command, output included. The one-process side is the command latency row,
paid per roll. Before the campaign lookup and the ledger INSERT were built once per process
(instead of once per call), a roll in the shell cost about 4.6 ms of CPU, most of it
SQLAlchemy building and caching the two statements again.
""",
    "build": """
The databases are generated by tests/perf/generate.py (records shaped like real ones:
roll details from the real dice engine, fright checks, scenarios opening and closing,
voids) with the chain hashes computed as it writes, and piped into `campaign import -`,
so they are built by the product's own bulk path and verified on the way in.
""",
}

OPTIMISATIONS = """
- Typer 0.29 converts every option through a Pydantic TypeAdapter built on first use
  (~80 ms of imports and schema building per run, --help's own option included):
  campaign/cli/coercion.py converts plain str/int/bool values itself and hands anything
  else (and every error) to Typer's adapter, so messages are unchanged.
- Sub-command modules load lazily (campaign/cli/app.py COMMANDS): `campaign roll` imports
  and builds one module's commands instead of all of them.
- Rich is not imported for plain text to a pipe (campaign/cli/output.py say/print_text);
  it still renders tables and terminal output.
- The state tables (traits, conditions, scenarios, ...) are mapped in
  campaign/db/models_state.py, loaded on first use through campaign.db.models, so the
  roll and history paths map four classes instead of twelve.
- ledger.head() and the open-scenario lookup are plain SQL (no ORM compilation for the
  two queries of every append); services.history loads services.effects only to void.
- The console script closes the database when the command ends and freezes the garbage
  collector before exit (campaign/cli/app.py main, campaign/cli/context.py close).
- Verify (campaign/ledger_scan.py, campaign/ledger.py _check_sqlite): a raw-cursor scan
  hashing the stored bytes and reading the record's indexed fields with msgspec (one
  JSON comparison with the columns per row), this process on the first half and a
  second process on the other; exact re-check of anything the scan cannot vouch for;
  the row-by-row path streams Core rows instead of ORM objects.
- `history --json` and `export` encode with one JSON encoder per command instead of one
  per entry (campaign/cli/history.py, campaign/services/transfer.py).
- The revision check on open is one SELECT; Alembic is imported only to upgrade.
- `campaign shell` runs many commands in one process on one open database
  (campaign/cli/shell.py); the ledger append and the campaign lookup reuse statement
  objects built once (campaign/ledger.py, campaign/services/common.py).
"""
