"""The Recorder's one write path (services.recording + db.state_mapping), end to end
on both backends: what an op does live is what replay makes, and an op that does not
apply changes nothing, not even the part it did before refusing."""

from __future__ import annotations

import pytest

from campaign.db.database import Database
from campaign.errors import RuleRefused
from campaign.services.common import campaign_transaction, character_named
from campaign.services.recording import recording


def test_a_refused_op_writes_nothing_of_its_entry(gurps):
    db = Database(gurps.db)
    with pytest.raises(RuleRefused, match="above the maximum 11"):
        with campaign_transaction(db, None) as (session, campaign):
            character = character_named(session, campaign, "鈴音")
            with recording(session, campaign, "GM", "pool") as entry:
                entry.change_pool(character, "FP", -3)
                assert character.pools == {"FP": 8}  # the row follows the op at once
                entry.change_pool(character, "FP", 5)  # 8 + 5 = 13 > 11: PoolChanged refuses
    sheet = gurps.json("char", "show", "鈴音")
    assert sheet["pools"]["FP"]["current"] == 11
    assert gurps.json("history", "verify")["ok"] is True


def test_live_rows_are_the_replayed_rows(gurps):
    """A trait's CP outside the limit comes from TraitAdded.apply alone, live as in replay."""
    db = Database(gurps.db)
    with campaign_transaction(db, None) as (session, campaign):
        character = character_named(session, campaign, "鈴音")
        with recording(session, campaign, "GM", "trait") as entry:
            made = entry.add_trait(character, "暗所恐怖症", "phobia", -10, counts_toward_limit=False)
            kept = entry.add_trait(character, "好奇心", "quirk", -1, counts_toward_limit=True)
            entry.change_cp(character, -11)
        assert (made.unlimited_cp, kept.unlimited_cp) == (-10, 0)
        assert made.id is not None and made.origin == f"{entry.seq}.1"
    assert gurps.json("history", "verify")["ok"] is True
    gurps.run("history", "void", "--last", "--reason", "test", "--yes")
    assert gurps.json("history", "verify")["ok"] is True
    assert [t["name"] for t in gurps.json("trait", "list", "鈴音")["traits"]] == []
