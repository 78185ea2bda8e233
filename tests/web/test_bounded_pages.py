"""Bounded pages: whatever one roll's dice count, /api/table, the feed's events and every
page stay under 64 KB (present.DICE_SHOWN, RESULTS_SHOWN, RECORD_SHOWN). Ten rolls of
`x100 100D100` (10,000 faces, about 200 KB of record each) are the largest a player may
make; a big roll shows its results and links to its entry page, which links to the whole
record as JSON."""

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
    seqs = [gurps.json("roll", "x100 100D100", "--char", "鈴音", "--dice", FACES)["seq"] for _ in range(10)]
    with client_for(gurps.db) as client:
        pages = ["/", "/overview", "/history", f"/entries/{seqs[-1]}", "/characters/鈴音", "/luck", "/api/table"]
        pages.append(f"/api/table/entries?after={seqs[0] - 1}&before={seqs[-1] + 1}")
        for path in pages:
            answer = client.get(path, headers={"accept-encoding": "identity"})
            assert answer.status_code == 200 and len(answer.content) < LIMIT, (path, len(answer.content))
        feed = client.app.app.state.feed
        _, state = asyncio.run(feed.state_at(seqs[-1]))
        events = asyncio.run(feed._events_after(seqs[0] - 1))
        assert len(state.encode()) < LIMIT and [seq for seq, _, _ in events] == seqs
        assert all(len(data.encode()) < 2_000 for _, _, data in events)
        item = json.loads(events[-1][2])["item"]
        entry = client.get(f"/entries/{seqs[-1]}").text
        whole = client.get(f"/api/chain?from={seqs[-1]}&to={seqs[-1]}").json()["entries"][0]["record"]
    # the results, not the dice: thirty of the hundred totals, then how many more
    assert item["text"] == "X100 100D100 → " + ", ".join(["5050"] * 30) + ", … 70 more"
    assert item["record"] == {} and item["record_on_entry_page"] is True
    assert entry.count('<span class="die">') == 60 and "… 9940 more" in entry
    assert f'<a href="/api/chain?from={seqs[-1]}&amp;to={seqs[-1]}">The whole record (JSON)</a>' in entry
    assert len(whole) > 200_000 and json.loads(whole)["dice"] == [int(face) for face in FACES.split(",")]


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
