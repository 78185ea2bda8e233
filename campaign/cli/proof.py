"""`campaign proof check`: verify a proof bundle without any database."""

from __future__ import annotations

from typing import Annotated

import typer

from campaign.cli.output import JsonOption, emit_json, print_text, warn

app = typer.Typer(
    help="Proof bundles written by `history proof`: check one without the database.\n\n"
    "Example: campaign proof check fright-9.json --head ae52be47…",
    no_args_is_help=True,
)


@app.command("check")
def check(
    file: Annotated[str, typer.Argument(help="A bundle written by `campaign history proof`.")],
    head: Annotated[
        str | None,
        typer.Option(
            "--head",
            help="The head hash you kept from `history seal` (64 hex digits, or "
            "its first 16 or more): any seal inside the bundle.",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Recompute the bundle's chain from its anchor to its sealed head; exit 1 naming a bad entry.

    Opens no database: the bundle alone is checked, against the seal you give (any
    seal in the bundle). It says when a void inside the bundle took the entry back, and
    checks every reveal in it against its secret roll's commitment.

    Example: campaign proof check fright-9.json --head ae52be47c1d0f9e3
    """
    # The standalone checker's own sentences, so both checkers say the same in each language.
    from campaign.i18n import language
    from campaign.proofcheck import NOTE, message, rejection, summary
    from campaign.services.ledger.proof import ProofRejected, check_file
    from campaign.services.results import as_json

    lang = language()
    try:
        result = check_file(file, head)
    except ProofRejected as exc:
        if json_out:
            emit_json({"ok": False, "bad_seq": exc.seq, "reason": exc.english})  # the same in every language
        warn(message("proof rejected: {reason}", lang, reason=rejection(exc.reason, exc.seq, lang)))
        raise typer.Exit(1) from None
    if json_out:
        emit_json(result)
    else:
        for line in summary(as_json(result), lang):
            print_text(line)
    if not result.head_given:
        warn(message(NOTE, lang))
