"""A property test over generated BCDice GURPS answers, in every form BCDice and ココフォリア
print them: what the import reads (dice, total, outcome, margin) must be what the line
says, and its judgement must be the project's own roll engine's for the same dice.

The generator writes lines as BCDice's GURPS bot does (its words from its own rules,
restated here, not taken from the code under test); the oracle is core.dice.
"""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from campaign.bridges.bcdice_lines import read_message
from campaign.core.dice import roll_parsed
from campaign.core.dice_parse import parse
from campaign.core.dice_source import ManualDice
from campaign.seeds import load_tables

TABLES = load_tables()
WORDS = {"critical_success": "クリティカル", "critical_failure": "ファンブル", "success": "成功", "failure": "失敗"}


def bcdice_word(raw: int, total: int, target: int) -> tuple[str, str]:
    """(outcome, the word BCDice prints) for 3d6 (+modifier) against target."""
    if raw <= 4 or (raw <= 5 and target >= 15) or (raw <= 6 and target >= 16):
        return "critical_success", "クリティカル"
    if target - raw <= -10 or (raw >= 17 and target <= 15) or raw >= 18:
        return "critical_failure", "ファンブル"
    if raw >= 17:
        return "failure", "自動失敗"
    return ("success", "成功") if total <= target else ("failure", "失敗")


@st.composite
def gurps_lines(draw):
    faces = draw(st.lists(st.integers(1, 6), min_size=3, max_size=3))
    target = draw(st.integers(3, 25))
    modifier = draw(st.integers(-4, 4))
    form = draw(
        st.sampled_from(
            ["plain", "t3d6", "next_line", "apart", "no_faces", "full_width", "secret", "positive_degree", "repeat"]
        )
    )
    comment = draw(st.sampled_from(["", "回避", "恐怖判定", "知覚 ＞ 頼む"]))
    raw = sum(faces)
    total = raw + modifier
    mod = "" if modifier == 0 else f"{modifier:+d}"
    outcome, word = bcdice_word(raw, total, target)
    degree = target - total
    if form == "positive_degree" and outcome.endswith("failure"):
        degree = total - target
    label = "成功度" if outcome.endswith("success") else "失敗度"
    shown = f"{raw}{faces}".replace(" ", "") + mod
    answer = (
        f"(3D6{mod}<={target}) ＞ {shown if form != 'no_faces' else ''}".rstrip()
        + f" ＞ {total} ＞ {word}({label}：{degree})"
    )
    if form == "no_faces":
        answer = f"(3D6{mod}<={target}) ＞ {total} ＞ {word}({label}：{degree})"
    typed = f"{target}-3d6{mod}" if form == "t3d6" else f"3d6{mod}<={target}"
    if form == "secret":
        typed = "s" + typed
    head = f"{typed} {comment}".strip()
    result = None
    if form == "next_line":
        text = f"{head}\n{answer}"
    elif form == "apart":
        text, result = head, answer
    elif form == "repeat":
        text = f"x2 {head}\n#1\n{answer}\n\n#2\n{answer}"
    else:
        text = f"{head} {answer}"
    if form == "full_width":
        text = unicodedata.normalize("NFKC", text).translate(str.maketrans("0123456789", "０１２３４５６７８９"))
        text = text.replace("<=", "＜＝")
    return {
        "text": text,
        "result": result,
        "faces": faces,
        "target": target,
        "modifier": modifier,
        "total": total,
        "outcome": outcome,
        "form": form,
        "comment": comment or None,
    }


@settings(max_examples=300, deadline=None)
@given(gurps_lines())
def test_generated_bcdice_gurps_lines(case):
    reading = read_message(case["text"], TABLES, gurps=True, result=case["result"])
    assert reading.kind == "dice", (case, reading.why)
    expected_lines = 2 if case["form"] == "repeat" else 1
    assert len(reading.lines) == expected_lines
    expression = f"3D6{case['modifier']:+d}<={case['target']}" if case["modifier"] else f"3D6<={case['target']}"
    engine = roll_parsed(parse(expression), ManualDice(list(case["faces"])), gurps=True)
    for line in reading.lines:
        assert line.expression == engine.expression == expression
        assert line.total == engine.total == case["total"]
        assert line.outcome == case["outcome"]  # the word the group saw
        assert line.margin == engine.margin == case["target"] - case["total"]  # negative on failure
        assert line.rules_outcome == engine.outcome  # the campaign's own judgement of the dice
        if case["form"] == "no_faces":
            assert line.faces is None
            assert line.detail["gurps"]["outcome"] == engine.outcome
        else:
            assert list(line.faces) == case["faces"] == list(engine.faces)
            assert line.detail["gurps"] == engine.judgement.to_detail()
        assert line.secret == (case["form"] == "secret")
        if case["comment"]:
            assert line.comment == case["comment"] or case["form"] == "full_width"


@settings(max_examples=150, deadline=None)
@given(gurps_lines(), st.integers(1, 5), st.sampled_from(["total", "face", "word"]))
def test_a_line_that_contradicts_itself_is_refused(case, shift, what):
    if case["form"] in ("full_width", "repeat"):
        return
    text, result = case["text"], case["result"]
    target_text = result if result is not None else text
    answer_at = target_text.index(f"<={case['target']}) ＞")
    head, answer = target_text[:answer_at], target_text[answer_at:]
    if what == "total":
        answer = answer.replace(f" ＞ {case['total']} ＞ ", f" ＞ {case['total'] + shift} ＞ ", 1)
    elif what == "face" and case["form"] != "no_faces":
        faces = case["faces"]
        changed = [faces[0] % 6 + 1, *faces[1:]]
        answer = answer.replace(str(faces).replace(" ", ""), str(changed).replace(" ", ""), 1)
    else:
        wrong = "失敗" if case["outcome"].endswith("success") else "成功"
        for word in ("クリティカル", "ファンブル", "自動失敗", "成功", "失敗"):
            if f"＞ {word}(" in answer:
                answer = answer.replace(f"＞ {word}(", f"＞ {wrong}(", 1)
                break
    changed = head + answer
    reading = read_message(
        changed if result is None else text, TABLES, gurps=True, result=changed if result is not None else None
    )
    assert reading.kind == "contradictory", (changed, reading)
