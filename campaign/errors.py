"""The project's own exceptions.

Every error a user can cause is one of these, so the CLI can print one clear line and
choose the exit code without a traceback: 1 when a rule refuses or something is not
found, 2 when the input itself is malformed.
"""


class CampaignError(Exception):
    """Base class: a refusal the user should read as one line."""

    exit_code = 1


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

    def __init__(self, message: str, column: int | None = None):
        self.column = column
        super().__init__(f"{message} (column {column})" if column is not None else message)


class DataError(CampaignError):
    """A seed file or stored data is broken; names the file and entry."""
