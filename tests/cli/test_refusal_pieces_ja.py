"""The pieces inside a translated line are Japanese too: a status code from an op
conflict (`dead`), the check a refusal names, the state of an invite, Click's usage
errors and the warning for a character out of play read as whole Japanese sentences;
what the user types (`--bogus`, `fright`) stays as typed. Exact lines, both languages."""

from __future__ import annotations

import pytest

from campaign import i18n
from campaign.errors import CampaignError, RuleRefused
from campaign.projection.op_base import EntryContext, OpConflict, refuse_busy
from campaign.projection.ops_characters import CharacterStatusSet, CpAwarded
from campaign.projection.state import CharacterRow, State
from campaign.refusal_words import refusal_text
from tests.cli.conftest import Cli


@pytest.fixture
def ja(monkeypatch):
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")


def _conflict(apply) -> OpConflict:
    with pytest.raises(OpConflict) as raised:
        apply()
    return raised.value


def _in(lang: str, conflict: OpConflict) -> str:
    """The conflict's line as a service shows it (services.recording: a RuleRefused of its template)."""
    i18n.use(lang)
    try:
        return refusal_text(RuleRefused(conflict.template, **conflict.params))
    finally:
        i18n.use(None)


def test_an_op_conflict_names_the_status_in_words_not_its_code():
    state = State()
    state.characters["刀矢"] = CharacterRow("pc", "Aki", None, {}, 100, status="dead")
    entry = EntryContext(seq=9, at="2026-12-02T00:00:00Z", scenario=None)
    again = _conflict(lambda: CharacterStatusSet(character="刀矢", status="dead").apply(state, entry))
    busy = _conflict(lambda: refuse_busy(state, "刀矢"))
    assert (_in("ja", again), _in("en", again)) == ("刀矢 はすでに死亡しています", "刀矢 is already dead")
    assert (_in("ja", busy), _in("en", busy)) == ("刀矢 は死亡しています", "刀矢 is dead")
    state.characters["刀矢"].status = "retired"
    assert _in("ja", _conflict(lambda: refuse_busy(state, "刀矢"))) == "刀矢 は引退しています"
    state.characters["刀矢"].cp_awarded = 2**31 - 1
    beyond = _conflict(lambda: CpAwarded(character="刀矢", cp=1).apply(state, entry))
    assert _in("ja", beyond).startswith("獲得CP が 2147483648 になり") and str(beyond).startswith("awarded CP would be")


def test_a_check_for_the_dead_names_the_check_in_japanese(gurps: Cli, ja):
    gurps.run("char", "kill", "刀矢", "--reason", "倒れた")
    assert (
        gurps.error("fright", "刀矢", code=1)
        == "エラー: 刀矢 は死亡です: ゲームから外れたキャラクターは恐怖判定をしません"
    )
    rolled = gurps.run("roll", "3D6", "--char", "刀矢", "--dice", "1,2,3")
    assert rolled.stderr == "警告: 刀矢 は死亡していて場にいません\n"
    assert gurps.json("roll", "3D6", "--char", "刀矢", "--dice", "1,2,3")["warnings"] == [
        "刀矢 is dead and not in play"  # --json keeps English, whatever the language
    ]


def test_click_usage_errors_in_japanese(gurps: Cli, ja):
    assert gurps.error("roll", "3D6", "--bogus", code=2) == (
        "エラー: オプション --bogus はありません (`campaign roll --help` を参照)"
    )
    assert gurps.error("award", code=2) == "エラー: 引数 CP がありません (`campaign award --help` を参照)"
    assert gurps.error("award", "2", code=2) == "エラー: オプション '--to' が必要です (`campaign award --help` を参照)"
    assert gurps.error("history", "--limit", "abc", code=2) == (
        "エラー: --limit: 'abc' は整数ではありません (`campaign history --help` を参照)"
    )
    assert gurps.error("roll", "3D6", "--dice", code=2) == ("エラー: --dice には値が必要です")


def test_click_usage_errors_keep_clicks_english(gurps: Cli):
    assert (
        gurps.error("roll", "3D6", "--bogus", code=2) == "error: No such option: --bogus (see `campaign roll --help`)"
    )
    assert gurps.error("history", "--limit", "abc", code=2) == (
        "error: --limit: 'abc' is not a whole number (see `campaign history --help`)"
    )
    assert gurps.error("roll", "3D6", "--dice", code=2) == "error: --dice needs a value"


def test_a_refused_void_and_a_mistyped_kind_in_japanese(gurps: Cli, ja):
    assert gurps.error("history", "void", "3", "--yes", "--reason", "x", code=1) == (
        "エラー: エントリー #3 (プレイヤー) は結果ではなく構成の記録です。取り消せません"
    )
    assert gurps.error("history", "--kind", "frigth", code=2) == (
        "エラー: --kind: 種類 'frigth' のエントリーはありません。'fright' のことですか?"
    )


def test_a_used_invite_says_so_in_japanese(gurps: Cli, ja):
    from campaign.db.database import Database
    from campaign.services.ledger.browse import campaign_identity
    from campaign.services.table.invites import JOIN_PREFIX, invite, join

    db = Database(gurps.db)
    try:
        campaign_id, _name = campaign_identity(db, None)
        code = invite(db, None, "Aki").join_path.removeprefix(JOIN_PREFIX)
        join(db, campaign_id, code)
        i18n.use("ja")
        with pytest.raises(CampaignError) as refused:
            join(db, campaign_id, code)
    finally:
        i18n.use(None)
        db.close()
    assert str(refused.value) == "この招待はすでに使われています"


def test_a_write_the_disk_refuses_is_said_in_japanese(gurps, monkeypatch, tmp_path):
    """A full disk while an export is made safe: one line in the reader's language, the
    file's name and why, and nothing replaced."""
    import errno
    import os

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    target = tmp_path / "out.jsonl"
    monkeypatch.setattr(os, "fsync", full)
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    line = gurps.error("export", str(target), code=1)
    assert line == f"エラー: {target} に書き込めません: デバイスの空き容量がありません。何も置き換えていません"
    monkeypatch.setenv("CAMPAIGN_LANG", "en")
    line = gurps.error("export", str(target), code=1)
    assert line == f"error: cannot write {target}: no space left on the device; nothing was replaced"
    assert not target.exists()
