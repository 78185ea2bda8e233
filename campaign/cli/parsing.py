"""Turning option strings into values; malformed input is BadInput (exit 2)."""

from __future__ import annotations

from campaign.errors import BadInput

INT_LIMIT = 10**9


def parse_int(text: str, what: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise BadInput(f"{what}: {text!r} is not a whole number") from None
    if abs(value) > INT_LIMIT:
        raise BadInput(f"{what}: {value} is out of range")
    return value


def parse_stat_assignments(items: list[str], what: str) -> dict[str, str]:
    """`KEY=VALUE` stat pairs with the value kept as text: the service knows each stat's
    kind (Basic Speed takes 5.25; core.stat_names.stat_number checks it)."""
    result: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BadInput(f"{what}: expected KEY=VALUE, got {item!r}")
        result[key.strip()] = value.strip()
    return result


def parse_assignments(items: list[str], what: str) -> dict[str, int]:
    """`KEY=VALUE` pairs with integer values, e.g. `--stat 心=3 --stat HT=10`."""
    result: dict[str, int] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise BadInput(f"{what}: expected KEY=VALUE, got {item!r}")
        result[key.strip()] = parse_int(value, f"{what} {key.strip()}")
    return result
