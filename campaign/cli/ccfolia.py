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
from campaign.i18n import N_, _

if TYPE_CHECKING:
    from campaign.services.bridges.ccfolia import LogImported
    from campaign.services.bridges.ccfolia_import import Explained


class _Bytes:
    """A Rich progress bar over the file's bytes on a terminal; silent when piped."""

    def __init__(self, total: int) -> None:
        self._progress = None
        self._done = 0
        if sys.stderr.isatty():
            from rich.progress import Progress

            self._progress = Progress(transient=True)
            self._task = self._progress.add_task(_("importing"), total=total or None)
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
        from campaign.labels import outcome_label

        text += f" {outcome_label(entry.get('kind'), entry['outcome'])}"
    if entry["reason"]:
        text += f"  « {entry['reason']} »"
    return text


REASONS = {
    "chat": N_("chat"),
    "other_system": N_("another system's line"),
    "secret": N_("secret dice (not shown)"),
    "incomplete": N_("incomplete (the file ends inside it)"),
    "contradictory": N_("contradicts itself"),
    "unreadable": N_("unreadable"),
    "duplicate": N_("imported before"),
    "unmapped_speaker": N_("unmapped speaker"),
}


# What an applied fright result did, by the effect's kind (the ledger's kinds are labels.kind_label's).
EFFECT_WORDS = {
    "fatigue": N_("fatigue"),
    "injury": N_("injury"),
    "phobia_escalation": N_("phobia worsened"),
    "lose_attribute": N_("attribute lost"),
}


def _effect(effect: dict[str, Any]) -> str:
    from campaign.labels import condition_label, kind_label

    kind = effect.get("kind", "?")
    word = _(EFFECT_WORDS[kind]) if kind in EFFECT_WORDS else kind_label(kind)
    if kind == "condition" and effect.get("condition"):
        return f"{word} {condition_label(effect['condition'])}"
    return word + (f" {effect['name']}" if effect.get("name") else "")


# The export's format and encoding as a person names them (--json keeps the codes).
FORMAT_WORDS = {
    "html-p": N_("HTML (<p> export)"),
    "html-article": N_("HTML (<article> export)"),
    "json": N_("JSON export"),
}
ENCODING_NAMES = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8", "utf-16": "UTF-16", "cp932": "Shift_JIS"}


def _format(code: str) -> str:
    shape = code.removeprefix("zip:")
    word = _(FORMAT_WORDS[shape]) if shape in FORMAT_WORDS else shape
    return _("ZIP of {format}").format(format=word) if code.startswith("zip:") else word


def _encoding(code: str) -> str:
    return ENCODING_NAMES.get(code, code)


