"""The one place that reads the shipped rule data from disk: seeds/*.toml, seeds/ref/,
seeds/rulesets/stats.toml.

Core (campaign.core) stays pure: it checks and rolls on tables it is given. This loader
reads the TOML, hands it to core's validators (core.table_validation,
core.reference.build_references, core.stat_names.build_stat_aliases) and caches the
shipped seeds once per process, since every table roll and fright check needs them.
Services call these functions and pass the result into core.

In an installed wheel the data sits in the package directory `campaign/seeds/`
(pyproject force-include); this module `campaign/seeds.py` takes precedence over that
plain data directory on import, and `default_seed_dir` finds the directory.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from campaign.errors import N_, DataError, Words

if TYPE_CHECKING:
    from campaign.core.reference import RefTable
    from campaign.core.stat_names import StatNames
    from campaign.core.table_model import Table


def default_seed_dir() -> Path:
    """The installed package's seeds/ if there is one, else the source checkout's."""
    installed = Path(__file__).parent / "seeds"
    if installed.is_dir():
        return installed
    return Path(__file__).parents[1] / "seeds"


def _read_directory(directory: Path, what: str) -> list[tuple[str, dict[str, Any]]]:
    """(path, parsed TOML) for every *.toml in the directory, in file-name order."""
    import tomllib

    paths = sorted(directory.glob("*.toml"))
    if not paths:
        raise DataError(N_("{directory}: no {what} (*.toml) found"), directory=directory, what=Words(what))
    sources = []
    for path in paths:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            raise DataError(N_("{path}: not UTF-8 text"), path=path) from None
        except tomllib.TOMLDecodeError as exc:
            raise toml_error(path, exc) from None
        sources.append((str(path), data))
    return sources


# What tomllib says is wrong, in words the catalog translates; its other messages name
# the key or character and stay as tomllib wrote them.
TOML_REASONS = frozenset(
    (
        N_("Cannot overwrite a value"),
        N_("Escaped character is not a Unicode scalar value"),
        N_("Expected '=' after a key in a key/value pair"),
        N_("Expected ']' at the end of a table declaration"),
        N_("Expected ']]' at the end of an array declaration"),
        N_("Expected newline or end of document after a statement"),
        N_("Invalid date or datetime"),
        N_("Invalid hex value"),
        N_("Invalid initial character for a key part"),
        N_("Invalid statement"),
        N_("Invalid value"),
        N_("Unclosed array"),
        N_("Unclosed inline table"),
        N_("Unescaped '\\' in a string"),
        N_("Unterminated string"),
    )
)
_TOML_WHERE = re.compile(r"^(?P<reason>.*) \(at (?:line (?P<line>\d+), column (?P<column>\d+)|end of document)\)$")
_TOML_TWICE = re.compile(r"^Cannot declare (?P<key>.+) twice$")


def toml_error(path: Path | str, exc: Exception) -> DataError:
    """A TOML file that does not parse: the file, the line and column, and what is wrong."""
    text = str(exc)
    where = _TOML_WHERE.match(text)
    reason: str = where.group("reason") if where else text
    twice = _TOML_TWICE.match(reason)
    if twice:
        reason = Words(N_("Cannot declare {key} twice"), key=twice.group("key"))
    elif reason in TOML_REASONS:
        reason = Words(reason)
    if where and where.group("line"):
        return DataError(
            N_("{path}: not valid TOML: {reason} (line {line}, column {column})"),
            path=path,
            reason=reason,
            line=int(where.group("line")),
            column=int(where.group("column")),
        )
    if where:
        return DataError(N_("{path}: not valid TOML: {reason} (at the end of the file)"), path=path, reason=reason)
    return DataError(N_("{path}: not valid TOML: {reason}"), path=path, reason=reason)


# --- rule tables (CRT, FMB, FEAR ...) ---


def load_tables(directory: Path | str | None = None) -> dict[str, Table]:
    """All tables keyed by command. The shipped seeds are read once per process."""
    if directory is None:
        return dict(_default_tables())
    return _tables_in(Path(directory))


def fright_table() -> Table:
    """The fright check table (docs/rules.md "Fright check") of the shipped seeds."""
    from campaign.core.fright import FRIGHT_TABLE

    return _default_tables()[FRIGHT_TABLE]


@lru_cache(maxsize=1)
def _default_tables() -> dict[str, Table]:
    return _tables_in(default_seed_dir())


def _tables_in(directory: Path) -> dict[str, Table]:
    from campaign.core.table_validation import build_tables

    return build_tables(_read_directory(directory, N_("seed tables")))


# --- reference tables (docs/rules.md "Reference tables") ---


def load_references(directory: Path | str | None = None) -> dict[str, RefTable]:
    """Every reference table keyed by `key`, in file-name order; the shipped ones once."""
    if directory is None:
        return dict(_default_references())
    return _references_in(Path(directory))


@lru_cache(maxsize=1)
def _default_references() -> dict[str, RefTable]:
    return _references_in(default_seed_dir() / "ref")


def _references_in(directory: Path) -> dict[str, RefTable]:
    from campaign.core.reference import build_references

    return build_references(_read_directory(directory, N_("reference tables")))


# --- stat names per ruleset ---


def load_stat_aliases(directory: Path | str | None = None) -> dict[str, dict[str, tuple[str, ...]]]:
    """{ruleset: {canonical stat: (aliases...)}} from seeds/rulesets/stats.toml."""
    return {ruleset: dict(names.aliases) for ruleset, names in load_stat_names(directory).items()}


def stat_names_for(ruleset: str | None) -> StatNames:
    """The ruleset's core.stat_names.StatNames (no names at all for an unknown ruleset)."""
    from campaign.core.stat_names import StatNames

    return load_stat_names().get(ruleset or "", StatNames({}, {}))


@lru_cache(maxsize=4)
def load_stat_names(directory: Path | str | None = None) -> dict[str, StatNames]:
    """{ruleset: core.stat_names.StatNames} from seeds/rulesets/stats.toml."""
    import tomllib

    from campaign.core.stat_names import build_stat_names

    path = Path(directory or default_seed_dir()) / "rulesets" / "stats.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(
            N_("{path}: cannot read stat names ({reason})"), path=path, reason=exc.strerror or exc
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise toml_error(path, exc) from None
    return build_stat_names(str(path), data)
