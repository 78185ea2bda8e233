"""Time spans that cannot read as dice, through the CLI."""

from __future__ import annotations

from tests.cli.test_gm_lifecycle import verified


def test_spans_in_words_and_japanese_and_dice_refused(gurps):
    size = gurps.json("history", "verify")["entries"]
    assert gurps.error("time", "advance", "1d6h", code=2) == (
        "error: time: '1d6h' reads as dice: did you mean 1d6 h? roll it first (campaign roll 1D6) and give what "
        "it shows, e.g. 4h; for 1 day and 6h write 1day6h"
    )
    assert (
        gurps.error("condition", "add", "鈴音", "poisoned", "--for", "3d", code=2)
        == "error: --for: '3d' reads as dice (3D); for days write 3day or 3日"
    )
    gurps.run("scenario", "start", "一話", "--with", "鈴音")
    assert "reads as dice" in gurps.error("scenario", "end", "--elapsed", "1d", code=2)
    assert gurps.json("history", "verify")["entries"] == size + 1  # only the start: nothing else written
    gurps.run("condition", "add", "鈴音", "poisoned", "--for", "3day")
    done = gurps.json("time", "advance", "1日6時間")
    assert (done["seconds"], done["span_ja"]) == (30 * 3600, "1日6時間")
    assert gurps.json("time", "advance", "2 weeks")["seconds"] == 14 * 86400
    assert [(e["character"], e["name"]) for e in gurps.json("time", "advance", "30min")["ended"]] == []
    assert gurps.json("time", "advance", "3ターン")["seconds"] == 3
    verified(gurps)
