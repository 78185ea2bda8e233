"""What a table page is sent about each entry: the entry event's `item`, and the gap a
page fetches when the seqs of its entry events jump (GET /api/table/entries)."""

from __future__ import annotations

import json
import time

import pytest

from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.test_table_server import table  # noqa: F401 (fixture)


def _seqs(answer) -> list[int]:
    assert answer.status_code == 200, answer.text
    return [item["seq"] for item in answer.json()["entries"]]


@pytest.mark.dialect
def test_a_gap_answers_the_entries_between_newest_first(table):
    cli, _, _, browser = table
    seqs = [cli.json("roll", "2D6", "--char", "鈴音", "--dice", f"{n},1")["seq"] for n in range(1, 6)]
    aki = browser("Aki")
    got = aki.http.get(f"/api/table/entries?after={seqs[0]}&before={seqs[4]}")
    assert _seqs(got) == [seqs[3], seqs[2], seqs[1]]
    first = got.json()["entries"][-1]
    assert (first["kind"], first["character"], first["text"], first["actor"]) == ("roll", "鈴音", "2D6 [2,1]=3", "GM")
    # no gap, a reversed one, or one past the head: nothing to send
    assert _seqs(aki.http.get(f"/api/table/entries?after={seqs[0]}&before={seqs[1]}")) == []
    assert _seqs(aki.http.get(f"/api/table/entries?after={seqs[4]}&before={seqs[0]}")) == []
    assert _seqs(aki.http.get(f"/api/table/entries?after={seqs[4]}&before=99999999999")) == []


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_long_gap_answers_its_newest_fifty(db_url, table):
    cli, _, _, browser = table
    first = cli.json("roll", "1D6", "--dice", "1")["seq"]
    for _ in range(60):
        cli.run("roll", "1D6", "--dice", "2")
    got = _seqs(browser("Aki").http.get(f"/api/table/entries?after={first}&before={first + 61}"))
    assert got == list(range(first + 60, first + 10, -1))


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_malformed_bound_is_refused(db_url, table):
    _, _, _, browser = table
    answer = browser("Aki").http.get("/api/table/entries?after=x&before=3")
    assert answer.status_code == 400 and answer.json()["error"] == "malformed input: after: 'x' is not a whole number"


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_each_entry_event_carries_the_item_the_table_lists(db_url, table):
    cli, _, _, browser = table
    aki = browser("Aki")
    with aki.http.stream("GET", "/api/feed", timeout=30) as stream:
        lines = stream.iter_lines()
        assert next(lines).startswith("retry:")
        seq = cli.json("roll", "3D6<=12", "--char", "鈴音", "--dice", "1,2,3")["seq"]
        started = time.monotonic()
        for line in lines:
            if line.startswith("data: ") and f'"seq": {seq}' in line:
                event = json.loads(line.removeprefix("data: "))
                break
            assert time.monotonic() - started < 10, "no entry event"
    item = event["item"]
    assert event["seq"] == item["seq"] == seq and event["html"].startswith(f'<tr id="entry-{seq}"')
    assert (item["text"], item["outcome"], item["voided"]) == ("3D6<=12 [1,2,3]=6 success", "success", False)
