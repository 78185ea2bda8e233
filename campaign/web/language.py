"""The language of a page: the campaign's `lang` setting, else the browser's
Accept-Language, else the campaign's ruleset (docs/i18n.md).

CAMPAIGN_LANG set for the server overrides all of them, as for every command. The
server's own locale says nothing here: the reader is the browser, not the machine that
serves. Japanese is asked first: a browser that accepts `ja` at all reads Japanese (the
players this is for often keep an English-first phone), else one that accepts `en` reads
English, else the ruleset decides (gurps3-ja, 2d6-ja: Japanese).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from campaign.i18n import LANGUAGES, parse_language


def accepted(header: str | None) -> str | None:
    """'ja' when the Accept-Language header accepts Japanese (q > 0), else 'en' when it
    accepts English, else None. Malformed parts are skipped, never refused."""
    found: set[str] = set()
    for part in (header or "").split(",")[:40]:
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        code = tag.strip().lower().split("-")[0]
        if quality > 0 and code in LANGUAGES:
            found.add(code)
    return next((code for code in LANGUAGES if code in found), None)


def page_language(
    setting: str | None, ruleset: str | None, accept: str | None, environ: Mapping[str, str] | None = None
) -> str:
    """'ja' or 'en' for one page, by the order the module docstring gives."""
    environ = os.environ if environ is None else environ
    forced = environ.get("CAMPAIGN_LANG", "").strip()
    if forced:
        try:
            return parse_language(forced, "CAMPAIGN_LANG")
        except Exception:  # a malformed CAMPAIGN_LANG was refused when the server started
            pass
    if setting in LANGUAGES:
        return setting
    return accepted(accept) or ("ja" if (ruleset or "").endswith("-ja") else "en")


def campaign_language(setting: str | None, ruleset: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The language of what no browser asked for (the live feed's rows): as a page
    without an Accept-Language header."""
    return page_language(setting, ruleset, None, environ)
