"""The one way a service's result becomes JSON.

Services return small frozen dataclasses (one per use-case, defined beside the service),
so callers read `result.seq`, not `result["seq"]`, and a typo is an AttributeError, not
a silent None. `--json` prints `as_json(result)`: the fields in the order the class
declares them, which is the document's key order, so a field's place in the class is
part of the command's output.

Two conventions, and nothing per class:
- A name that would be a Python keyword ends in an underscore (`from_`); its JSON key is
  the name without it ("from").
- A field declared with `spread_by(convert)` becomes the several keys `convert` gives.
- A field declared with `omitted_when_empty()` is left out of the document while it is
  empty (a result's "warnings" appear only when there are some); one declared with
  `omitted_when_none()` while it is None (a 0 is still shown).

Ledger records and the dicts that mirror them (`detail`, ops) stay plain dicts: they are
JSON by nature, and `as_json` passes dicts, lists and tuples through, converting any
dataclass found inside them.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

# The field markers live in campaign.core.json_fields, so a view below services (the
# projection's sheet) can declare how its fields convert; they stay importable here.
from campaign.core.json_fields import (
    _CONVERTER,
    _OMIT_EMPTY,
    _OMIT_NONE,
    _SPREAD,
    converted_by,
    omitted_when_empty,
    omitted_when_none,
    spread_by,
)

T = TypeVar("T")

__all__ = ["as_json", "converted_by", "extended", "json_key", "omitted_when_empty", "omitted_when_none", "spread_by"]


def extended(cls: type[T], *bases: Any, **extra: Any) -> T:
    """A `cls` result holding every field of each of `bases` (dataclasses it subclasses)
    and `extra`: a character's sheet plus the seq of the entry that wrote it; a check's
    head, its roll and its context. A field given twice is a TypeError, as in a call."""
    values: dict[str, Any] = {}
    for base in bases:
        for spec in fields(base):
            if spec.name in values:
                raise TypeError(f"{cls.__name__}: field {spec.name!r} given twice")
            values[spec.name] = getattr(base, spec.name)
    return cls(**values, **extra)


def json_key(name: str) -> str:
    return name[:-1] if name.endswith("_") else name


def as_json(value: Any) -> Any:
    """Plain JSON values: dataclasses become objects (fields in declared order), tuples
    become lists, dict values and list items are converted in turn."""
    if is_dataclass(value) and not isinstance(value, type):
        document = {}
        for spec in fields(value):
            item = getattr(value, spec.name)
            if (spec.metadata.get(_OMIT_EMPTY) and not item) or (spec.metadata.get(_OMIT_NONE) and item is None):
                continue
            spread = spec.metadata.get(_SPREAD)
            if spread is not None:
                document.update(as_json(spread(item)))
                continue
            convert = spec.metadata.get(_CONVERTER)
            document[json_key(spec.name)] = as_json(convert(item) if convert else item)
        return document
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    return value
