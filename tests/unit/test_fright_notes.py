"""A fright check's notes travel as codes (core.applied_effects.FrightNote) and are said
only when shown (campaign.labels.note_texts), in the reader's language."""

from __future__ import annotations

from campaign.core.applied_effects import FrightNote
from campaign.i18n import speaking
from campaign.labels import note_text, note_texts


def test_a_note_records_its_code_then_its_values_in_their_order():
    assert FrightNote("pick_unused", pick="高所恐怖症").record() == {"note": "pick_unused", "pick": "高所恐怖症"}
    pool = FrightNote("pool_untracked", "刀矢", pool="FP", amount=6).record()
    assert list(pool.items()) == [("note", "pool_untracked"), ("character", "刀矢"), ("pool", "FP"), ("amount", 6)]
    mild = FrightNote("mild_phobias", "鈴音", phobias=("高所恐怖症", "閉所恐怖症")).record()
    assert mild == {"note": "mild_phobias", "character": "鈴音", "phobias": ["高所恐怖症", "閉所恐怖症"]}
    assert FrightNote("stat_untracked", "刀矢", stat="IQ").record() == {
        "note": "stat_untracked",
        "character": "刀矢",
        "stat": "IQ",
    }


def test_notes_are_said_as_a_record_of_their_codes_is():
    notes = (FrightNote("stat_untracked", "刀矢", stat="IQ"), FrightNote("pick_unused", pick="暗闇"))
    for lang in ("en", "ja"):
        with speaking(lang):
            assert note_texts(notes) == [note_text(note.record()) for note in notes]
    with speaking("en"):
        assert note_texts(notes)[0] == "刀矢 has no IQ stat: the permanent loss is recorded only"
