"""Creating and listing campaigns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from campaign import ledger
from campaign.db.database import Database
from campaign.db.models import Campaign, Character, LedgerEntry, Player
from campaign.errors import BadInput, RuleRefused
from campaign.i18n import _
from campaign.services.common import campaign_named, campaign_transaction, clean_campaign_name, clean_name, clean_text
from campaign.services.recording import recording

RULESETS = {
    "gurps3-ja": "GURPS 3rd edition (Japanese), fright checks and seed tables",
    "2d6-ja": "Japanese 2d6 homebrew rules (心/技/体 action checks)",
}
DEFAULT_SETTINGS: dict[str, dict[str, Any]] = {
    "gurps3-ja": {"fright_cap": None},
    "2d6-ja": {"criticals": True, "default_stats": ["心", "技", "体"]},
}
#: Settings of every campaign whatever its ruleset, unset (None) until the GM sets them.
COMMON_SETTINGS: dict[str, Any] = {"timezone": None, "fair_dice": None, "lang": None, "public_url": None}


@dataclass(frozen=True, slots=True)
class CampaignSummary:
    """A campaign as `init --json` shows it (its settings are the stored JSON object)."""

    name: str
    ruleset: str
    settings: dict[str, Any]
    created_at: str


@dataclass(frozen=True, slots=True)
class CampaignRow(CampaignSummary):
    """A row of `campaign list`; `selected` marks the campaign the caller acts on."""

    characters: int
    players: int
    entries: int
    selected: bool


@dataclass(frozen=True, slots=True)
class CampaignSettings(CampaignSummary):
    """`settings`: the campaign after the change, and its entry (None when only shown)."""

    seq: int | None


def _summary_fields(campaign: Campaign) -> dict[str, Any]:
    return dict(
        name=campaign.name, ruleset=campaign.ruleset, settings=campaign.settings, created_at=campaign.created_at
    )


UTC_NAMES = frozenset({"UTC", "Etc/UTC", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu", "GMT"})


def machine_zone() -> str | None:
    """This machine's IANA time zone (TZ, else /etc/timezone, else where /etc/localtime
    points), which `init` records as the campaign's `timezone`: the GM creates the
    campaign on their own machine, and the pages then show its times in the GM's zone
    wherever the table is served from. None when it is UTC (no setting: the same times)
    or cannot be told."""
    import os
    from pathlib import Path
    from zoneinfo import ZoneInfo

    candidates = [os.environ.get("TZ", "").lstrip(":")]
    try:
        candidates.append(Path("/etc/timezone").read_text(encoding="utf-8").strip())
    except OSError:
        pass
    try:
        target = str(Path("/etc/localtime").resolve())
        candidates.append(target.split("/zoneinfo/", 1)[1] if "/zoneinfo/" in target else "")
    except OSError:
        pass
    for name in candidates:
        if not name or name.startswith("/") or ".." in name:
            continue
        try:
            ZoneInfo(name)
        except (ValueError, KeyError, OSError):
            continue
        return None if name in UTC_NAMES else name
    return None


def create_campaign(db: Database, name: str, ruleset: str, actor: str, *, fair: bool = True) -> CampaignSummary:
    """`fair`: the table's server dice are provably fair from the first scenario on (the
    setting fair_dice, docs/fair-dice.md), unless the GM turns it off (`init --no-fair`,
    or `settings fair_dice=off` later)."""
    name = clean_campaign_name(name)
    if ruleset not in RULESETS:
        raise BadInput(
            _("unknown ruleset {ruleset!r}; choose one of: {value}").format(ruleset=ruleset, value=", ".join(RULESETS))
        )
    try:
        with db.write() as session:
            if session.scalar(select(Campaign.id).where(Campaign.name == name)) is not None:
                raise RuleRefused(_("a campaign named {name!r} already exists").format(name=name))
            settings = dict(DEFAULT_SETTINGS[ruleset])
            zone = machine_zone()
            if zone is not None:  # the GM's machine's zone: the table server may run elsewhere
                settings["timezone"] = zone
            if fair:
                settings["fair_dice"] = True
            campaign = Campaign(name=name, ruleset=ruleset, settings=settings, created_at=ledger.utc_now())
            session.add(campaign)
            session.flush()
            with recording(session, campaign, actor, "campaign", voidable=False) as entry:
                entry.created_campaign()
                entry.describe(reason="created", detail={"name": name, "ruleset": ruleset})
            campaign.created_at = entry.at
            return CampaignSummary(**_summary_fields(campaign))
    except IntegrityError:
        # Another process created the same name between our check and our insert.
        raise RuleRefused(_("a campaign named {name!r} already exists").format(name=name)) from None


def list_campaigns(db: Database, selected: str | None = None) -> list[CampaignRow]:
    """Every campaign with its counts; the one named `selected` is marked."""
    with db.read() as session:
        campaigns = session.scalars(select(Campaign).order_by(Campaign.name)).all()
        counts = {
            "characters": dict(
                session.execute(select(Character.campaign_id, func.count()).group_by(Character.campaign_id)).all()
            ),
            "players": dict(
                session.execute(select(Player.campaign_id, func.count()).group_by(Player.campaign_id)).all()
            ),
            "entries": dict(
                session.execute(
                    select(LedgerEntry.campaign_id, func.max(LedgerEntry.seq)).group_by(LedgerEntry.campaign_id)
                ).all()
            ),
        }
        return [
            CampaignRow(
                **_summary_fields(c),
                characters=counts["characters"].get(c.id, 0),
                players=counts["players"].get(c.id, 0),
                entries=counts["entries"].get(c.id, 0),
                selected=c.name == selected,
            )
            for c in campaigns
        ]


# Campaign settings a GM can change, per key: how a typed value becomes the stored one.
def _setting_int(key: str, text: str) -> int | None:
    if text.strip().lower() in ("none", "null", "off", ""):
        return None
    try:
        value = int(text)
    except ValueError:
        raise BadInput(
            _("setting {key}: {text!r} is not a whole number (or 'none')").format(key=key, text=text)
        ) from None
    if not 3 <= value <= 30:
        raise BadInput(_("setting {key}: {value} is outside 3..30").format(key=key, value=value))
    return value


def _setting_bool(key: str, text: str) -> bool:
    folded = text.strip().lower()
    if folded in ("true", "on", "yes", "1", "オン", "はい"):
        return True
    if folded in ("false", "off", "no", "0", "オフ", "いいえ"):
        return False
    raise BadInput(_("setting {key}: {text!r} is not true or false").format(key=key, text=text))


def _setting_names(key: str, text: str) -> list[str]:
    names = [clean_name(part, "stat") for part in text.split(",")]
    if not names:
        raise BadInput(_("setting {key}: give names separated by commas").format(key=key))
    return names


def _setting_zone(key: str, text: str) -> str | None:
    """An IANA time zone (Asia/Tokyo) the CLI shows ledger times in; 'none' (or empty):
    the system's zone. The ledger itself always stores UTC."""
    name = text.strip()
    if name.lower() in ("none", "null", "off", "system", ""):
        return None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadInput(
            _("setting {key}: {name!r} is not a time zone (e.g. Asia/Tokyo, UTC, or 'none')").format(key=key, name=name)
        ) from None
    return name


