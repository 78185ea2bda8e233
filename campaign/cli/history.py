"""`campaign history ...`: list and filter the ledger, show, verify, seal and void entries."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand

from campaign.cli.context import state
from campaign.cli.history_words import story, untold
from campaign.cli.output import (
    JSON,
    TABLE,
    BomOption,
    Column,
    CsvOption,
    JsonOption,
    Progress,
    SinceOption,
    UntilOption,
    emit_json,
    local_time,
    output_format,
    print_fields,
    render_rows,
    say,
    warn,
)
from campaign.cli.roll import commitment_text, repeat_results
from campaign.errors import BadInput
from campaign.i18n import N_, _, language, ngettext
from campaign.labels import (
    fairness_label,
    kind_label,
    ops_summary,
    outcome_label,
    reason_label,
    source_label,
    source_words,
)
from campaign.refusal_words import words_text

if TYPE_CHECKING:
    from typer import _click  # the Click that Typer vendors

    from campaign.services.ledger.verification import HeadFound

CSV_COLUMNS = [
    "seq",
    "at",
    "actor",
    "kind",
    "character",
    "scenario",
    "parent_seq",
    "expression",
    "dice",
    "total",
    "target",
    "outcome",
    "margin",
    "source",
    "reason",
    "voids_seq",
    "voided_by",
    "hash",
]


app = typer.Typer(
    help="The roll ledger: list and filter entries, show one, verify the chain, seal, void.\n\n"
    "Example: campaign history --char 鈴音 --kind fright --scenario 12",
    invoke_without_command=True,
)


def _row(entry: dict[str, Any]) -> list[Any]:
    return [entry[c] if c != "dice" else " ".join(map(str, entry["dice"] or [])) for c in CSV_COLUMNS]


@app.callback()
def history(
    ctx: typer.Context,
    char: Annotated[str | None, typer.Option("--char", help="Only this character's entries.")] = None,
    player: Annotated[
        str | None,
        typer.Option(
            "--player",
            help="Entries of this player's characters, and every entry the player made (rolls for NPCs included).",
        ),
    ] = None,
    actor: Annotated[
        str | None, typer.Option("--actor", help="Only entries made by this actor (GM, a player's name).")
    ] = None,
    kind: Annotated[
        str | None, typer.Option("--kind", help="roll, fright, table, check, reunion, missing, search, void ...")
    ] = None,
    scenario: Annotated[
        int | None, typer.Option("--scenario", help="Only entries made during scenario number N.")
    ] = None,
    outcome: Annotated[
        str | None, typer.Option("--outcome", help="success, failure, critical_success, critical_failure.")
    ] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Where the dice came from: rng, server, manual, seeded, "
            "bcdice-api (a dice bot's token), ccfolia (an imported log).",
        ),
    ] = None,
    since: SinceOption = None,
    until: UntilOption = None,
    limit: Annotated[int, typer.Option("--limit", help="At most N entries, newest first.")] = 50,
    all_: Annotated[bool, typer.Option("--all", help="Every matching entry (streamed).")] = False,
    json_out: JsonOption = False,
    csv_out: CsvOption = False,
    bom: BomOption = False,
) -> None:
    """List ledger entries, newest first, filtered; `history show|verify|seal|void` act on it.

    Example: campaign history --char 鈴音 --kind fright --scenario 12 --json
    """
    if ctx.invoked_subcommand is not None:
        return
    from campaign.services.ledger.history import HistoryFilter, iter_history

    fmt = output_format(json_out, csv_out)
    s = state(ctx)
    flt = HistoryFilter(
        character=char,
        player=player,
        actor=actor,
        kind=kind,
        scenario=scenario,
        outcome=outcome,
        since=since,
        until=until,
        limit=None if all_ else limit,
        source=source,
    )
    entries = iter_history(s.db, s.campaign, flt)
    first = next(entries, None)  # surfaces bad filters before any output
    stream = _chain(first, entries)
    if fmt == JSON:
        render_rows(None, CSV_COLUMNS, (), fmt, bom=bom, records=stream)  # streamed: constant memory
    elif fmt == TABLE:
        zone = s.time_zone
        render_rows(
            _("history"),
            [
                "#",
                Column(N_("when"), words=True),
                N_("actor"),
                N_("kind"),
                Column(N_("character"), keep=True),
                N_("roll"),
                N_("reason"),
            ],
            (_human_row(e, zone) for e in stream),
            fmt,
            bom=bom,
            empty=_("no matching entries"),
        )
    else:
        render_rows(None, CSV_COLUMNS, (_row(e) for e in stream), fmt, bom=bom)


def _human_row(entry: dict[str, Any], zone: str | None) -> list[Any]:
    seq = str(entry["seq"]) if entry["voided_by"] is None else f"{entry['seq']} ✗#{entry['voided_by']}"
    roll = ""
    commitment = commitment_text(entry)
    if commitment:
        roll = _("secret roll by {actor} (commitment {commitment}…)").format(
            actor=entry["actor"], commitment=commitment[:8]
        )
    elif entry["expression"]:
        dice = "" if entry["dice"] is None else f" [{','.join(map(str, entry['dice']))}]"  # a log's table: no dice
        repeats = repeat_results(entry)
        roll = (
            f"{entry['expression']} → {', '.join(repeats)}"
            if repeats
            else f"{entry['expression']}{dice}={entry['total']}"
        )
        if entry["outcome"]:
            roll += " " + outcome_label(entry["kind"], entry["outcome"], (entry.get("detail") or {}).get("gurps"))
        if entry["kind"] == "reveal":
            roll = _("reveals #{seq}: {roll}").format(seq=entry["detail"].get("reveals"), roll=roll)
    elif entry["kind"] == "void" and entry.get("voids_seq") is not None:
        voided_kind = (entry["detail"] or {}).get("voided_kind")
        roll = _("voids #{seq}").format(seq=entry["voids_seq"]) + (
            f" ({kind_label(voided_kind)})" if voided_kind else ""
        )
    else:
        roll = ops_summary(entry.get("ops") or [])
    # Dice read from a chat log (import-log) are marked: this tool did not roll them.
    marked = entry["source"] in ("ccfolia", "bcdice-api")  # dice the GM's machine did not roll
    kind = kind_label(entry["kind"])
    if marked:
        kind += f" ⟨{source_label(entry['source'])}⟩"
    if entry.get("fairness") == "provable":  # derived from a committed seed and the player's share
        kind += " ⟨" + _("fair") + "⟩"
    # Who typed it, and for whom when that differs (a reunion roll for the missing PC's player).
    behalf = (entry.get("detail") or {}).get("on_behalf_of")
    actor = (
        entry["actor"]
        if not behalf or behalf == entry["actor"]
        else _("{actor} (for {behalf})").format(actor=entry["actor"], behalf=behalf)
    )
    return [seq, local_time(entry["at"], zone), actor, kind, entry["character"], roll, reason_label(entry["reason"])]


def _chain(first: dict[str, Any] | None, rest: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    if first is None:
        return
    yield first
    yield from rest


@app.command("show")
def show(
    ctx: typer.Context, seq: Annotated[int, typer.Argument(help="Entry number.")], json_out: JsonOption = False
) -> None:
    """Show one entry as readable fields: when (local time), who, what was rolled, what
    it changed and why; sub-entries follow. --json prints the raw record (UTC times,
    every field, hashes), as the ledger holds it.

    Example: campaign history show 42
    """
    from campaign.services.ledger.history import show_entry

    s = state(ctx)
    entry = show_entry(s.db, s.campaign, seq)
    if json_out:
        emit_json(entry)
        return
    print_fields(f"#{entry['seq']} {kind_label(entry['kind'])}", entry_fields(entry, s.time_zone))
    if entry["sub_entries"]:
        # each sub-entry as its line in `history`: its number, the roll, why it was rolled
        print_fields(
            _("sub-entries"),
            [
                (f"  #{sub['seq']}", "  ".join(filter(None, _human_row(sub, s.time_zone)[5:])))
                for sub in entry["sub_entries"]
            ],
        )


def entry_fields(entry: dict[str, Any], zone: str | None) -> list[tuple[str, Any]]:
    """The key/value view of one ledger entry: local time, the roll in one line, what
    it changed (its ops) and its detail one key per line, then the hashes."""
    told = story(entry)  # the sentences say what it changed, in words
    roll = None
    if entry["expression"]:
        dice = "" if entry["dice"] is None else f" [{', '.join(map(str, entry['dice']))}]"
        roll = f"{entry['expression']}{dice}"
        if entry["total"] is not None:
            roll += f" = {entry['total']}"
        if entry["target"] is not None:
            roll += " " + _("(target {target})").format(target=entry["target"])
        if entry["outcome"]:
            label = outcome_label(entry["kind"], entry["outcome"], (entry.get("detail") or {}).get("gurps"))
            roll += f": {label}"
        if entry["margin"] is not None:
            roll += ", " + _("margin {margin:+d}").format(margin=entry["margin"])
    fields: list[tuple[str, Any]] = [
        (_("when"), f"{local_time(entry['at'], zone, seconds=True)} ({entry['at']})"),
        (_("actor"), entry["actor"]),
        (_("character"), entry["character"]),
        (_("scenario"), entry["scenario"]),
        (_("part of"), f"#{entry['parent_seq']}" if entry["parent_seq"] is not None else None),
        (_("voids"), f"#{entry['voids_seq']}" if entry.get("voids_seq") is not None else None),
        (_("roll"), roll),
        (_("dice source"), source_words(entry["source"]) if entry["source"] else None),
        # provable / server / typed / imported (docs/fair-dice.md), in words
        (_("fairness"), _fairness_line(entry)),
        (_("changed"), None if told else ops_summary(entry.get("ops") or []) or None),
        (_("reason"), reason_label(entry["reason"])),
        (_("voided by"), f"#{entry['voided_by']}" if entry["voided_by"] is not None else None),
    ]
    if told:
        fields.append((_("what it means"), "\n".join(told)))
    for key, value in untold(entry).items():
        repeated = entry.get(key) == value or (key == "comment" and value == entry["reason"])
        if value is None or key in _SHOWN_ABOVE or repeated:
            continue  # said above already (the raw record is `history show N --json`)
        fields.append((f"  {key}", _detail_text(value)))
    fields += [(_("previous hash"), entry["prev_hash"]), (_("hash"), entry["hash"])]
    return [(key, value) for key, value in fields if value is not None and value != ""]


# Detail keys the roll line already says in words (the dice breakdown, the rule's working).
_SHOWN_ABOVE = {"groups", "gurps", "faces", "comparison"}


def _detail_text(value: Any) -> str:
    """A detail value on one line: text as it is, a list of plain values comma-separated,
    anything nested as compact JSON."""
    import json

    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return ", ".join(map(str, value))
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@app.command("verify")
def verify(
    ctx: typer.Context,
    head: Annotated[
        str | None,
        typer.Option(
            "--head", help="The head hash you kept from `history seal` (64 hex digits, or its first 16 or more)."
        ),
    ] = None,
    chain_only: Annotated[
        bool,
        typer.Option(
            "--chain-only",
            help="Check the hash chain (and reveals) only: not the state tables, not the GM's hidden rows.",
        ),
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Recompute the hash chain, then replay it and compare the state tables with it;
    exit 1 naming the first bad entry or the first differing row.

    With --head, also prove the chain still contains the seal you kept, and say which
    seal it is (seq, reason, time) and how many entries followed it; a prefix of 16
    or more hex digits must name exactly one seal of this chain. Every `reveal` is
    checked against its secret roll's commitment. --chain-only skips the state
    comparison and the GM-only table, so a player can run it.

    Example: campaign history verify --head 3f1c9a07e2b4d5c6
    """
    from campaign.services.checks.secret_rolls import SecretsMatch
    from campaign.services.ledger.verification import verify as verify_service

    s = state(ctx)
    s.read_only_ok = True  # a read-only copy (a mount, an archive) is verified as it is
    progress = Progress.bar("verifying", min_total=10_000)
    try:
        report = verify_service(s.db, s.campaign, head, progress=progress, chain_only=chain_only)
    finally:
        progress.stop()
    if json_out:
        emit_json(report)
    elif report.ok:
        print(report.head)
        if report.head_entry is not None:
            say(_head_line(report.head_entry, s.time_zone))
        checked = "" if report.state is None else _("; state tables equal its replay")
        if isinstance(report.secrets, SecretsMatch) and report.secrets.revealed:
            checked += _("; {n} reveals match their commitments").format(n=report.secrets.revealed)
        if report.fair and report.fair.checked:
            checked += _("; {n} fair-dice entries recompute from their seeds").format(n=report.fair.checked)
        if report.fair and report.fair.unlinked:  # recorded before they named their effect (docs/fair-dice.md)
            checked += _("; {n} fright rolls recorded before they named their effect: totals recomputed only").format(
                n=report.fair.unlinked
            )
        say(_("chain intact: {n} entries{checked}").format(n=report.entries, checked=checked))
    elif report.code == "head_not_in_chain":
        warn(
            _("{reason} (the chain itself holds: {n} entries, head {head}…)").format(
                reason=_reason(report.reason), n=report.entries, head=(report.head or "")[:16]
            )
        )
    elif report.code == "secrets_mismatch":
        warn(_("secret rolls: {reason}").format(reason=_reason(report.reason)))
    elif report.code == "state_differs":
        assert report.state is not None  # the comparison that differed
        warn(_("state differs from the ledger: {problem}").format(problem=words_text(report.state.problem or "")))
    elif report.code == "fair_dice":
        warn(_("fair dice: {reason}").format(reason=_reason(report.reason)))
    else:
        warn(_("chain broken at #{seq}: {reason}").format(seq=report.bad_seq, reason=_reason(report.reason)))
    for what in report.unchecked:
        warn(_("not checked: {what}").format(what=_(what)))
    if not report.ok:
        raise typer.Exit(1)


