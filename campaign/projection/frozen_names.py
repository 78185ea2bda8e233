"""The stat names an old pool op was decided with, frozen here for its replay.

A `pool_delta` op names the sheet stat its maximum is read from (`stat`: HP, or HT for
a 3rd-edition sheet that derives HP from it), so replay reads that key and nothing
else. Ops written before they carried it were decided by matching the pool's name
against the ruleset's aliases in seeds/rulesets/stats.toml as it was installed then;
this is a copy of that file's aliases at the time the field was added (no later edit of
the seeds reaches it), so what such an entry proves does not depend on what is
installed beside the ledger today. docs/rules.md "Derived stats" says how a pool's
maximum is found.
"""

from __future__ import annotations

from collections.abc import Mapping

# {ruleset: {canonical stat: aliases}}: seeds/rulesets/stats.toml's names, frozen.
ALIASES_BEFORE_RECORDED_STATS: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "gurps3-ja": {
        "ST": ("体力",),
        "DX": ("敏捷力",),
        "IQ": ("知力",),
        "HT": ("生命力",),
        "Will": ("意思", "意志", "意思力", "意志力"),
        "Per": ("知覚", "Perception"),
        "HP": ("ヒットポイント", "耐久力"),
        "FP": ("疲労点", "Fatigue"),
        "Speed": ("基本移動速度", "Basic Speed", "基本速度"),
        "Move": ("移動力",),
    },
    "2d6-ja": {
        "心": ("こころ", "kokoro", "Mind"),
        "技": ("わざ", "waza", "Skill"),
        "体": ("からだ", "karada", "Body"),
        "感": ("かん", "kan", "Sense"),
    },
}


def aliases_before_recorded_stats(ruleset: str | None) -> Mapping[str, tuple[str, ...]]:
    """The frozen aliases of `ruleset` (none for a ruleset that had no names)."""
    return ALIASES_BEFORE_RECORDED_STATS.get(ruleset or "", {})
