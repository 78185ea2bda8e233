"""Property: `char show --at SEQ` (a replay of the ledger up to SEQ) equals what
`char show` read from the state tables when SEQ was the head, for every seq of a
generated campaign, and later entries (voids included) never change that answer."""

from __future__ import annotations

import uuid
from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaign import ledger
from campaign.db.database import Database
from campaign.errors import CampaignError
from campaign.projection.views import CharacterSheet
from campaign.services.characters import roster as characters
from campaign.services.characters.timetravel import character_at, timeline
from campaign.services.common import campaign_named
from tests.integration.test_projection_property import NAMES, PROGRAMS, _run, _setup, step

pytestmark = pytest.mark.slow


def _head(db: Database) -> int:
    with db.read() as session:
        return ledger.head(session, campaign_named(session, None).id)[0]


def _snapshot(db: Database) -> dict[str, CharacterSheet]:
    return {name: characters.show_character(db, None, name) for name in NAMES}


def _sheet(travelled) -> CharacterSheet:
    """The sheet of a CharacterAsOf, without its as_of."""
    return CharacterSheet(**{spec.name: getattr(travelled, spec.name) for spec in fields(CharacterSheet)})


@PROGRAMS
@given(program=st.lists(step, min_size=5, max_size=25))
def test_time_travel_equals_the_tables_at_every_seq(tmp_path, program):
    db = Database(str(tmp_path / f"{uuid.uuid4().hex}.db"))
    try:
        _setup(db)
        seen: dict[int, dict[str, CharacterSheet]] = {}
        for action in program:
            try:
                _run(db, action)
            except CampaignError:
                pass
            head = _head(db)
            seen[head] = _snapshot(db)
            for name, view in seen[head].items():
                travelled = character_at(db, None, name, at=head)
                assert travelled.as_of == head
                assert _sheet(travelled) == view, (head, name)
        # Later entries, voids included, never rewrite what the sheet said then.
        last = _head(db)
        for head, views in seen.items():
            for name, view in views.items():
                assert _sheet(character_at(db, None, name, at=head)) == view
                if head < last:  # "just before the next entry" is "right after this one"
                    before = character_at(db, None, name, before=head + 1)
                    assert before.as_of == head and _sheet(before) == view
        # The timeline's last state of each change agrees with the tables.
        for name in NAMES:
            rows = timeline(db, None, name)
            cp_changes = [c for r in rows for c in r.changes if c["what"] == "cp"]
            if cp_changes:
                assert cp_changes[-1]["after"] == characters.show_character(db, None, name).cp_total
    finally:
        db.close()
