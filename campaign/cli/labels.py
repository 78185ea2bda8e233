"""The words the CLI shows for codes: outcomes, trait categories, time units.

Ledger records hold codes ("critical_success", "severe phobia", "hour"); these tables
turn them into the Japanese the table uses, in one place, so wording can change without
touching hashed history or hunting through every command.
"""

from __future__ import annotations

#: GURPS outcomes in the words of the seed tables (クリティカル表 / ファンブル表).
OUTCOME_LABELS = {"success": "成功", "failure": "失敗", "critical_success": "クリティカル",
                  "critical_failure": "ファンブル"}
#: The 2d6 checks (R5) call their criticals 大成功 / 大失敗.
CHECK_OUTCOME_LABELS = {**OUTCOME_LABELS, "critical_success": "大成功", "critical_failure": "大失敗"}
#: Trait categories as a fright-check result names them.
CATEGORY_JA = {"quirk": "癖", "delusion": "妄想", "phobia": "恐怖症", "mental": "精神的特徴",
               "physical": "肉体的特徴"}
#: Units of recovery intervals and durations.
TIME_UNITS_JA = {"turn": "ターン", "minute": "分", "hour": "時間", "day": "日"}


def outcome_label(kind: str | None, outcome: str) -> str:
    """The Japanese word for an outcome code; a 2d6 check ("check") uses 大成功 / 大失敗."""
    labels = CHECK_OUTCOME_LABELS if kind == "check" else OUTCOME_LABELS
    return labels.get(outcome, outcome)


def category_ja(category: str) -> str:
    """'severe phobia' -> '強い恐怖症'; an unknown category is shown as it is."""
    severe = category.startswith("severe ")
    base = category[len("severe "):] if severe else category
    return ("強い" if severe else "") + CATEGORY_JA.get(base, base)
