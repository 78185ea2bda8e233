"""BCDice-API v2 under a token: `/bcdice/<token>/v2/...` for dice bots and VTT add-ons.

The routes answer what bcdice-api's docs/api_v2.md defines (version, admin, game
systems, roll, original table, its `{"ok": false, "reason"}` errors), so a bot whose
server URL is `http://HOST:PORT/bcdice/<token>/` works unchanged, while every roll is
made by this server and appended to the ledger (campaign.services.bridges.bcdice_api).

Why no CSRF check and no Origin check here, unlike every other write of the server:
these routes read no cookie and set none. The credential is the token in the path,
which a page of another origin cannot know, and a browser attaches nothing that would
let such a page act with someone else's rights; what a cross-origin page can do with a
token it was given is exactly what the token's holder can do. So the answers carry
`Access-Control-Allow-Origin: *` (browser-based clients call from their own origin)
and only on these routes. Only GET, HEAD and POST are answered (OPTIONS included: every
call a client makes is a CORS simple request, which needs no preflight); HEAD answers as
BCDice-API's server does, without rolling. A command is at most COMMAND_LIMIT
characters, and each token has its own rate limit. Every refusal, an unknown or revoked
token's too, is a 400 with a reason (`refusal` says why).
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote

from starlette.concurrency import run_in_threadpool

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from campaign.services.bridges.bcdice_api import Holder

API_VERSION = "2.0.0"
COMMAND_LIMIT = 200
FORM_LIMIT = 16 * 1024
BURST, RATE = 20, 5.0  # a bot may send 20 rolls at once, then 5 a second
_CORS = {"access-control-allow-origin": "*", "cache-control": "no-store"}
# Clients send the command encoded (`3D6%3C%3D12+%E5%9B%9E%E9%81%BF`: a `+` is a
# space) or raw (`3D6<=12`, `2D6+1`: a `+` is a plus). A value with a %-escape is
# encoded; in one without, a `+` before a number, a die or a parenthesis is a plus,
# any other (`2D6+dodge`) a space.
_RAW_PLUS = re.compile(r"\+(?=[0-9(]|[Dd][0-9])")
# ... except right after a repeat prefix (`x3+3D6`: `x3` is no number to add to).
_REPEAT_SPACE = re.compile(r"^([Ss]?(?:[Xx]|[Rr][Ee][Pp](?:[Ee][Aa][Tt])?)[0-9]+)\+")


def routes() -> list[Route]:
    from starlette.routing import Route

    return [
        Route(
            "/bcdice/{token}/{rest:path}",
            dispatch,
            methods=["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"],
        )
    ]


def _answer(document: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> Response:
    from starlette.responses import Response

    body = json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Response(body, status_code=status, media_type="application/json", headers={**_CORS, **(headers or {})})


def refusal(reason: str, headers: dict[str, str] | None = None) -> Response:
    """Every refusal is a 400 `{"ok": false, "reason"}`, as bcdice-api answers its own
    errors: a dice bot shows any other status with the URL it called, and that URL
    holds the token (discord-bcdicebot posts `[ERROR][429] http://…/bcdice/<token>/…`
    into the channel). A 400 it reads as "no roll" and shows nothing of the URL."""
    return _answer({"ok": False, "reason": reason}, 400, headers)


async def dispatch(request: Request) -> Response:
    from campaign.web.refusals import Refusal

    if request.method == "HEAD":
        return await _head(request)
    if request.method not in ("GET", "POST"):
        return refusal("method not allowed", {"allow": "GET, HEAD, POST"})
    try:
        return await _dispatch(request)
    except Refusal:  # only the form body's size limit raises it here
        return refusal("request too large")
    except Exception:  # a fault of ours (the database gone away): logged, its URL not shown in a chat
        import logging

        logging.getLogger("campaign.web").exception("BCDice-API request failed")
        return refusal("server error")


async def _head(request: Request) -> Response:
    """HEAD as BCDice-API's server answers it (200 where GET would answer; clients probe
    with it), without a body and without rolling: a probe writes nothing."""
    from starlette.responses import Response

    from campaign.services.bridges.bcdice_api import holder_for

    state = request.app.state
    holder = await run_in_threadpool(holder_for, state.db, state.campaign_id, request.path_params["token"])
    rest = request.path_params["rest"].strip("/")
    parts = rest.split("/")
    known = rest in ("v2/version", "v2/admin", "v2/game_system", "v2/original_table") or (
        len(parts) in (3, 4) and parts[:2] == ["v2", "game_system"] and parts[3:] in ([], ["roll"])
    )
    status = 400 if holder is None or not known else 200  # never 401/404: see `refusal`
    return Response(status_code=status, media_type="application/json", headers=_CORS)


async def _dispatch(request: Request) -> Response:
    from campaign.services.bridges.bcdice_api import holder_for

    state = request.app.state
    holder = await run_in_threadpool(holder_for, state.db, state.campaign_id, request.path_params["token"])
    if holder is None:
        return refusal("unauthorized")
    rest = request.path_params["rest"].strip("/")
    if rest == "v2/version":
        return _answer({"api": API_VERSION, "bcdice": _bcdice_version()})
    if rest == "v2/admin":
        return _answer({key: os.environ.get(f"BCDICE_API_ADMIN_{key.upper()}", "") for key in ("name", "url", "email")})
    if rest == "v2/game_system":
        return _answer({"game_system": _systems()})
    if rest == "v2/original_table":
        if request.method != "POST":
            return refusal("method not allowed", {"allow": "POST"})
        return await _original_table(request, holder)
    parts = rest.split("/")
    if len(parts) in (3, 4) and parts[:2] == ["v2", "game_system"]:
        system = _system_id(parts[2])
        if system is None:
            return refusal("unsupported game system")
        if len(parts) == 3:
            return _answer(_system_info(system))
        if parts[3] == "roll":
            return await _roll(request, holder, system)
    return refusal("not found")


def _bcdice_version() -> str:
    """The BCDice version whose answers ours match (the parity oracle's)."""
    return "3.16.1"


def _systems() -> list[dict[str, str]]:
    from campaign.core.bcdice_text import GAME_SYSTEMS

    listed = [{"id": key, "name": name, "sort_key": sort_key} for key, (name, sort_key) in GAME_SYSTEMS.items()]
    return sorted(listed, key=lambda system: system["sort_key"])


def _system_id(given: str) -> str | None:
    from campaign.core.bcdice_text import GAME_SYSTEMS

    folded = {key.lower(): key for key in GAME_SYSTEMS}
    return folded.get(given.lower())


def _table_commands() -> list[str]:
    """The seed tables, and HIT, which `roll` reads from the 命中部位 reference table."""
    from campaign.seeds import load_tables

    return [*load_tables(), "HIT"]


def pattern_of(system: str) -> str:
    from campaign.core.bcdice_text import command_pattern

    return command_pattern(system, _table_commands() if system == "GURPS" else ())


def _system_info(system: str) -> dict[str, Any]:
    from campaign.core.bcdice_text import GAME_SYSTEMS

    name, sort_key = GAME_SYSTEMS[system]
    return {
        "ok": True,
        "id": system,
        "name": name,
        "sort_key": sort_key,
        "command_pattern": pattern_of(system),
        "help_message": _help(system),
    }


def _help(system: str) -> str:
    """The system's help_message, in the request's language (one, never both: the Guard
    set it by campaign.web.language, as for a page). ココフォリア shows it to a player who
    opens its dice bot's description (「ダイスボットについて」) next to the chat input."""
    from campaign.i18n import _

    lines = [
        _("Every roll here is recorded in the campaign's ledger."),
        _("Examples: 2D6+1 / 3D6<=12 dodge / S3D6<=12 (secret)"),
    ]
    if system == "GURPS":
        lines.append(
            _("Success roll: 3D6<=skill or skill-3D6. Tables: {tables} (FEAR+n)").format(
                tables=" ".join(_table_commands())
            )
        )
    elif system == "Campaign2D6":
        lines.append(_("Check: 2D6+attribute>=target"))
    return "\n".join(lines) + "\n"


async def _command(request: Request) -> tuple[str | None, str | None]:
    """The `command` parameter, raw or encoded, and the `share` (a provably fair roll's
    player share, docs/fair-dice.md), from the query or a POSTed form."""
    raw = request.scope.get("query_string", b"").decode("latin-1")
    if request.method == "POST" and not raw:
        raw = (await _form_body(request)).decode("latin-1")
    found: dict[str, str] = {}
    for piece in raw.split("&"):
        key, sep, value = piece.partition("=")
        if sep and key in ("command", "share") and key not in found:
            if "%" not in value:
                value = _RAW_PLUS.sub("%2B", _REPEAT_SPACE.sub(r"\1 ", value))
            found[key] = unquote(value.replace("+", " "), encoding="utf-8", errors="replace")
    return found.get("command"), found.get("share")


async def _form_body(request: Request) -> bytes:
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > FORM_LIMIT:
            from campaign.web.refusals import Refusal

            raise Refusal("too_large")
        chunks.append(chunk)
    return b"".join(chunks)


def _rate_ok(request: Request, holder: Holder) -> bool:
    state = request.app.state
    limit = getattr(state, "bcdice_rate", None)
    if limit is None:
        from campaign.web.seats import RateLimit

        limit = state.bcdice_rate = RateLimit(*getattr(state, "bcdice_rate_limits", (BURST, RATE)))
    return limit.take(holder.token_id)


async def _roll(request: Request, holder: Holder, system: str) -> Response:
    from campaign.errors import BadInput, CampaignError
    from campaign.services.fair.seeds import ShareReused

    command, share = await _command(request)
    if command is None or not command.strip():
        return refusal("unsupported command")
    if len(command) > COMMAND_LIMIT:
        return refusal("command too long")
    if re.match(pattern_of(system), command.strip(), re.IGNORECASE) is None:
        return refusal("unsupported command")
    from campaign.core.fair_dice import clean_share

    if share is not None and clean_share(share) is None:
        return refusal("share: exactly 64 hex digits")
    if not _rate_ok(request, holder):
        return refusal("too many requests", {"retry-after": "1"})
    from campaign.core.bcdice_text import repeat_of

    repeat = repeat_of(command)
    if repeat is not None:
        return await _repeat(request, holder, system, *repeat, share=share)
    try:
        view = await _roll_one(request, holder, system, command, share)
    except BadInput:
        return refusal("unsupported command")
    except ShareReused:  # the share's dice would repeat: a fresh one per roll (docs/fair-dice.md)
        return refusal("share already used")
    except CampaignError as refused:
        return refusal(str(refused))
    return _answer(roll_answer(system, view, secret=view["bcdice_secret"]))


async def _roll_one(request: Request, holder: Holder, system: str, command: str, share: str | None) -> dict[str, Any]:
    """Roll one command through the ledger: its entry as `history show` has it."""
    from campaign.core.bcdice_text import prepared
    from campaign.services.bridges.bcdice_api import api_roll

    secret, prepared_command, comment = prepared(system, command)
    state = request.app.state
    view = await run_in_threadpool(
        lambda: api_roll(state.db, state.campaign, holder, prepared_command, comment, state.dice(), share=share)
    )
    return {**view, "bcdice_secret": secret}


async def _repeat(
    request: Request, holder: Holder, system: str, count: int, secret: bool, command: str, *, share: str | None
) -> Response:
    """`x3 3D6<=12` (`rep3`, `repeat3`): services.checks.rolls' repeat, each roll its own ledger
    entry, all written in one transaction or none (a share makes every roll of it), and
    one answer in BCDice's layout (`#1` ... `#3`, flags all false as BCDice gives them).
    A count outside 1..REPEAT_LIMIT gets BCDice's own one-line answer and rolls nothing."""
    from campaign.core import bcdice_text
    from campaign.errors import BadInput, CampaignError
    from campaign.services.bridges.bcdice_api import api_roll
    from campaign.services.fair.seeds import ShareReused

    quiet = dict(success=False, failure=False, critical=False, fumble=False)
    if not 1 <= count <= bcdice_text.REPEAT_LIMIT:
        return _answer({"ok": True, "text": bcdice_text.REPEAT_REFUSAL, "secret": False, **quiet, "rands": []})
    _secret, inner, comment = bcdice_text.prepared(system, command)
    repeated = f"x{count} {'S' if secret else ''}{inner}"
    state = request.app.state
    try:
        made = await run_in_threadpool(
            lambda: api_roll(state.db, state.campaign, holder, repeated, comment, state.dice(), share=share)
        )
    except BadInput:
        return refusal("unsupported command")
    except ShareReused:  # the share's dice would repeat: a fresh one per request (docs/fair-dice.md)
        return refusal("share already used")
    except CampaignError as refused:
        return refusal(str(refused))
    answers = [roll_answer(system, entry, secret=secret) for entry in made["entries"]]
    return _answer(
        {
            "ok": True,
            "text": bcdice_text.repeat_text([answer["text"] for answer in answers]),
            "secret": secret,
            **quiet,
            "rands": [die for answer in answers for die in answer["rands"]],
            "campaign_seq": answers[0]["campaign_seq"],
            "campaign_seqs": [answer["campaign_seq"] for answer in answers],
        }
    )


def roll_answer(system: str, view: dict[str, Any], *, secret: bool) -> dict[str, Any]:
    """The roll route's document for one recorded entry."""
    from campaign.core import bcdice_text

    made = bcdice_text.entry_answer(system, view)
    if view["kind"] == "table":
        faces = [{"sides": 6, "faces": view.get("dice") or []}]
        faces += [{"sides": 6, "faces": sub.get("dice") or []} for sub in view.get("sub_entries") or []]
    else:
        faces = _groups(view.get("detail") or {})
    return {
        "ok": True,
        "text": made.text,
        "secret": secret,
        "success": made.success,
        "failure": made.failure,
        "critical": made.critical,
        "fumble": made.fumble,
        "rands": bcdice_text.rands(faces),
        "campaign_seq": view["seq"],
    }


def _groups(detail: dict[str, Any]) -> list[dict[str, Any]]:
    groups = [group for group in detail.get("groups") or [] if "sides" in group]
    for repeat in detail.get("repeats") or []:
        groups += [group for group in (repeat.get("groups") or []) if "sides" in group]
    return groups


async def _original_table(request: Request, holder: Holder) -> Response:
    from campaign.errors import BadInput, CampaignError
    from campaign.services.bridges.bcdice_api import roll_original_table
    from campaign.services.fair.seeds import ShareReused

    # BCDice-API reads the table from the query string as readily as from the form.
    query = request.scope.get("query_string", b"").decode("utf-8", "replace")
    form = dict(parse_qsl(query, keep_blank_values=True))
    if not form.get("table"):
        form = dict(parse_qsl((await _form_body(request)).decode("utf-8", "replace"), keep_blank_values=True))
    table = form.get("table")
    if not table:
        return refusal("unsupported command")
    from campaign.core.fair_dice import clean_share

    share = form.get("share")
    if share is not None and clean_share(share) is None:
        return refusal("share: exactly 64 hex digits")
    if not _rate_ok(request, holder):
        return refusal("too many requests", {"retry-after": "1"})
    state = request.app.state
    try:
        made = await run_in_threadpool(
            lambda: roll_original_table(state.db, state.campaign, holder, table, state.dice(), share=share)
        )
    except BadInput:
        return refusal("unsupported command")
    except ShareReused:  # the share's dice would repeat: a fresh one per roll (docs/fair-dice.md)
        return refusal("share already used")
    except CampaignError as refused:
        return refusal(str(refused))
    from campaign.core.bcdice_text import original_table_answer, rands

    return _answer(
        {
            "ok": True,
            "text": original_table_answer(made["title"], made["value"], made["faces"], made["words"]),
            "rands": rands([{"sides": made["sides"], "faces": made["faces"]}]),
            "campaign_seq": made["seq"],
        }
    )
