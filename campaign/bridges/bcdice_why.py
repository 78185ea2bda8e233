"""Why a chat message was not recorded, as a code and its values, worded where it is shown.

A reason (`faces [1, 4, 5] do not make 11`) is read by a person in the output's language,
while `import-log --json` must be the same document in both: so a reason is a `Why`, a
`str` whose text is the English line (logs, tests, the `why` field of --json) that also
keeps its code, its English template marked `N_` and its values. campaign.refusal_words
shows it translated (`words_text`); `to_json` gives the code and the values for --json.
A value may be a Why itself (a repeat's answer, an outcome word): it is translated too,
and in --json a Why without values is its code alone.
"""

from __future__ import annotations

from campaign.errors import N_, CampaignError, Words

JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


class Why(Words):
    """A reason with a code (`faces_total`) beside its English words and values."""

    code: str

    def __new__(cls, code: str, template: str, /, **params: object) -> Why:
        why = super().__new__(cls, template, **params)
        assert isinstance(why, Why)  # Words.__new__ builds an instance of cls
        why.code = code
        return why

    def __reduce__(self) -> tuple[object, tuple[str, str, dict[str, object]]]:
        """Copied and pickled as itself: str's own reduction would lose the values."""
        return _rebuilt, (self.code, self.template, dict(self.params))

    def to_json(self) -> JsonValue:
        """{"code", "params"}; a reason without values is its code alone."""
        if not self.params:
            return self.code
        return {"code": self.code, "params": {name: _value(value) for name, value in self.params.items()}}


def _rebuilt(code: str, template: str, params: dict[str, object]) -> Why:
    return Why(code, template, **params)


def _value(value: object) -> JsonValue:
    if isinstance(value, Why):
        return value.to_json()
    if isinstance(value, Words):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_value(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


OUTCOME_WORDS = {
    "success": N_("success"),
    "failure": N_("failure"),
    "critical_success": N_("critical success"),
    "critical_failure": N_("critical failure"),
}


def outcome_why(outcome: str) -> Why:
    """An outcome code as a word inside a reason (成功, クリティカル ...)."""
    return Why(outcome, OUTCOME_WORDS.get(outcome, outcome))


def refused(error: CampaignError) -> Why:
    """The dice engine's own refusal of the log's faces, in its own words (translated
    from the core's template where it is shown)."""
    return Why("dice_refused", error.template, **error.params)


def json_fields(why: str | None) -> dict[str, JsonValue]:
    """`why_code` and `why_params` for --json: the reason as a code and its values."""
    if not isinstance(why, Why):
        return {"why_code": None, "why_params": {}}
    found = why.to_json()
    params = found["params"] if isinstance(found, dict) else {}
    return {"why_code": why.code, "why_params": params}
