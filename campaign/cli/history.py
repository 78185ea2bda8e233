"""`campaign roll` and `campaign history ...`: rolling, reading and proving the ledger."""

from __future__ import annotations

import sys
from typing import Any

import typer

from campaign.cli.context import state
from campaign.cli.output import (
    CsvOption,
    DiceOption,
    JsonOption,
    emit_json,
    print_fields,
    print_table,
    say,
)

CSV_COLUMNS = ["seq", "at", "actor", "kind", "character", "scenario", "parent_seq", "expression", "dice", "total",
               "target", "outcome", "margin", "source", "reason", "voided_by", "hash"]
OUTCOME_LABELS = {"success": "成功", "failure": "失敗", "critical_success": "決定的成功",
                  "critical_failure": "致命的失敗"}

history_app = typer.Typer(
    help="The roll ledger: list and filter entries, show one, verify the chain, seal, void.\n\n"
         "Example: campaign history --char 鈴音 --kind fright --scenario 12",
    invoke_without_command=True,
)


def roll(
    ctx: typer.Context,
    expression: list[str] = typer.Argument(..., help="Dice expression; words after it are a comment."),
    char: str = typer.Option(None, "--char", help="Character making the roll."),
    reason: str = typer.Option(None, "--reason", help="Why the roll is made (else the comment)."),
    dice: str = DiceOption,
    json_out: bool = JsonOption,
) -> None:
    """Roll BCDice-style dice and record the roll in the ledger.

    3D6<=12 in a GURPS campaign is a success roll with criticals; also 2D6+3>=10,
    4D6KH3, D66, 3B6>=4, x3 2D6, and table commands such as CRT or FEAR+5.

    Example: campaign roll '3D6<=12' 回避 --char 鈴音
    """
    from campaign.services.rolls import roll as roll_service

    s = state(ctx)
    entry = roll_service(s.db, s.campaign, s.actor, " ".join(expression), s.dice(dice), character=char, reason=reason)
    if json_out:
        emit_json(entry)
    else:
        render_roll(entry)


def render_roll(entry: dict[str, Any]) -> None:
    from campaign.cli.output import print_text

    who = f"{entry['character']}: " if entry["character"] else ""
    dice = ",".join(str(face) for face in entry["dice"] or [])
    line = f"#{entry['seq']} {who}{entry['expression']} → [{dice}] = {entry['total']}"
    if entry["outcome"]:
        line += f" → {OUTCOME_LABELS.get(entry['outcome'], entry['outcome'])} {entry['outcome']}"
        if entry["margin"] is not None:
            line += f" (margin {entry['margin']:+d})"
    if entry["reason"]:
        line += f"  « {entry['reason']} »"
    print_text(line)
    for line in entry["detail"].get("lines", []):
        print_text("  " + line)


def _row(entry: dict[str, Any]) -> list[Any]:
    return [entry[c] if c != "dice" else " ".join(map(str, entry["dice"] or [])) for c in CSV_COLUMNS]


def _stream_json(entries) -> None:
    """A JSON array written entry by entry: constant memory however long the history."""
    import json

    encode = json.JSONEncoder(ensure_ascii=False).encode  # one encoder, not one per entry
    out = sys.stdout
    out.write("[")
    for index, entry in enumerate(entries):
        if index:
            out.write(",\n")
        out.write(encode(entry))
    out.write("]\n")