def _fairness_line(entry: dict[str, Any]) -> str | None:
    """`provable: … (fair dice v2)`: the label, and the derivation of derived dice."""
    if not entry.get("fairness"):
        return None
    label = fairness_label(entry["fairness"])
    version = entry.get("fair_version")
    return label if version is None else _("{label} (fair dice v{version})").format(label=label, version=version)


def _reason(reason: str | None) -> str:
    """A verify reason (English, as --json keeps it) in the output's language: a fixed one
    of this program's by the catalog, the chain's and the fair dice's (which name entries
    and values) by the one table both proof checkers share."""
    from campaign.proofcheck import reason_text

    reason = reason or ""
    worded = _(reason) if reason else reason
    return worded if worded != reason else reason_text(reason, language())


def _head_line(found: HeadFound, zone: str | None) -> str:
    """`your seal #68 (第一話 終了, 2026-…) is in this chain; 12 entries since`."""
    since = ngettext("{n} entry since", "{n} entries since", found.since).format(n=found.since)
    when = local_time(found.at, zone)
    if found.kind != "seal":
        return _("your head is entry #{seq} ({kind}, {when}; not a seal) in this chain; {since}").format(
            seq=found.seq, kind=kind_label(found.kind), when=when, since=since
        )
    about = f"{found.reason}, {when}" if found.reason else when
    return _("your seal #{seq} ({about}) is in this chain; {since}").format(seq=found.seq, about=about, since=since)


