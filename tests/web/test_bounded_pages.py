"""Bounded pages: whatever a burst of big rolls holds, /api/table, the feed's events and
every page stay under 64 KB (present.DICE_SHOWN, RECORD_SHOWN; a gap's answer by its
byte budget). Ten repeats of `x100 100D100` (1,000 entries of 100 faces each) are the
most a player may send in ten taps; a big roll shows its first dice and links to its
entry page, which links to the whole record as JSON."""

from __future__ import annotations

import asyncio
import json

import pytest

from campaign import i18n
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)
from tests.web.conftest import client_for

LIMIT = 64 * 1024
FACES = ",".join(str(1 + n % 100) for n in range(10_000))  # 1..100, a hundred times: each total 5050


@pytest.mark.dialect
def test_ten_huge_rolls_leave_every_page_under_64_kb(gurps):
    for _ in range(10):
        gurps.run("roll", "x100 100D100", "--char", "鈴音", "--dice", FACES)
    seqs = [entry["seq"] for entry in gurps.json("history", "--kind", "roll", "--limit", "2000")]
    seqs.sort()
    assert len(seqs) == 1000
    with client_for(gurps.db) as client:
        pages = ["/", "/overview", "/history", f"/entries/{seqs[-1]}", "/characters/鈴音", "/luck", "/api/table"]
        pages.append(f"/api/table/entries?after={seqs[0] - 1}&before={seqs[-1] + 1}")
        for path in pages:
            answer = client.get(path, headers={"accept-encoding": "identity"})
            assert answer.status_code == 200 and len(answer.content) < LIMIT, (path, len(answer.content))
        gap = client.get(f"/api/table/entries?after={seqs[0] - 1}&before={seqs[-1] + 1}").json()["entries"]
        feed = client.app.app.state.feed
        _, state = asyncio.run(feed.state_at(seqs[-1]))
        events = asyncio.run(feed._events_after(seqs[0] - 1))
        # in order from the first, a batch at a time (the stream asks again for the rest)
        assert len(state.encode()) < LIMIT and [seq for seq, *_ in events] == seqs[: len(events)]
        assert max(len(data.encode()) for _, _, data, _ in events) < 4_000  # a 100-face record rides along
        item = json.loads(asyncio.run(feed._events_after(seqs[-1] - 1))[-1][2])["item"]
        entry = client.get(f"/entries/{seqs[-1]}").text
        whole = client.get(f"/api/chain?from={seqs[-1]}&to={seqs[-1]}").json()["entries"][0]["record"]
    # the gap's answer: the newest entries, in order, as many as its budget holds
    assert [one["seq"] for one in gap] == seqs[::-1][: len(gap)] and 0 < len(gap) < 50
    assert item["record"]["dice"] == list(range(1, 101)) and item["record_on_entry_page"] is False
    assert entry.count('<span class="die">') == 60 and "… 40 more" in entry
    assert "The whole record (JSON)" not in entry  # a 100-face record fits on its page
    assert json.loads(whole)["dice"] == list(range(1, 101))


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_small_roll_is_shown_whole(db_url, gurps):
    seq = gurps.json("roll", "3D6<=12", "--char", "鈴音", "--dice", "1,2,3")["seq"]
    with client_for(gurps.db) as client:
        i18n.use("en")
        try:
            item = json.loads(asyncio.run(client.app.app.state.feed._events_after(seq - 1))[-1][2])["item"]
        finally:
            i18n.use(None)
        entry = client.get(f"/entries/{seq}").text
    assert item["text"] == "3D6<=12 [1,2,3]=6 success" and item["record_on_entry_page"] is False
    assert item["record"]["dice"] == [1, 2, 3] and "The whole record" not in entry
