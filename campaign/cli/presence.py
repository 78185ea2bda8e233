"""Presence at the table: `--anyway` and the one-line warnings (policy: services.characters.presence)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

AnywayOption = Annotated[
    bool,
    typer.Option(
        "--anyway",
        help="Check a missing character all the same (the story brings "
        "them on stage); recorded, with a warning. The dead and retired are always refused.",
    ),
]


def say_warnings(view: Any) -> None:
    """Each warning of a result as one line on stderr, before the result itself."""
    from campaign.cli.output import warn
    from campaign.i18n import _
    from campaign.refusal_words import words_text

    warnings = view.get("warnings") if isinstance(view, dict) else getattr(view, "warnings", None)
    for warning in warnings or ():
        warn(_("warning: {message}").format(message=words_text(warning)))