@app.command("seal")
def seal(
    ctx: typer.Context,
    reason: Annotated[str | None, typer.Option("--reason", help="E.g. 'end of session 12'.")] = None,
    json_out: JsonOption = False,
) -> None:
    """Append a seal entry and print the head hash for the players to keep.

    Example: campaign history seal --reason 'end of session 12'
    """
    from campaign.services.ledger.history import seal as seal_service

    s = state(ctx)
    sealed = seal_service(s.db, s.campaign, s.actor, reason)
    if json_out:
        emit_json(sealed)
    else:
        print(sealed.head)
        say(_("sealed at #{seq}; keep this hash to check later with `history verify --head`").format(seq=sealed.seq))


class _VoidCommand(TyperCommand):
    """`--last` with its N left out means 1 (`history void --last --reason x`)."""

    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        args = list(args)
        for i, arg in enumerate(args):
            if arg == "--":
                break
            if arg == "--last" and (i + 1 == len(args) or not args[i + 1].lstrip("-").isdigit()):
                args.insert(i + 1, "1")
                break
        return super().parse_args(ctx, args)


@app.command("void", cls=_VoidCommand)
def void(
    ctx: typer.Context,
    *,
    seqs: Annotated[
        list[int] | None, typer.Argument(help="Entries to void, one or more (a void entry: take that void back).")
    ] = None,
    last: Annotated[
        int | None,
        typer.Option(
            "--last", help="Void the newest N entries that can be voided (--last alone: the newest one).", metavar="[N]"
        ),
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why (required).")],
    cascade: Annotated[
        bool, typer.Option("--cascade", help="Also void the later entries that depend on them.")
    ] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Do not ask for confirmation (needed when not on a terminal).")
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Void entries: they stay in the ledger, marked voided, and the state becomes what
    the ledger makes without them. Several entries (or --last N) are voided in one
    transaction, with one confirmation.

    Refused when later entries depend on them (they are listed); --cascade voids them
    too, newest first. Voiding a void entry restores what it voided. On a terminal it
    shows what it will reverse and asks first; elsewhere it needs --yes.

    Example: campaign history void 42 43 --reason 'test rolls' --yes; campaign history void --last 3 --reason '試し振り' --yes
    """  # noqa: E501 - one example line, kept whole in --help
    from campaign.services.disputes.voids import preview_void
    from campaign.services.disputes.voids import void as void_service

    s = state(ctx)
    count = last
    targets = list(seqs or [])
    expect_head = None
    if not yes:
        if not sys.stdin.isatty():
            raise BadInput(_("history void changes state: confirm with --yes (not on a terminal, nothing to ask)"))
        plan = preview_void(s.db, s.campaign, targets, cascade, last=count)
        named = ", ".join(f"#{t}" for t in plan.targets)
        warn(
            (
                _("voiding {named} ({kind})").format(named=named, kind=kind_label(plan.kind))
                if len(plan.targets) == 1
                else _("voiding {named}").format(named=named)
            )
            + (_(" and, first, {seqs}").format(seqs=", ".join(f"#{d}" for d in plan.cascade)) if plan.cascade else "")
        )
        for line in plan.reversed or [_("(no state changes)")]:
            warn("  " + _("will reverse: {line}").format(line=line))
        if not typer.confirm(
            _("void it?") if len(plan.targets) == 1 else _("void these {n}?").format(n=len(plan.targets)),
            default=False,
            err=True,
        ):
            raise typer.Exit(1)
        expect_head = plan.head
    voided = void_service(
        s.db, s.campaign, s.actor, targets, reason, cascade=cascade, expect_head=expect_head, last=count
    )
    if json_out:
        emit_json(voided)
    else:
        entries = dict(zip(sorted({*voided.targets, *voided.cascade}, reverse=True), voided.void_seqs))
        for target, void_seq in entries.items():
            if target in voided.targets:
                say(_("voided #{seq} (entry #{entry})").format(seq=target, entry=void_seq))
            else:
                say(
                    _("voided #{seq} (entry #{entry}), which depended on {seqs}").format(
                        seq=target, entry=void_seq, seqs=", ".join(f"#{t}" for t in voided.targets if t < target)
                    )
                )
        for line in voided.reversed:
            say("  " + _("reversed: {line}").format(line=line))


@app.command("approve")
def approve(
    ctx: typer.Context,
    seq: Annotated[int, typer.Argument(help="The void request entry to grant.")],
    cascade: Annotated[bool, typer.Option("--cascade", help="Also void the later entries that depend on it.")] = False,
    json_out: JsonOption = False,
) -> None:
    """Grant a player's void request (group mode): the requested entry is voided, the
    void's reason naming the request.

    Example: campaign history approve 57
    """
    from campaign.services.disputes.requests import approve as approve_service

    s = state(ctx)
    voided = approve_service(s.db, s.campaign, s.actor, seq, cascade=cascade)
    if json_out:
        emit_json(voided)
    else:
        say(f"voided #{voided.voided} (entry #{voided.seq}) as requested in #{seq}")


@app.command("proof")
def proof(
    ctx: typer.Context,
    seq: Annotated[int, typer.Argument(help="The entry to prove.")],
    *,
    head: Annotated[
        str | None, typer.Option("--head", help="Prove against this seal's hash (default: the latest seal).")
    ] = None,
    output: Annotated[
        str, typer.Option("--output", "-o", help="Where to write the bundle (a .json file, '-' for stdout).")
    ],
    json_out: JsonOption = False,
) -> None:
    """Write a proof bundle: the entry and every entry from it to a sealed head.

    Anyone can check it without the database: `campaign proof check FILE`, or the
    standalone `python -m campaign.proofcheck FILE --head HASH` (one file, standard library).

    Example: campaign history proof 9 --head ae52be47…(64 hex digits) -o fright-9.json
    """
    from campaign.safe_files import replacing_one, target_path
    from campaign.services.ledger.proof import write_bundle

    s = state(ctx)
    if output == "-":  # the bundle is the one JSON document on stdout
        write_bundle(s.db, s.campaign, seq, head, sys.stdout)
        return
    # Beside the target, fsynced, then renamed (campaign.safe_files): a refused proof
    # leaves no file behind and whatever was there untouched. Bundles are for sharing.
    with replacing_one(target_path(output), mode=0o644) as out:
        summary = write_bundle(s.db, s.campaign, seq, head, out)
    if json_out:
        from campaign.services.results import as_json

        emit_json({**as_json(summary), "file": output})
    elif output != "-":
        say(
            _("wrote the proof of #{seq} to {file}: {entries} entries up to the seal #{head_seq} (head {head})").format(
                seq=summary.seq, file=output, entries=summary.entries, head_seq=summary.head_seq, head=summary.head
            )
        )


# reveal, reveal-seed and peek: the commands about hidden values, on this same `history` app.
from campaign.cli import history_hidden  # noqa: E402, F401