@history_app.callback()
def history(
    ctx: typer.Context,
    char: str = typer.Option(None, "--char", help="Only this character's entries."),
    player: str = typer.Option(None, "--player", help="Only entries of this player's characters."),
    kind: str = typer.Option(None, "--kind", help="roll, fright, table, check, reunion, missing, search, void ..."),
    scenario: int = typer.Option(None, "--scenario", help="Only entries made during scenario number N."),
    outcome: str = typer.Option(None, "--outcome", help="success, failure, critical_success, critical_failure."),
    since: str = typer.Option(None, "--since", help="From this date (YYYY-MM-DD) or ISO time, UTC."),
    until: str = typer.Option(None, "--until", help="Up to this date (inclusive) or ISO time, UTC."),
    limit: int = typer.Option(50, "--limit", help="At most N entries, newest first."),
    all_: bool = typer.Option(False, "--all", help="Every matching entry (streamed)."),
    json_out: bool = JsonOption,
    csv_out: bool = CsvOption,
) -> None:
    """List ledger entries, newest first, filtered; `history show|verify|seal|void` act on it.

    Example: campaign history --char 鈴音 --kind fright --scenario 12 --json
    """
    if ctx.invoked_subcommand is not None:
        return
    from campaign.services.history import HistoryFilter, iter_history

    s = state(ctx)
    flt = HistoryFilter(character=char, player=player, kind=kind, scenario=scenario, outcome=outcome,
                        since=since, until=until, limit=None if all_ else limit)
    entries = iter_history(s.db, s.campaign, flt)
    first = next(entries, None)  # surfaces bad filters before any output
    stream = _chain(first, entries)
    if json_out:
        _stream_json(stream)
    elif csv_out:
        from campaign.cli.output import print_csv

        print_csv(CSV_COLUMNS, (_row(e) for e in stream))
    else:
        print_table("history", ["#", "when (UTC)", "actor", "kind", "character", "roll", "reason"],
                    (_human_row(e) for e in stream))


def _human_row(entry: dict[str, Any]) -> list[Any]:
    seq = str(entry["seq"]) if entry["voided_by"] is None else f"{entry['seq']} ✗#{entry['voided_by']}"
    roll = ""
    if entry["expression"]:
        dice = ",".join(map(str, entry["dice"] or []))
        roll = f"{entry['expression']} [{dice}]={entry['total']}"
        if entry["outcome"]:
            roll += " " + OUTCOME_LABELS.get(entry["outcome"], entry["outcome"])
    return [seq, entry["at"][5:16].replace("T", " "), entry["actor"], entry["kind"], entry["character"], roll,
            entry["reason"]]


def _chain(first, rest):
    if first is None:
        return
    yield first
    yield from rest


@history_app.command("show")
def show(ctx: typer.Context, seq: int = typer.Argument(..., help="Entry number."), json_out: bool = JsonOption) -> None:
    """Show one entry with every die, what it applied, and its sub-entries.

    Example: campaign history show 42
    """
    from campaign.services.history import show_entry

    s = state(ctx)
    entry = show_entry(s.db, s.campaign, seq)
    if json_out:
        emit_json(entry)
        return
    import json

    fields = [(key, entry[key]) for key in ("at", "actor", "kind", "character", "scenario", "parent_seq", "expression",
                                            "dice", "total", "target", "outcome", "margin", "source", "reason",
                                            "voided_by", "prev_hash", "hash") if entry[key] is not None]
    fields.append(("detail", json.dumps(entry["detail"], ensure_ascii=False)))
    print_fields(f"#{entry['seq']}", fields)
    for sub in entry["sub_entries"]:
        print_fields(f"  #{sub['seq']} ({sub['kind']})", [(k, sub[k]) for k in ("expression", "dice", "total",
                                                                                "outcome", "reason") if sub[k]])


class _Progress:
    """A Rich progress bar on a terminal; nothing when piped."""

    def __init__(self) -> None:
        self._bar = None

    def start(self, total: int) -> None:
        if sys.stderr.isatty() and total > 10_000:
            from rich.progress import Progress

            self._bar = Progress(transient=True)
            self._bar.start()
            self._task = self._bar.add_task("verifying", total=total)
            self._pending = 0

    def advance(self, n: int) -> None:
        if self._bar is not None:
            self._pending += n
            if self._pending >= 5000:
                self._bar.advance(self._task, self._pending)
                self._pending = 0

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()


