"""An idempotency key answers only on the route it was spent on (SQLite and PostgreSQL).

A key is one request's: sent again to the same route it gets that request's entries back;
sent to another route (a roll's key on a void request, one call's key on another call)
it is refused with 409 `key_reused` and a reason, writing nothing, never a 500 and never
another request's entries as the answer. Every ordered pair of routes is tried.
"""

from __future__ import annotations

import itertools

import pytest

from tests.cli.conftest import Cli, cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import Browser, served

pytestmark = pytest.mark.dialect

ROUTES = ("rolls", "void-requests", "call A", "call B")
_keys = itertools.count(1)


def head(cli: Cli) -> int:
    return cli.json("history", "--limit", "1")[0]["seq"]


class Table:
    """Aki's seat, and a way to send one request of each route with a given key."""

    def __init__(self, cli: Cli, aki: Browser, faces: list[int]) -> None:
        self.cli, self.aki, self.faces = cli, aki, faces
        self.calls: dict[str, int] = {}

    def prepare(self, route: str) -> None:
        """What the route needs to succeed: a pending call, an entry of Aki's to void."""
        if route.startswith("call") and route not in self.calls:
            self.calls[route] = self.cli.json("call", "fright", "鈴音")["call_id"]
        if route == "void-requests":
            self.faces[:] = [2, 2, 2]
            own = self.aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"})
            self.own = own.json()["seq"]

    def route_of(self, route: str) -> str:
        return f"calls/{self.calls[route]}/roll" if route.startswith("call") else route

    def send(self, route: str, key: str):
        if route == "rolls":
            self.faces[:] = [1, 2, 3]
            return self.aki.post("/api/rolls", {"command": "3D6", "character": "鈴音"}, key=key)
        if route == "void-requests":
            return self.aki.post("/api/void-requests", {"seq": self.own, "reason": "押し間違い"}, key=key)
        self.faces[:] = [1, 1, 1]  # a fright check made: no table roll
        return self.aki.post(f"/api/calls/{self.calls[route]}/roll", {}, key=key)


@pytest.mark.parametrize(("first", "second"), list(itertools.permutations(ROUTES, 2)))
def test_a_key_spent_on_one_route_is_refused_on_another(gurps, first, second):
    faces: list[int] = []
    with served(gurps.db, faces) as base:
        aki = Browser(base)
        assert aki.join(gurps.json("invite", "Aki")["join_path"]).status_code == 303
        table = Table(gurps, aki, faces)
        key = f"scope-{next(_keys):06d}-{first[:4]}"
        table.prepare(first)
        done = table.send(first, key)
        assert done.status_code == 201, done.text
        table.prepare(second)
        before = head(gurps)
        reused = table.send(second, key)
        assert reused.status_code == 409, reused.text
        assert reused.json()["code"] == "key_reused"
        assert reused.json()["error"] == (
            "this idempotency key was used for another request: "
            f"idempotency_key {key} was used for another request ({table.route_of(first)}); send a new key"
        )
        assert head(gurps) == before
        again = table.send(first, key)  # the same request again: its own answer, replayed
        assert again.status_code == 200 and again.json()["seq"] == done.json()["seq"]
        assert head(gurps) == before
        if second.startswith("call"):  # the refused call is still pending: a new key rolls it
            assert table.send(second, key + "-new").status_code == 201
        aki.close()
    gurps.run("history", "verify")
