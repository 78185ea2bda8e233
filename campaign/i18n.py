"""The language a person reads: one per output, Japanese or English, through gettext.

Messages are written in English in the code (`_("added PC {name}")`) and translated by
the catalog campaign/locale/ja/LC_MESSAGES/campaign.po (compiled to the .mo beside it,
which the wheel ships; docs/i18n.md says how to add a message). Ledger records keep
codes, never sentences: only what is shown goes through here.

Which language, first that answers:
1. `--lang` or CAMPAIGN_LANG (the web page: the campaign's setting, per request);
2. the campaign's own `lang` setting (`campaign settings lang=ja`);
3. the locale (LC_ALL, LC_MESSAGES, LANG: `ja_JP.UTF-8` is ja, `en_US` en; C / POSIX say nothing);
4. the campaign's ruleset (gurps3-ja and 2d6-ja are Japanese rulesets: ja);
5. English.

The state is a context variable, so each web request and each shell line has its own;
`begin` starts a command, `campaign_known` adds what the campaign says once its database
is open (never from inside a transaction, so a message never opens a second connection).
`--json` output holds codes and never passes through here.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path

LANGUAGES = ("ja", "en")
DOMAIN = "campaign"
LOCALE_DIR = Path(__file__).parent / "locale"
_ALIASES = {"ja": "ja", "jp": "ja", "japanese": "ja", "日本語": "ja", "en": "en", "english": "en", "英語": "en"}


@dataclass(frozen=True)
class _Choice:
    """What decides this command's language: an override, and the campaign's facts once known."""

    override: str | None = None
    setting: str | None = None
    ruleset: str | None = None
    campaign_known: bool = False


_choice: ContextVar[_Choice] = ContextVar("campaign_language", default=_Choice())  # noqa: B039 - frozen


def parse_language(text: str, where: str = "lang") -> str:
    """'ja', 'JA', 'ja_JP.UTF-8', 'japanese' -> 'ja'; anything else is malformed input."""
    folded = text.strip().lower().split(".")[0].replace("-", "_")
    code = _ALIASES.get(folded) or _ALIASES.get(folded.split("_")[0])
    if code is None:
        from campaign.errors import BadInput

        raise BadInput(_("{where}: {text!r} is not a language (ja or en)").format(where=where, text=text))
    return code


def locale_language(environ: Mapping[str, str] | None = None) -> str | None:
    """ja or en when the locale names one (LC_ALL, then LC_MESSAGES, then LANG), else None."""
    environ = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "").strip()
        if value:
            code = value.split(".")[0].split("_")[0].lower()
            return code if code in LANGUAGES else None
    return None


def resolve(
    override: str | None, setting: str | None, ruleset: str | None, environ: Mapping[str, str] | None = None
) -> str:
    """The language, by the order the module docstring gives."""
    environ = os.environ if environ is None else environ
    if override:
        return override
    by_environment = _ALIASES.get(environ.get("CAMPAIGN_LANG", "").strip().lower().split("_")[0])
    if by_environment:
        return by_environment
    if setting in LANGUAGES:
        return setting
    return locale_language(environ) or ("ja" if (ruleset or "").endswith("-ja") else "en")


def begin(option: str | None) -> None:
    """A command starts: `--lang` (else CAMPAIGN_LANG) overrides everything after it."""
    _choice.set(_Choice())
    text = option or os.environ.get("CAMPAIGN_LANG") or None
    where = "--lang" if option else "CAMPAIGN_LANG"
    _choice.set(_Choice(override=parse_language(text, where) if text else None))


def override() -> str | None:
    """The language --lang (or a web request) chose for this command, else None."""
    return _choice.get().override


def decided() -> bool:
    """True when --lang or CAMPAIGN_LANG already chose: the campaign need not be asked."""
    return bool(_choice.get().override or os.environ.get("CAMPAIGN_LANG", "").strip())


def campaign_asked() -> bool:
    """True once this command has read its campaign's `lang` and ruleset (campaign_known)."""
    return _choice.get().campaign_known


def campaign_known(setting: str | None, ruleset: str | None) -> None:
    """The campaign this command acts on says `lang` = setting and plays `ruleset`."""
    _choice.set(_Choice(override=_choice.get().override, setting=setting, ruleset=ruleset, campaign_known=True))


def use(language: str | None) -> None:
    """This context reads `language` (a web request, a test); None: decide as usual."""
    _choice.set(_Choice(override=language))


def language() -> str:
    """'ja' or 'en' for what is printed now."""
    choice = _choice.get()
    return resolve(choice.override, choice.setting, choice.ruleset)


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of `lang` (English is the source language: no catalog)."""
    if lang == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=str(LOCALE_DIR), languages=[lang], fallback=True)


def _(message: str) -> str:
    """`message` in the language of this output."""
    return translations(language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for `n` (English has two; Japanese one)."""
    return translations(language()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """`message` as used in `context` (one English word, two Japanese ones: 2d6's 大成功)."""
    return translations(language()).pgettext(context, message)


def pick(ja: str, en: str) -> str:
    """One of a pair of texts composed in code in both languages (older fright lines);
    new messages go through `_()` and the catalog instead."""
    return ja if language() == "ja" else en


def N_(message: str) -> str:
    """Marks a message for the catalog where it is defined; `_()` translates it where shown."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802 - the gettext marker's spelling
    """Marks a plural message where it is defined (a table of counted words: "{n} turn",
    "{n} turns"); `ngettext(*pair, n)` translates it where shown."""
    return singular, plural


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Words in `lang` for a moment (what `--json` keeps in both languages), then the
    language this context had."""
    token = _choice.set(_Choice(override=lang))
    try:
        yield
    finally:
        _choice.reset(token)


def is_ja() -> bool:
    return language() == "ja"
