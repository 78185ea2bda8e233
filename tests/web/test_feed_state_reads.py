"""The feed reads the shared state (every sheet: the costly part of a new head) only when
a new entry may have changed the sheets: a plain roll's own entry event carries all it
shows, so twenty players rolling do not pay for twenty reads of every sheet. A sheet
change (damage, from another process) is still read and sent as a `state` event."""

from __future__ import annotations

import asyncio
import json

from campaign.db.database import Database
from campaign.services.common import campaign_named
from campaign.services.ledger.browse import head_seq
from campaign.web.feed import Feed
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)


def test_plain_rolls_leave_the_state_unread_and_a_sheet_change_reads_and_sends_it(gurps):
    db = Database(gurps.db)
    with db.read() as session:
        campaign_id = campaign_named(session, None).id
    reads: list[int] = []

    def render_state() -> tuple[int, dict]:
        head = head_seq(db, campaign_id)
        reads.append(head)
        return head, {"sheets_at": len(reads)}  # a new version at every read: each read is sent

    feed = Feed(db, campaign_id, render_row=lambda entry: f"<tr>{entry['seq']}</tr>", render_state=render_state)
    start = head_seq(db, campaign_id)

    async def play() -> list[tuple[str, int]]:
        stream = feed.stream(start)
        got: list[tuple[str, int]] = []

        async def until(count: int) -> None:
            while len(got) < count:
                chunk = await asyncio.wait_for(anext(stream), 10)
                if chunk.startswith("id: "):
                    got.append(("entry", int(chunk.split("\n")[0][4:])))
                elif chunk.startswith("event: state"):
                    got.append(("state", json.loads(chunk.split("data: ", 1)[1])["seq"]))

        await asyncio.to_thread(gurps.run, "roll", "3D6<=12", "--char", "鈴音", "--dice", "1,2,3")
        await until(2)  # the first batch: its entry, and the state this page had not had yet
        for faces in ("4,5,6", "2,2,2"):
            await asyncio.to_thread(gurps.run, "roll", "3D6", "--char", "鈴音", "--dice", faces)
        await until(4)
        await asyncio.to_thread(gurps.run, "char", "damage", "鈴音", "HP", "2", "--reason", "爪")
        await until(6)
        await stream.aclose()
        return got

    got = asyncio.run(play())
    first = start + 1
    assert got == [
        ("entry", first),
        ("state", first),
        ("entry", first + 1),
        ("entry", first + 2),
        ("entry", first + 3),
        ("state", first + 3),
    ]
    assert reads == [first, first + 3]  # not at the two plain rolls' heads
