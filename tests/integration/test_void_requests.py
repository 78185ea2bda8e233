"""`history approve` checks a void request again when the GM grants it.

Players' roles no longer append (migration 0010), but ledgers hold requests written
when they could, by raw SQL as much as by the CLI. Each case below is such a request,
appended with the chain intact (the database would refuse anything else), so nothing
in it is trusted: approval names what is wrong in one line and changes nothing.
"""

from __future__ import annotations

import pytest

from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.integration.forge import append_forged
from tests.integration.rawdb import raw_connection

pytestmark = pytest.mark.dialect


def _request(db: str, detail, actor: str = "Aki") -> int:
    with raw_connection(db) as conn:
        return append_forged(
            conn,
            record={
                "actor": actor,
                "kind": "void_request",
                "detail": detail,
                "reason": "typo",
                "voidable": False,
                "expression": None,
                "dice": None,
                "total": None,
                "source": None,
            },
        )["seq"]


def _refused(gurps, request: int) -> str:
    before = (gurps.json("history", "--limit", "1000"), gurps.json("char", "show", "鈴音"))
    message = gurps.error("history", "approve", str(request), code=1)
    assert (gurps.json("history", "--limit", "1000"), gurps.json("char", "show", "鈴音")) == before
    assert message.startswith(f"error: void request #{request} cannot be approved: ") and "\n" not in message
    return message.split("cannot be approved: ", 1)[1]


def test_a_sound_request_is_granted(gurps):
    rolled = gurps.json("--as", "Aki", "roll", "3D6", "--char", "鈴音", "--dice", "1,2,3")
    request = _request(gurps.db, {"requested_void": rolled["seq"]})
    approved = gurps.json("history", "approve", str(request))
    assert (approved["voided"], approved["request"]) == (rolled["seq"], request)
    assert (
        gurps.json("history", "show", str(approved["seq"]))["reason"]
        == f"approved void request #{request} by Aki: typo"
    )
    # granted once: asking again finds it voided
    assert _refused(gurps, request) == f"entry #{rolled['seq']} is already voided (by #{approved['seq']})"
    assert gurps.json("history", "verify")["ok"]


def test_a_request_cannot_undo_the_gms_void(gurps):
    rolled = gurps.json("--as", "Aki", "roll", "3D6", "--dice", "1,2,3")
    void = gurps.json("history", "void", str(rolled["seq"]), "--reason", "GM says no", "--yes")
    request = _request(gurps.db, {"requested_void": void["seq"]})
    assert _refused(gurps, request) == f"entry #{void['seq']} is a void, which only the GM takes back"


def test_a_request_for_someone_elses_entry_is_refused(gurps):
    rolled = gurps.json("--as", "Ren", "roll", "3D6", "--char", "刀矢", "--dice", "1,2,3")
    request = _request(gurps.db, {"requested_void": rolled["seq"]})
    assert _refused(gurps, request) == f"entry #{rolled['seq']} was made by Ren, not by Aki"


def test_a_request_for_what_only_the_gm_makes_is_refused(gurps):
    added = gurps.json("trait", "add", "鈴音", "勇敢", "--cp", "5", "--category", "advantage")
    request = _request(gurps.db, {"requested_void": added["seq"]}, actor="GM")
    assert _refused(gurps, request) == f"entry #{added['seq']} is a trait, which only the GM takes back"


def test_a_request_for_a_sub_entry_is_refused(gurps):
    fright = gurps.json("--as", "Aki", "fright", "鈴音", "--mod", "-3", "--dice", "6,6,4,1,1,1,2,3")
    sub = fright["seq"] + 1
    request = _request(gurps.db, {"requested_void": sub})
    assert "sub-entry, which only the GM takes back" in _refused(gurps, request)


@pytest.mark.parametrize(
    "detail",
    [{"requested_void": "5"}, {"requested_void": True}, {}, [5], None, {"requested_void": 5.5}],
    ids=["text", "bool", "none", "list", "null", "float"],
)
def test_a_malformed_request_is_one_line(gurps, detail):
    request = _request(gurps.db, detail)
    assert _refused(gurps, request) == "it is malformed (no entry number or no requester)"


@pytest.mark.parametrize("target", [0, -1, 9999, "self"])
def test_a_request_naming_no_earlier_entry_is_refused(gurps, target):
    with raw_connection(gurps.db) as conn:
        head = conn.execute("SELECT max(seq) FROM ledger").fetchone()[0]
    target = head + 1 if target == "self" else target
    request = _request(gurps.db, {"requested_void": target})
    assert _refused(gurps, request) == f"it names #{target}, which is not an earlier entry"
