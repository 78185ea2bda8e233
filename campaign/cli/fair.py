"""`campaign fair check-receipts`: a player's receipts against the ledger.

The words are campaign.receipts_check's, the standalone checker's, as `proof check`
speaks proofcheck.py's: both checkers say the same in each language.
"""

from __future__ import annotations

from typing import Annotated

import typer

from campaign.cli.context import state
from campaign.cli.output import JsonOption, emit_json, print_text, warn

app = typer.Typer(
    help="Provably fair dice from the player's side: check the receipts a table page kept.\n\n"
    "Example: campaign fair check-receipts receipts-Aki.json",
    no_args_is_help=True,
)


@app.command("check-receipts")
def check_receipts(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="The receipts file the table page downloaded.")],
    against: Annotated[
        str | None,
        typer.Option("--against", help="Check against this proof bundle or export instead of the campaign's ledger."),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Check every receipt of a player's file: its entries exist, carry the share the device
    sent, hold the derived dice one for one, and their totals and outcomes follow from them.

    Lists the entries in the player's name that no receipt covers. Exit 1 when a receipt
    does not hold, or the file is another campaign's; 2 when it is not a receipts file.

    Example: campaign fair check-receipts receipts-Aki.json

    Example: campaign fair check-receipts receipts-Aki.json --against night-parade.jsonl
    """
    from campaign.i18n import language
    from campaign.receipts_check import (
        UNREADABLE,
        OtherCampaign,
        Unreadable,
        check,
        lines,
        load_ledger,
        load_receipts,
        message,
    )

    lang = language()
    try:
        document = load_receipts(file)
        if against is None:
            from campaign.services.fair.receipts import ledger_records

            s = state(ctx)
            name, records = ledger_records(s.db, s.campaign)
            ledger: str | None = name
        else:
            ledger, records = load_ledger(against)
        result = check(document, records, ledger)
    except OSError as exc:
        _refuse(message(UNREADABLE, lang, file=exc.filename, problem=exc.strerror), 2, json_out)
    except OtherCampaign as exc:
        _refuse(message(exc.template, lang, **exc.fields), 1, json_out, str(exc))
    except Unreadable as exc:
        _refuse(message(exc.template, lang, **exc.fields), 2, json_out, str(exc))
    if json_out:
        emit_json(
            {key: value for key, value in result.items() if key != "problems"}
            | {"problems": [{"seq": p["seq"], "problem": p["problem"]} for p in result["problems"]]}
        )
    else:
        for line in lines(result, lang):
            print_text(line)
    if not result["ok"]:
        raise typer.Exit(1)


def _refuse(line: str, code: int, json_out: bool, english: str | None = None) -> None:
    """One line on stderr (and, with --json, the English reason on stdout); exit `code`."""
    if json_out:
        emit_json({"ok": False, "reason": english or line})
    warn(line)
    raise typer.Exit(code)
