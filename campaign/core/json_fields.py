"""How a result's field becomes JSON, declared on the field (services.results.as_json
reads these markers): left out while empty or None, converted, or spread into several
keys. Here, below every layer, so a view the projection makes can declare them too."""

from __future__ import annotations

from dataclasses import field
from typing import Any

_OMIT_EMPTY = "campaign.omit_when_empty"
_OMIT_NONE = "campaign.omit_when_none"
_CONVERTER = "campaign.converted_by"
_SPREAD = "campaign.spread_by"


def omitted_when_empty(default: Any = ()) -> Any:
    """A field (last in its class, it has a default) left out of the JSON while empty."""
    return field(default=default, metadata={_OMIT_EMPTY: True})


def omitted_when_none() -> Any:
    """A field (default None) left out of the JSON while None."""
    return field(default=None, metadata={_OMIT_NONE: True})


def converted_by(convert: Any) -> dict[str, Any]:
    """The metadata of a field whose JSON is `convert(value)` (`field(metadata=...)`):
    typed values (an applied effect) whose document is made where their words are
    (campaign.effect_words)."""
    return {_CONVERTER: convert}


def spread_by(convert: Any) -> dict[str, Any]:
    """The metadata of a field whose JSON is several keys in its place: `convert(value)`
    gives them in order (a reason's words beside its code and values)."""
    return {_SPREAD: convert}