def _setting_lang(key: str, text: str) -> str | None:
    """ja or en: the language this campaign's output reads in (campaign.i18n); 'none': by locale and ruleset."""
    if text.strip().lower() in ("none", "null", "off", "auto", ""):
        return None
    from campaign.i18n import _, parse_language

    return parse_language(text, _("setting {key}").format(key=key))


def _setting_url(key: str, text: str) -> str | None:
    """The address the players open the table server at (https://table.example/), so
    `invite` prints a whole link; 'none': the path only."""
    if text.strip().lower() in ("none", "null", "off", ""):
        return None
    from campaign.services.table.invites import clean_public_url

    return clean_public_url(text, _("setting {key}").format(key=key))


def public_url_of(db: Database, campaign_name: str | None) -> str | None:
    """The campaign's `public_url` setting, or None."""
    with db.read() as session:
        url = (campaign_named(session, campaign_name).settings or {}).get("public_url")
    return url if isinstance(url, str) else None


SETTING_PARSERS = {
    "fright_cap": _setting_int,
    "criticals": _setting_bool,
    "default_stats": _setting_names,
    "timezone": _setting_zone,
    "fair_dice": _setting_bool,
    "lang": _setting_lang,
    "public_url": _setting_url,
}


def time_zone_of(db: Database, campaign_name: str | None) -> str | None:
    """The campaign's `timezone` setting (None: the system's zone, also when there is no
    campaign to ask: a listing of an empty database still prints)."""
    from campaign.errors import CampaignError

    try:
        with db.read() as session:
            zone = (campaign_named(session, campaign_name).settings or {}).get("timezone")
    except CampaignError:
        return None
    return zone if isinstance(zone, str) else None


def settings(
    db: Database,
    campaign_name: str | None,
    actor: str,
    changes: dict[str, str] | None = None,
    reason: str | None = None,
) -> CampaignSettings:
    """Show the campaign's settings, or change some (one ledger entry, kind "setting", voidable).

    The keys a campaign takes are those of its ruleset's defaults (fright_cap for
    gurps3-ja; criticals, default_stats for 2d6-ja; timezone for both).
    """
    reason = clean_text(reason, "--reason")
    if not changes:
        with db.read() as session:
            return CampaignSettings(**_summary_fields(campaign_named(session, campaign_name)), seq=None)
    with campaign_transaction(db, campaign_name) as (session, campaign):
        allowed = {**DEFAULT_SETTINGS.get(campaign.ruleset, {}), **COMMON_SETTINGS}
        parsed = {}
        for key, text in changes.items():
            if key not in allowed:
                raise BadInput(
                    _("unknown setting {key!r} for a {ruleset} campaign; settings: {value}").format(
                        key=key, ruleset=campaign.ruleset, value=", ".join(allowed) or "none"
                    )
                )
            parsed[key] = SETTING_PARSERS[key](key, text)
        before = dict(campaign.settings or {})
        with recording(session, campaign, actor, "setting") as entry:
            for key, value in parsed.items():
                entry.set_setting(key, value)
            entry.describe(
                reason=reason or "settings changed",
                detail={"changes": {key: {"before": before.get(key), "after": value} for key, value in parsed.items()}},
            )
        return CampaignSettings(**_summary_fields(campaign), seq=entry.seq)