@history_app.command("verify")
def verify(
    ctx: typer.Context,
    head: str = typer.Option(None, "--head", help="A head hash printed earlier by `history seal`."),
    json_out: bool = JsonOption,
) -> None:
    """Recompute the hash chain; exit 1 naming the first bad entry.

    With --head, also prove the chain still contains that sealed head (detects a
    rewritten or truncated history).

    Example: campaign history verify --head 3f1c…(64 hex digits)
    """
    from campaign.services.history import verify as verify_service

    s = state(ctx)
    progress = _Progress()
    try:
        report = verify_service(s.db, s.campaign, head, progress=progress)
    finally:
        progress.stop()
    if json_out:
        emit_json(report)
    elif report["ok"]:
        print(report["head"])
        say(f"chain intact: {report['entries']} entries")
    else:
        say(f"chain broken at #{report['bad_seq']}: {report['reason']}")
    if not report["ok"]:
        raise typer.Exit(1)


@history_app.command("seal")
def seal(ctx: typer.Context, reason: str = typer.Option(None, "--reason", help="E.g. 'end of session 12'."),
         json_out: bool = JsonOption) -> None:
    """Append a seal entry and print the head hash for the players to keep.

    Example: campaign history seal --reason 'end of session 12'
    """
    from campaign.services.history import seal as seal_service

    s = state(ctx)
    sealed = seal_service(s.db, s.campaign, s.actor, reason)
    if json_out:
        emit_json(sealed)
    else:
        print(sealed["head"])
        say(f"sealed at #{sealed['seq']}; keep this hash to check later with `history verify --head`")


@history_app.command("void")
def void(
    ctx: typer.Context,
    seq: int = typer.Argument(..., help="Entry to void."),
    reason: str = typer.Option(..., "--reason", help="Why (required)."),
    json_out: bool = JsonOption,
) -> None:
    """Void an entry: it stays in the ledger, marked voided, and what it applied is reversed.

    Example: campaign history void 42 --reason 'wrong character'
    """
    from campaign.services.history import void as void_service

    s = state(ctx)
    voided = void_service(s.db, s.campaign, s.actor, seq, reason)
    if json_out:
        emit_json(voided)
    else:
        say(f"voided #{voided['voided']} (entry #{voided['seq']})")
        for line in voided["reversed"]:
            say(f"  reversed: {line}")


@history_app.command("proof")
def proof(
    ctx: typer.Context,
    seq: int = typer.Argument(..., help="The entry to prove."),
    head: str = typer.Option(None, "--head", help="Prove against this seal's hash (default: the latest seal)."),
    output: str = typer.Option(..., "--output", "-o", help="Where to write the bundle (a .json file, '-' for stdout)."),
    json_out: bool = JsonOption,
) -> None:
    """Write a proof bundle: the entry and every entry from it to a sealed head.

    Anyone can check it without the database: `campaign proof check FILE`, or the
    standalone `python -m campaign.proofcheck FILE --head HASH` (one file, standard library).

    Example: campaign history proof 9 --head ae52be47…(64 hex digits) -o fright-9.json
    """
    import os
    from pathlib import Path

    from campaign.errors import BadInput
    from campaign.services.proof import write_bundle

    s = state(ctx)
    if output == "-":  # the bundle is the one JSON document on stdout
        write_bundle(s.db, s.campaign, seq, head, sys.stdout)
        return
    else:
        target = Path(output).expanduser()
        if target.is_dir():
            raise BadInput(f"{target} is a directory")
        tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            with open(tmp, "w", encoding="utf-8") as out:
                summary = write_bundle(s.db, s.campaign, seq, head, out)
            os.replace(tmp, target)  # a refused proof leaves no file behind
        except FileNotFoundError:
            raise BadInput(f"cannot write {target}: no such directory") from None
        finally:
            if tmp.exists():
                tmp.unlink()
    if json_out:
        emit_json({**summary, "file": output})
    elif output != "-":
        say(f"wrote the proof of #{summary['seq']} to {output}: {summary['entries']} entries up to the seal "
            f"#{summary['head_seq']} (head {summary['head']})")
