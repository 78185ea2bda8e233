"""The Host check: an empty or missing Host is refused, one root dot is the same name
(`localhost.`), and the names given with `serve --allow-host` are read the same way."""

from __future__ import annotations

import httpx
import pytest

from campaign.web.security import Guard, host_allowed, host_name
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.table_server import served

NAMES = frozenset({"localhost", "table.local"})


@pytest.mark.parametrize(
    ("host", "name"),
    [
        ("localhost.", "localhost"),
        ("LOCALHOST.:8000", "localhost"),
        ("table.local.", "table.local"),
        ("localhost..", "localhost."),  # two dots are no DNS name: it stays unlike any allowed one
        (".", None),
        ("..", "."),
        (":8000", None),
        (".:8000", None),
        ("", None),
        ("   ", None),
        (None, None),
        ("[::1]", "::1"),
        ("[::1", None),
        ("127.0.0.1.", "127.0.0.1"),
    ],
)
def test_host_name_reads_one_root_dot_and_nothing_else(host, name):
    assert host_name(host) == name


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("localhost.", True),
        ("localhost.:8000", True),
        ("Table.Local.:8000", True),
        ("localhost..", False),
        ("localhost..:8000", False),
        ("table.local..", False),
        (".", False),
        ("", False),
        (" ", False),
        (":8000", False),
        (None, False),
        ("evil.example.", False),
        ("localhost.evil.example.", False),
    ],
)
def test_empty_hosts_are_refused_and_a_root_dot_is_the_same_name(host, allowed):
    assert host_allowed(host, NAMES) is allowed


@pytest.mark.parametrize("given", ["Table.Local.", "table.local", "TABLE.LOCAL"])
def test_allowed_names_are_read_like_a_host_header(given):
    guard = Guard(lambda *a: None, None, hosts=[given, "", "."])  # empty names allow nothing
    assert guard.hosts == frozenset({"localhost", "table.local"})


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_served_pages_answer_by_the_same_rule(gurps):
    with served(gurps.db, hosts=("Table.Local.",)) as base:
        port = base.rsplit(":", 1)[1]
        for host, status in (
            (f"localhost.:{port}", 200),
            (f"table.local.:{port}", 200),
            (f"table.local:{port}", 200),
            (f"localhost..:{port}", 421),
            (f".:{port}", 421),
            (f":{port}", 421),
            ("", 421),
        ):
            answer = httpx.get(base + "/", headers={"host": host}, timeout=30)
            assert answer.status_code == status, host
            if status == 421:
                assert answer.json()["code"] == "host"
