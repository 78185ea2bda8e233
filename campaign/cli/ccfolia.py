"""`campaign import-log FILE --ccfolia`: the dice of a ココフォリア chat log, into the ledger."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO, cast

import typer

from campaign.cli.context import state
from campaign.cli.output import DiceOption, JsonOption, emit_json, print_text, say, warn
from campaign.errors import BadInput

if TYPE_CHECKING:
    from campaign.services.ccfolia import LogImported


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


REASONS = {
    "chat": "chat",
    "other_system": "another system's line",
    "secret": "secret dice (not shown)",
    "incomplete": "incomplete (the file ends inside it)",
    "contradictory": "contradicts itself",
    "unreadable": "unreadable",
    "duplicate": "imported before",
    "unmapped_speaker": "unmapped speaker",
}


def _explained(item: dict[str, Any]) -> str:
    why = f": {item['why']}" if item.get("why") and item["reason"] not in ("duplicate",) else ""
    return (
        f"  message {item['message'] + 1} ({item['speaker']}) {REASONS.get(item['reason'], item['reason'])}"
        f"{why}  « {' '.join(item['text'].split())} »"
    )


def import_log(
    ctx: typer.Context,
    file: Annotated[
        str, typer.Argument(help="The export: ルーム名.html (ログ出力), its ZIP of parts, or the JSON log.")
    ],
    ccfolia: Annotated[
        bool, typer.Option("--ccfolia", help="The file is a ココフォリア log (the only format so far).")
    ] = False,
    scenario: Annotated[
        int | None,
        typer.Option(
            "--scenario", help="Record the rolls under scenario number N (default: the scenario being played, if any)."
        ),
    ] = None,
    map_: Annotated[
        list[str],
        typer.Option(
            "--map",
            help="'ココフォリア名=キャラ名': whose rolls a speaker made; "
            "repeatable ('(no name)=…' for an empty speaker). "
            "Speakers named like a character need none.",
        ),
    ] = [],
    session_name: Annotated[
        str | None,
        typer.Option(
            "--session",
            help="The session this log is (the identity its messages are known by; default: from the log itself).",
        ),
    ] = None,
    apply_fright: Annotated[
        bool,
        typer.Option(
            "--apply-fright", help="Apply each fright result (FEAR+n) to its character, as `campaign fright` does."
        ),
    ] = False,
    explain: Annotated[bool, typer.Option("--explain", help="List every message not recorded, and why.")] = False,
    dice: DiceOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be recorded; write nothing.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Record the BCDice results of a chat log as ledger entries (source ccfolia), once.

    Reads every ココフォリア export (the <p> and <article> HTML, a ZIP of its parts, the
    JSON log) in UTF-8, UTF-16 or Shift_JIS. GURPS success rolls (also T-3D6, and
    repeats: each answer), sums, comparisons and tables (BCDice's own, named as BCDice
    names them) are recorded; secret dice the log shows are recorded marked secret. Chat,
    other systems' lines, unshown secret dice, a line that contradicts itself and a last
    message the file ends inside are not: --explain lists them. Importing the same log
    (or a longer export of it) again adds only what is new. One transaction.

    Example: campaign import-log 第12話.html --ccfolia --scenario 12 --map 'すずね=鈴音' --apply-fright
    """
    from campaign.services.ccfolia import import_log as import_service
    from campaign.services.ccfolia import parse_map

    if not ccfolia:
        raise BadInput("say which tool wrote the log: --ccfolia (the only format so far)")
    mapping = parse_map(map_)
    s = state(ctx)
    source = s.dice(dice) if apply_fright else None
    if dice is not None and not apply_fright:
        raise BadInput("--dice gives the dice fright effects need: it goes with --apply-fright")
    path = Path(file).expanduser()
    from campaign.read_limits import LOG_BYTES, BoundedBinary

    try:
        handle = BoundedBinary(open(path, "rb"), LOG_BYTES, file)  # noqa: SIM115 - closed by the with below
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
            summary = import_service(
                s.db,
                s.campaign,
                s.actor,
                cast(BinaryIO, handle),  # a BoundedBinary passes every other file method through
                scenario=scenario,
                mapping=mapping,
                dry_run=dry_run,
                session_name=session_name,
                apply_fright=apply_fright,
                explain=explain or json_out,
                source=source,
                progress=bar,
                on_entry=shown if dry_run else None,
            )
        except IsADirectoryError:
            raise BadInput(f"cannot read {file}: it is a directory") from None
        finally:
            bar.close()
    if json_out:
        from campaign.services.results import as_json

        emit_json({**as_json(summary), "file": file, **({"entries": previews} if dry_run else {})})
        return
    _summary(summary, dry_run, explain)


def _summary(summary: LogImported, dry_run: bool, explain: bool) -> None:
    verb = "would record" if dry_run else "recorded"
    seqs = f" (#{summary.first_seq}–#{summary.last_seq})" if summary.first_seq is not None else ""
    say(
        f"{verb} {summary.recorded} entries{seqs}: {summary.rolls} rolls, {summary.tables} tables "
        f"from {summary.messages} messages"
    )
    say(
        f"skipped: {summary.duplicates} already imported, {summary.secret} secret dice, "
        f"{summary.other_system} other systems' lines, {summary.unreadable} unreadable results, "
        f"{summary.chat} chat; {summary.malformed} malformed paragraphs"
        + (f" ({summary.repaired} repaired)" if summary.repaired else "")
    )
    if summary.contradictory or summary.incomplete:
        say(
            f"refused: {summary.contradictory} lines that contradict themselves, {summary.incomplete} incomplete "
            "(the file ends inside it); --explain lists them"
        )
    if summary.secret_recorded:
        say(f"{summary.secret_recorded} secret dice the log shows were recorded, marked secret")
    known = (
        f"session {summary.session} (--session NAME to set it)" if summary.session else "messages known by their times"
    )
    say(
        f"log: {summary.format}, {summary.encoding}"
        + (f", {summary.parts} parts" if summary.parts > 1 else "")
        + f"; {known}"
    )
    if summary.unmapped_speakers:
        warn("no character for: " + ", ".join(summary.unmapped_speakers) + " (use --map 'ココフォリア名=キャラ名')")
    if summary.fright_results and not summary.fright_applied:
        say(
            f"{summary.fright_results} fright results recorded but not applied "
            "(--apply-fright applies them to the characters)"
        )
    for fright in summary.frights:
        if fright.get("applied"):
            effects = (
                ", ".join(e.get("kind", "?") + (f" {e['name']}" if e.get("name") else "") for e in fright["effects"])
                or "nothing to change"
            )
            say(
                f"fright: {fright['character']} FEAR {fright['result']} (entry {fright['entry'][0]}–"
                f"{fright['entry'][1]}) applied as #{fright['seq']}: {effects}"
            )
        elif fright.get("why") and summary.fright_applied:
            say(f"fright: message {fright['message'] + 1} ({fright['speaker']}): {fright['why']}")
    if explain:
        if summary.explain:
            say("not recorded (and recorded without a character):")
        for item in summary.explain:
            print_text(_explained(item))
