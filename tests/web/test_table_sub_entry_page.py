"""A table's extra roll on its own entry page: why it was rolled and what came up, in the
page's language, made from the record's codes (the record itself holds no words)."""

from __future__ import annotations

from tests.web.conftest import client_for


def test_a_sub_entry_page_shows_its_reason_and_result_in_the_page_language(table, client, monkeypatch):
    cli, _seqs = table
    rolled = cli.json("table", "roll", "YSFMB", "--dice", "6,6,5,2,2,3")
    sub = rolled["seq"] + 1
    text = client.get(f"/entries/{sub}").text
    assert "<dd>roll on Critical Head Blow Table</dd>" in text
    assert '<span class="line">7: One of the foe&#39;s eyes is hurt; stunned, DX -2.' in text
    assert "頭部" not in text.split('<pre class="record">')[0].split("</h1>")[-1]
    monkeypatch.setenv("CAMPAIGN_LANG", "ja")
    with client_for(cli.db) as japanese:
        text = japanese.get(f"/entries/{sub}").text
        assert "<dd>頭部打撃クリティカル表を引く</dd>" in text
        assert '<span class="line">7: 敵は片目を負傷して朦朧。敏捷力-2。' in text
