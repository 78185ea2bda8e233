"""The project's own exceptions.

Every error a user can cause is one of these, so the CLI can print one clear line and
choose the exit code without a traceback: 1 when a rule refuses or something is not
found, 2 when the input itself is malformed.

campaign/core cannot reach the message catalog (it is pure), so its refusals are
raised with the English message as a template marked by `N_` and its values by name:
`DiceError(N_("at most {limit} dice in one term, not {count}"), limit=100, count=1000)`.
`str(error)` is the English line (logs, tests); campaign/refusal_words.py translates the
template where the error is shown. Services, which may use the catalog, raise messages
already translated with `_()`.
"""

from __future__ import annotations


def N_(message: str) -> str:
    """Marks `message` for the catalog without translating it (tests/catalog.py extracts
    every `N_`); the core's refusals are translated where they are shown."""
    return message


class Words(str):
    """English words that keep their template and values (a dice request's "3d6 for the
    fright table"): a `str` wherever they go, shown translated by refusal_words."""

    template: str
    params: dict[str, object]

    def __new__(cls, template: str, /, **params: object) -> Words:
        words = super().__new__(cls, template.format(**params) if params else template)
        words.template = template
        words.params = params
        return words


class CampaignError(Exception):
    """Base class: a refusal the user should read as one line.

    `template` and `params` are the message before its values were put in, kept so the
    line can be shown in the reader's language (campaign.refusal_words.refusal_text)."""

    exit_code = 1

    def __init__(self, message: str = "", /, **params: object) -> None:
        self.template = message
        self.params = params
        super().__init__(message.format(**params) if params else message)


class NotFound(CampaignError):
    """A named campaign, player, character, scenario or entry does not exist."""


class RuleRefused(CampaignError):
    """The request is well-formed but a rule (or uniqueness) forbids it."""


class BadInput(CampaignError):
    """The input is malformed: a bad dice expression, a non-integer stat, a bad date."""

    exit_code = 2


class DiceError(BadInput):
    """A dice expression or a list of manual faces that cannot be used.

    `column` is 1-based, pointing at the offending character when known.
    """

    def __init__(self, message: str, /, column: int | None = None, **params: object) -> None:
        self.column = column
        super().__init__(message, **params)
        if column is not None:
            self.args = (f"{self.args[0]} (column {column})",)


class DataError(CampaignError):
    """A seed file or stored data is broken; names the file and entry."""
