"""Services return small dataclasses, not `dict[str, Any]` indexed by string keys.

Checked from the source, like test_import_graph: every public function (and public
method of a public class) in campaign/services is parsed with `ast`, and a return
annotation naming `dict[str, Any]` (bare, or inside list[...], Iterator[...] ...) is
refused unless the function is in RECORD_SHAPED below, with the reason it stays a dict.
Also: the one JSON conversion (services.results.as_json) does what `--json` relies on.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from campaign.services.results import as_json, extended, omitted_when_empty, omitted_when_none, spread_by

SERVICES = Path(__file__).parents[2] / "campaign" / "services"

# module.function (or module.Class.method) -> why its result stays a dict.
RECORD_SHAPED: dict[str, str] = {
    # The ledger's own records and the views that mirror them 1:1 (plus chain fields).
    "ledger.history.entry_view": "an entry as `history --json` shows it: the hashed record's fields and the chain's",
    "ledger.history.iter_history": "streams entry views (constant memory, `history --json` rows)",
    "ledger.history.show_entry": "an entry view with its sub-entries' views (and detail_shown, the words of its codes)",
    "ledger.history.record_of": "the stored record itself, parsed",
    "fair.receipts.ledger_records": "the records a receipts file is checked against",
    "ledger.state_lines.line_fields": "one state line of the export file, its fields as the file spells them",
    "ledger.state_lines.state_lines": "the export file's state lines (type, fields), written out as JSON",
    "ledger.browse.entries_after": "the live feed's entry views",
    "checks.rolls.roll": "the roll's entry view (or table roll's, which tables.py returns)",
    "checks.secret_rolls.reveal": "the reveal entry's view",
    "checks.secret_rolls.peek": "the hidden result as stored: the committed fields of a record, plus its seq",
    "checks.reference.roll_reference_table": "the roll's entry view, as table roll's",
    "checks.palette_lines.run_line": "the entry view of the roll, fright check or fright table the line ran",
    # Fragments of a record's detail.
    "characters.conditions.condition_codes": "a condition as a ledger entry records it: codes and numbers, no words",
    "bridges.bcdice_api.Holder.via": "the token's part of a record's detail.via",
    "fair.seeds.FairDice.entry_fair": "an entry's detail.fair: the seed's commitment, the share and the draws",
    "fair.seeds.open_commitment": "the stored seed_commit record itself, parsed",
    "checks.records.dice_source_detail": "the seed part of a check's record detail",
    # An external format.
    "bridges.bcdice_api.api_roll": "BCDice-API v2's roll answer (its documented shape, which bots read)",
    "bridges.bcdice_api.roll_original_table": "BCDice-API v2's original_table answer",
    "characters.sheet_transfer.read_records": "a sheet file's records as read (docs/sheets.md template), unchecked",
    "bridges.ccfolia.export_pieces": "ココフォリア's clipboard documents (its Clipboard API's shape, not ours)",
    # tables.py: a table roll's record detail, and the entry views `table roll` returns.
    "checks.tables.roll_detail": "a table roll's record detail: codes and numbers (campaign.table_labels words them)",
    "checks.tables.roll_table": "the parent entry's view with its sub-entries' views, as `history show` shows them",
    "checks.tables.shown_view": "an appended entry's view with detail_shown, as `history show` shows it",
}


def _module(path: Path) -> str:
    """`checks.fright` for services/checks/fright.py: stems repeat across packages."""
    return ".".join(path.relative_to(SERVICES).with_suffix("").parts)


def _public_functions():
    """(qualified name, return annotation text) of every public function and method."""
    for path in sorted(SERVICES.rglob("*.py")):  # every package of services/
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found = [(f"{_module(path)}.{node.name}", node)]
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found = [
                    (f"{_module(path)}.{node.name}.{item.name}", item)
                    for item in node.body
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                ]
            else:
                continue
            for name, function in found:
                if not function.name.startswith("_") and function.returns is not None:
                    yield name, ast.unparse(function.returns)


def _returns_a_dict(annotation: str) -> bool:
    return "dict[str, Any]" in annotation or annotation in ("dict", "Dict")


def test_services_return_dataclasses_not_dicts():
    offenders = [
        f"{name} -> {annotation}"
        for name, annotation in _public_functions()
        if _returns_a_dict(annotation) and name not in RECORD_SHAPED
    ]
    assert not offenders, (
        "return a frozen dataclass (services.results), or add the function to "
        "RECORD_SHAPED with the reason its result is a record:\n" + "\n".join(offenders)
    )


def test_every_allowed_dict_is_still_one():
    """An allow-list entry for a function that is gone or returns a dataclass now would
    let the next dict in unnoticed."""
    dicts = {name for name, annotation in _public_functions() if _returns_a_dict(annotation)}
    stale = sorted(set(RECORD_SHAPED) - dicts)
    assert not stale, f"drop these from RECORD_SHAPED: {stale}"


def test_the_checker_sees_services():
    names = dict(_public_functions())
    assert names["checks.fright.fright_check"] == "FrightCheckResult"
    assert _returns_a_dict("list[dict[str, Any]]") and _returns_a_dict("Iterator[dict[str, Any]]")
    assert not _returns_a_dict("dict[str, str]")


# --- the one JSON conversion ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Inner:
    from_: str
    faces: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Outer:
    seq: int
    inner: _Inner | None
    items: tuple[_Inner, ...]
    detail: dict
    warnings: tuple[str, ...] = omitted_when_empty()


@dataclass(frozen=True, slots=True)
class _Longer(_Outer):
    as_of: int = 0


def test_as_json_keeps_field_order_nests_and_lists():
    inner = _Inner(from_="Aki", faces=(1, 4, 6))
    value = _Outer(seq=9, inner=inner, items=(inner,), detail={"nested": inner, "none": None})
    document = as_json(value)
    assert list(document) == ["seq", "inner", "items", "detail"]  # no warnings: omitted while empty
    assert document["inner"] == {"from": "Aki", "faces": [1, 4, 6]}
    assert document["items"] == [{"from": "Aki", "faces": [1, 4, 6]}]
    assert document["detail"] == {"nested": {"from": "Aki", "faces": [1, 4, 6]}, "none": None}
    warned = as_json(_Outer(seq=9, inner=None, items=(), detail={}, warnings=("鈴音 is missing",)))
    assert warned == {"seq": 9, "inner": None, "items": [], "detail": {}, "warnings": ["鈴音 is missing"]}


@dataclass(frozen=True, slots=True, kw_only=True)
class _Optional:
    target: int | None = omitted_when_none()
    modifier: int = 0


def test_omitted_when_none_keeps_a_zero():
    assert as_json(_Optional()) == {"modifier": 0}
    assert as_json(_Optional(target=0)) == {"target": 0, "modifier": 0}


def test_call_params_keep_their_stored_shape():
    """A call's row stores as_json of its typed parameters; reading the row back gives
    the same value (services.table.call_params), keys in the order the row always had them."""
    from campaign.services.table.call_params import CheckCall, ReunionCall, call_params, check_params

    danger = check_params("check", {"check": "danger", "difficulty": 0, "modifier": -1})
    assert danger == CheckCall(check="danger", stat="感", difficulty=0, modifier=-1)
    assert list(as_json(danger).items()) == [("check", "danger"), ("stat", "感"), ("difficulty", 0), ("modifier", -1)]
    skill = check_params("check", {"check": "skill", "stat": "技", "target": 9, "skill": 2})
    assert list(as_json(skill)) == ["check", "stat", "target", "skill", "modifier"]
    assert as_json(check_params("check", {"check": "success", "roll": " 回避 "})) == {
        "check": "success",
        "roll": "回避",
        "modifier": 0,
    }
    assert as_json(check_params("fright", {"modifier": -2})) == {"modifier": -2, "severe_phobia": False}
    ended = ReunionCall(award=3, scenario=2, characters=("鈴音",))
    assert as_json(ended) == {
        "award": 3,
        "elapsed": None,
        "searchers": False,
        "npcs": False,
        "scenario": 2,
        "characters": ["鈴音"],
    }
    for kind, params in (("check", danger), ("check", skill), ("reunion", ended)):
        assert call_params(kind, as_json(params)) == params


def _reason_fields(reason: str | None) -> dict:
    return {"why": reason, "why_code": None if reason is None else reason.upper()}


@dataclass(frozen=True, slots=True)
class _Spread:
    seq: int
    why: str | None = field(metadata=spread_by(_reason_fields))
    last: bool = True


def test_spread_by_puts_several_keys_in_the_field_s_place():
    assert list(as_json(_Spread(seq=1, why="dup")).items()) == [
        ("seq", 1),
        ("why", "dup"),
        ("why_code", "DUP"),
        ("last", True),
    ]


def test_as_json_passes_plain_json_through():
    plain = {"seq": 1, "dice": [1, 2], "detail": {"k": (3, 4)}}
    assert as_json(plain) == {"seq": 1, "dice": [1, 2], "detail": {"k": [3, 4]}}
    assert as_json([1, "a", None, True]) == [1, "a", None, True]


def test_extended_adds_fields_after_the_base_ones():
    base = _Outer(seq=1, inner=None, items=(), detail={})
    longer = extended(_Longer, base, as_of=7)
    assert list(as_json(longer)) == ["seq", "inner", "items", "detail", "as_of"]
    assert longer.as_of == 7 and longer.seq == 1


@dataclass(frozen=True, slots=True)
class _Tail:
    as_of: int


def test_extended_takes_several_groups_and_refuses_a_field_twice():
    """A check's result is its roll group, its context group and its own fields."""
    import pytest

    inner = _Inner(from_="Aki", faces=(2,))
    joined = extended(_Longer, _Tail(as_of=3), seq=5, inner=inner, items=(), detail={})
    assert as_json(joined) == {"seq": 5, "inner": {"from": "Aki", "faces": [2]}, "items": [], "detail": {}, "as_of": 3}
    with pytest.raises(TypeError, match="'as_of' given twice"):
        extended(_Longer, _Tail(as_of=3), _Tail(as_of=4), seq=5, inner=None, items=(), detail={})
    with pytest.raises(TypeError):  # a group field given again as a keyword
        extended(_Longer, _Tail(as_of=3), as_of=4, seq=5, inner=None, items=(), detail={})