def _explained(item: Explained) -> str:
    from campaign.refusal_words import words_text

    why = f": {words_text(item.why)}" if item.why and item.reason not in ("duplicate",) else ""
    reason = _(REASONS[item.reason]) if item.reason in REASONS else item.reason
    return "  " + _("message {number} ({speaker}) {reason}{why}  « {text} »").format(
        number=item.message + 1, speaker=item.speaker, reason=reason, why=why, text=" ".join(item.text.split())
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
            help="'SPEAKER=CHARACTER': whose rolls a speaker made; "
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
    from campaign.services.bridges.ccfolia import import_log as import_service
    from campaign.services.bridges.ccfolia import parse_map

    if not ccfolia:
        raise BadInput(_("say which tool wrote the log: --ccfolia (the only format so far)"))
    mapping = parse_map(map_)
    s = state(ctx)
    source = s.dice(dice) if apply_fright else None
    if dice is not None and not apply_fright:
        raise BadInput(_("--dice gives the dice fright effects need: it goes with --apply-fright"))
    path = Path(file).expanduser()
    from campaign.read_limits import LOG_BYTES, BoundedBinary

    try:
        handle = BoundedBinary(open(path, "rb"), LOG_BYTES, file)  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise BadInput(_("cannot read {file}: {reason}").format(file=file, reason=exc.strerror)) from None
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
            raise BadInput(_("cannot read {file}: it is a directory").format(file=file)) from None
        finally:
            bar.close()
    if json_out:
        from campaign.services.results import as_json

        emit_json({**as_json(summary), "file": file, **({"entries": previews} if dry_run else {})})
        return
    _summary(summary, dry_run, explain)


def _summary(summary: LogImported, dry_run: bool, explain: bool) -> None:
    seqs = f" (#{summary.first_seq}–#{summary.last_seq})" if summary.first_seq is not None else ""
    counts = {
        "recorded": summary.recorded,
        "seqs": seqs,
        "rolls": summary.rolls,
        "tables": summary.tables,
        "messages": summary.messages,
    }
    say(
        (
            _("would record {recorded} entries{seqs}: {rolls} rolls, {tables} tables from {messages} messages")
            if dry_run
            else _("recorded {recorded} entries{seqs}: {rolls} rolls, {tables} tables from {messages} messages")
        ).format(**counts)
    )
    repaired = _(" ({n} repaired)").format(n=summary.repaired) if summary.repaired else ""
    say(
        _(
            "skipped: {duplicates} already imported, {secret} secret dice, {other} other systems' lines, "
            "{unreadable} unreadable results, {chat} chat; {malformed} malformed paragraphs{repaired}"
        ).format(
            duplicates=summary.duplicates,
            secret=summary.secret,
            other=summary.other_system,
            unreadable=summary.unreadable,
            chat=summary.chat,
            malformed=summary.malformed,
            repaired=repaired,
        )
    )
    if summary.contradictory or summary.incomplete:
        say(
            _(
                "refused: {contradictory} lines that contradict themselves, {incomplete} incomplete "
                "(the file ends inside it); --explain lists them"
            ).format(contradictory=summary.contradictory, incomplete=summary.incomplete)
        )
    if summary.secret_recorded:
        say(_("{n} secret dice the log shows were recorded, marked secret").format(n=summary.secret_recorded))
    known = (
        _("session {session} (--session NAME to set it)").format(session=summary.session.removeprefix("session:"))
        if summary.session
        else _("messages known by their times")
    )
    parts = _(", {n} parts").format(n=summary.parts) if summary.parts > 1 else ""
    say(
        _("log: {format}, {encoding}{parts}; {known}").format(
            format=_format(summary.format), encoding=_encoding(summary.encoding), parts=parts, known=known
        )
    )
    if summary.unmapped_speakers:
        warn(
            _("no character for: {speakers} (use --map 'SPEAKER=CHARACTER')").format(
                speakers=_(", ").join(summary.unmapped_speakers)
            )
        )
    from campaign.refusal_words import words_text
    from campaign.services.bridges.ccfolia_import import FrightRead

    if summary.fright_results and not summary.fright_applied:
        say(
            _("{n} fright results recorded but not applied (--apply-fright applies them to the characters)").format(
                n=summary.fright_results
            )
        )
    for fright in summary.frights:
        if fright.applied and isinstance(fright, FrightRead) and fright.entry is not None:
            effects = _(", ").join(_effect(e.record()) for e in fright.effects) or _("nothing to change")
            say(
                _("fright: {character} FEAR {result} (entry {first}–{last}) applied as #{seq}: {effects}").format(
                    character=fright.character,
                    result=fright.result,
                    first=fright.entry[0],
                    last=fright.entry[1],
                    seq=fright.seq,
                    effects=effects,
                )
            )
        elif fright.why and summary.fright_applied:
            say(
                _("fright: message {number} ({speaker}): {why}").format(
                    number=fright.message + 1, speaker=fright.speaker, why=words_text(fright.why)
                )
            )
    if explain:
        if summary.explain:
            say(_("not recorded (and recorded without a character):"))
        for item in summary.explain:
            print_text(_explained(item))
