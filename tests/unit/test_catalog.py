"""The Japanese catalog: complete for what the code marks, nothing unused, compiled as committed.

tests/catalog.py extracts the messages (the `_()` calls, the templates, every --help text);
`python -m tests.catalog` merges and compiles. Help texts still without Japanese are
counted, and their number may only go down (docs/i18n.md).
"""

from __future__ import annotations

import gettext
import io

import pytest

pytest.importorskip("babel")

from tests import catalog  # noqa: E402


@pytest.fixture(scope="module")
def po():
    return catalog.read_po()


@pytest.fixture(scope="module")
def messages():
    return catalog.code_messages(), catalog.help_messages()


def _key(message) -> tuple:
    return (message.context, message.id if isinstance(message.id, str) else tuple(message.id))


def test_every_message_the_code_marks_has_its_japanese(po, messages):
    code, _help = messages
    missing = []
    for (context, message), where in code.items():
        entry = po.get(message if isinstance(message, str) else message[0], context=context)
        if entry is None or not catalog.translated(entry):
            missing.append(f"{where}: {message!r}")
    assert not missing, "no Japanese for:\n" + "\n".join(missing)


def test_no_catalog_entry_is_unused(po, messages):
    code, help_texts = messages
    used = set(code) | set(help_texts)
    unused = [message.id for message in po if message.id and _key(message) not in used]
    assert not unused, f"catalog entries no code shows (run `python -m tests.catalog`): {unused[:10]}"


def test_every_help_text_has_japanese(po, messages):
    _code, help_texts = messages
    untranslated = [
        text
        for (context, text) in help_texts
        if (entry := po.get(text, context=context)) is None or not catalog.translated(entry)
    ]
    assert not untranslated, f"--help texts without Japanese (write them in the .po): {untranslated[:5]}"


def test_the_committed_mo_is_the_po_compiled():
    committed = gettext.GNUTranslations(io.BytesIO(catalog.MO.read_bytes()))
    fresh = gettext.GNUTranslations(io.BytesIO(catalog.compiled(catalog.read_po())))
    assert committed._catalog == fresh._catalog  # type: ignore[attr-defined]


def test_placeholders_survive_translation(po):
    """A translation that drops or renames a {placeholder} would raise at .format()."""
    import string

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}

    bad = [
        message.id
        for message in po
        if message.id
        and isinstance(message.id, str)
        and message.string
        and fields(message.id) != fields(message.string)
    ]
    assert not bad, bad


def test_condition_words_agree_with_the_names_condition_clear_takes():
    from campaign.effect_words import CONDITION_WORDS, condition_label_ja

    assert {slug: condition_label_ja(slug) for slug in CONDITION_WORDS} == {
        "stun": "朦朧",
        "unconscious": "気絶",
        "faint": "卒倒",
        "panic": "パニック",
        "major_panic": "大パニック",
        "light_coma": "浅い昏睡",
        "coma": "昏睡",
        "catatonia": "硬直",
        "seizure": "痙攣",
        "heart_attack": "心臓発作",
        "recovering": "回復後の不調",
        "medical_care": "医学的処置",
    }
    assert condition_label_ja("a GM's own word") is None


def test_outcome_words_are_bcdices_in_japanese_and_plain_english():
    from campaign import i18n
    from campaign.labels import outcome_label

    shown = {}
    for lang in ("ja", "en"):
        i18n.use(lang)
        shown[lang] = [
            outcome_label(None, "success"),
            outcome_label(None, "failure"),
            outcome_label(None, "failure", {"automatic": True}),
            outcome_label(None, "critical_success"),
            outcome_label(None, "critical_failure"),
            outcome_label("check", "critical_success"),
            outcome_label("check", "critical_failure"),
        ]
    i18n.use(None)
    assert shown["ja"] == ["成功", "失敗", "自動失敗", "クリティカル", "ファンブル", "大成功", "大失敗"]
    assert shown["en"] == [
        "success",
        "failure",
        "automatic failure",
        "critical success",
        "critical failure",
        "critical success",
        "critical failure",
    ]
