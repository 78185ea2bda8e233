"""`campaign import-log FILE --ccfolia`: the dice of a ココフォリア chat log, into the ledger."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, emit_json, print_text, say
from campaign.errors import BadInput


class _Bytes:
    """A Rich progress bar over the file's bytes on a terminal; silent when piped."""

    def __init__(self, total: int) -> None:
        self._progress = None
        self._done = 0
        if sys.stderr.isatty():
            from rich.progress import Progress

            self._progress = Progress(transient=True)
            self._task = self._progress.add_task("importing", total=total or None)
            self._progress.start()

    def __call__(self, done: int) -> None:
        if self._progress is not None and done - self._done >= 1 << 16:
            self._progress.update(self._task, completed=done)
            self._done = done

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()


def _line(entry: dict[str, Any]) -> str:
    origin = entry["detail"].get("ccfolia", {})
    who = entry["character"] or f"({origin.get('speaker')})"
    dice = "" if entry["dice"] is None else f" [{','.join(map(str, entry['dice']))}]"
    seq = f"#{entry['seq']} " if "seq" in entry else ""
    text = f"{seq}{who}: {entry['expression']}{dice} = {entry['total']}"
    if entry["outcome"]:
        text += f" {entry['outcome']}"
    if entry["reason"]:
        text += f"  « {entry['reason']} »"
    return text


def import_log(
    ctx: typer.Context,
    file: str = typer.Argument(..., help="The HTML log ココフォリア exported (ログ出力)."),
    ccfolia: bool = typer.Option(False, "--ccfolia", help="The file is a ココフォリア log (the only format so far)."),
    scenario: int = typer.Option(None, "--scenario", help="Record the rolls under scenario number N "
                                                          "(default: the scenario being played, if any)."),
    map_: list[str] = typer.Option([], "--map", help="'ココフォリア名=キャラ名': whose rolls a speaker made; "
                                                     "repeatable. Speakers named like a character need none."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be recorded; write nothing."),
    json_out: bool = JsonOption,
) -> None:
    """Record the BCDice results of a chat log as ledger entries (source ccfolia), once.

    GURPS success rolls, sums, comparisons and the seed tables are recorded; secret
    dice, chat and other game systems' lines are counted and skipped. Importing the
    same log again adds nothing. All entries are written in one transaction.

    Example: campaign import-log 第12話.html --ccfolia --scenario 12 --map 'すずね=鈴音'
    """
    from campaign.services.ccfolia import import_log as import_service
    from campaign.services.ccfolia import parse_map

    if not ccfolia:
        raise BadInput("say which tool wrote the log: --ccfolia (the only format so far)")
    mapping = parse_map(map_)
    s = state(ctx)
    path = Path(file).expanduser()
    from campaign.read_limits import LOG_BYTES, BoundedBinary

    try:
        handle = BoundedBinary(open(path, "rb"), LOG_BYTES, file)  # /dev/zero or a huge file: one line
    except OSError as exc:
        raise BadInput(f"cannot read {file}: {exc.strerror}") from None
    previews: list[dict[str, Any]] = []

    def shown(entry: dict[str, Any]) -> None:  # a dry run's entries, as they come
        if json_out:
            previews.append(entry)
        else:
            print_text(_line(entry))

    with handle:
        try:
            size = os.fstat(handle.fileno()).st_size
        except OSError:
            size = 0
        bar = _Bytes(size)
        try:
            summary = import_service(s.db, s.campaign, s.actor, handle, scenario=scenario, mapping=mapping,
                                     dry_run=dry_run, progress=bar, on_entry=shown if dry_run else None)
        except IsADirectoryError:
            raise BadInput(f"cannot read {file}: it is a directory") from None
        finally:
            bar.close()
    if json_out:
        from campaign.services.results import as_json

        emit_json({**as_json(summary), "file": file, **({"entries": previews} if dry_run else {})})
        return
    verb = "would record" if dry_run else "recorded"
    seqs = f" (#{summary.first_seq}–#{summary.last_seq})" if summary.first_seq is not None else ""
    say(f"{verb} {summary.recorded} entries{seqs}: {summary.rolls} rolls, {summary.tables} tables "
        f"from {summary.messages} messages")
    say(f"skipped: {summary.duplicates} already imported, {summary.secret} secret dice, "
        f"{summary.other_system} other systems' lines, {summary.unreadable} unreadable results, "
        f"{summary.chat} chat; {summary.malformed} malformed paragraphs"
        + (f" ({summary.repaired} repaired)" if summary.repaired else ""))
    if summary.unmapped_speakers:
        say("no character for: " + ", ".join(summary.unmapped_speakers) + " (use --map 'ココフォリア名=キャラ名')")
