"""`history reveal`, `reveal-seed` and `peek`: the commands about values kept hidden
until their reveal (secret rolls' results, fair dice's seeds), on the `history` app."""

from __future__ import annotations

from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.history import app
from campaign.cli.output import JsonOption, emit_json, print_text, say
from campaign.cli.roll import render_roll
from campaign.labels import shown_detail


@app.command("reveal")
def reveal(
    ctx: typer.Context,
    seq: Annotated[int, typer.Argument(help="The secret roll's entry number.")],
    json_out: JsonOption = False,
) -> None:
    """Reveal a secret roll: append an entry with its result and salt, which anyone can
    check against the commitment the roll recorded (`history verify` does).

    Example: campaign history reveal 42
    """
    from campaign.services.checks.secret_rolls import reveal as reveal_service

    s = state(ctx)
    entry = reveal_service(s.db, s.campaign, s.actor, seq)
    if json_out:
        emit_json(entry)
    else:
        say(f"revealed secret roll #{seq} (entry #{entry['seq']}); it matches its commitment")
        render_roll(entry)


@app.command("reveal-seed")
def reveal_seed(
    ctx: typer.Context,
    scenario: Annotated[
        int | None, typer.Argument(help="The scenario whose seed to reveal (default: the open seed).")
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Reveal the committed seed of fair dice (`scenario end` does it too): append a
    `seed_reveal` entry, after which anyone can recompute every derived die.

    Example: campaign history reveal-seed 3
    """
    from campaign.services.fair.seeds import reveal_seed as reveal_service

    s = state(ctx)
    revealed = reveal_service(s.db, s.campaign, s.actor, scenario)
    assert revealed is not None  # not quiet: nothing to reveal is refused
    if json_out:
        emit_json(revealed)
    else:
        say(f"seed of commitment #{revealed.reveals} revealed (entry #{revealed.seq}): {revealed.seed}")


@app.command("abandon-seed")
def abandon_seed(
    ctx: typer.Context,
    reason: Annotated[str, typer.Option("--reason", help="Why the seed is abandoned (it is recorded).")],
    json_out: JsonOption = False,
) -> None:
    """End a committed seed that is gone (a copy imported from a file never has it):
    append a `seed_abandon` entry; the dice derived from it are shown as unprovable for
    ever, and a new seed may be committed (GM only).

    Example: campaign history abandon-seed --reason "imported mid-scenario; the seed stayed on the old laptop"
    """
    from campaign.i18n import _
    from campaign.services.fair.seeds import abandon_seed as abandon_service

    s = state(ctx)
    abandoned = abandon_service(s.db, s.campaign, s.actor, reason)
    if json_out:
        emit_json(abandoned)
    else:
        say(
            _("seed of commitment #{commit} abandoned (entry #{seq}): its dice are unprovable").format(
                commit=abandoned.abandons, seq=abandoned.seq
            )
        )


@app.command("peek")
def peek(
    ctx: typer.Context,
    seq: Annotated[int, typer.Argument(help="The secret roll's entry number.")],
    json_out: JsonOption = False,
) -> None:
    """Show the GM the hidden result of a secret roll, without revealing it (writes nothing).

    Example: campaign history peek 42
    """
    from campaign.services.checks.secret_rolls import peek as peek_service

    s = state(ctx)
    hidden = peek_service(s.db, s.campaign, seq, s.actor)
    if json_out:
        emit_json(hidden)
        return
    from campaign.i18n import _

    say(
        _("hidden result of secret roll #{seq} (GM only)").format(seq=seq)
        + (_("; revealed in #{seq}").format(seq=hidden["revealed_by"]) if hidden["revealed_by"] else "")
    )
    render_roll({**hidden, "seq": seq, "detail_shown": shown_detail(hidden)})
    band = shown_detail(hidden).get("band")
    if isinstance(band, dict) and hidden.get("margin") is not None:  # a danger sense check's band, in words
        from campaign.i18n import _, pick

        print_text(
            "  "
            + _("margin {margin:+d} → band {band}: {words}").format(
                margin=hidden["margin"], band=band.get("label"), words=pick(band.get("ja", ""), band.get("en", ""))
            )
        )
