"""`campaign proof check`: verify a proof bundle without any database."""

from __future__ import annotations

import typer

from campaign.cli.output import JsonOption, emit_json, print_text, say, warn

app = typer.Typer(
    help="Proof bundles written by `history proof`: check one without the database.\n\n"
         "Example: campaign proof check fright-9.json --head ae52be47…",
    no_args_is_help=True,
)


@app.command("check")
def check(
    file: str = typer.Argument(..., help="A bundle written by `campaign history proof`."),
    head: str = typer.Option(None, "--head", help="The head hash you kept from `history seal`."),
    json_out: bool = JsonOption,
) -> None:
    """Recompute the bundle's chain from its anchor to its sealed head; exit 1 naming a bad entry.

    Opens no database: the bundle alone is checked, against the head you give.

    Example: campaign proof check fright-9.json --head ae52be47…(64 hex digits)
    """
    from campaign.proofcheck import describe
    from campaign.services.proof import ProofRejected, check_file

    try:
        result = check_file(file, head)
    except ProofRejected as exc:
        if json_out:
            emit_json({"ok": False, "bad_seq": exc.seq, "reason": exc.reason})
        warn(f"proof rejected: {exc}")
        raise typer.Exit(1) from None
    if json_out:
        emit_json(result)
    else:
        print_text(result.head)
        print_text(f"proof holds: entry #{result.seq} is in the chain of {result.campaign!r} sealed at "
                   f"#{result.head_seq} ({result.entries} entries checked)")
        print_text("  " + describe(result.entry))
    if not result.head_given:
        warn("note: compare the head above with the hash you kept from `history seal` (or pass it with --head): "
            "the bundle proves the entry against that head only")
