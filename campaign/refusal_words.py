"""A refusal in the reader's language: the one place an error becomes the line shown.

campaign/core raises its refusals with an English template and named values (see
campaign.errors); they are translated here, where the CLI, the shell and the web page show
an error, so the core stays pure and `str(error)` stays the English line for logs and
tests. An error raised already translated (the services' `_()` messages) or without a
template is shown as it is.
"""

from __future__ import annotations

from campaign.errors import CampaignError, DiceError, Words
from campaign.i18n import _


def words_text(words: str) -> str:
    """`words` in the language of this output, its own values (Words too) translated first;
    a plain string is shown as it is."""
    if not isinstance(words, Words):
        return words
    params = {name: words_text(value) if isinstance(value, Words) else value for name, value in words.params.items()}
    try:
        return _(words.template).format(**params) if params else _(words.template)
    except (KeyError, IndexError, ValueError):  # a translation that lost a placeholder: the English
        return str(words)


def refusal_text(error: BaseException | str) -> str:
    """The one line for `error` in the language of this output (campaign.i18n)."""
    if not isinstance(error, CampaignError) or not error.template:
        return str(error)
    try:
        params = {
            name: words_text(value) if isinstance(value, Words) else value for name, value in error.params.items()
        }
        line = _(error.template).format(**params) if params else _(error.template)
    except (KeyError, IndexError, ValueError):  # a translation that lost a placeholder: the English
        line = error.template.format(**error.params) if error.params else error.template
    if isinstance(error, DiceError) and error.column is not None:
        return _("{message} (column {column})").format(message=line, column=error.column)
    return line
