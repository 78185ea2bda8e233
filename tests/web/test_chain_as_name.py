"""`/api/chain` for a campaign imported under another name (`import --as-name`): the
records carry the chain's name, so the answer names the chain, not the display name,
and a browser's check (campaign == record.campaign for every entry) holds."""

from __future__ import annotations

import hashlib
import json
import warnings

from tests.cli.conftest import Cli, gurps_setup


def _client(db_url: str, campaign: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        from campaign.web.app import create_app

        return TestClient(create_app(db_url, campaign, None, hosts=("testserver",)), follow_redirects=False)


def test_the_chain_of_a_renamed_import_names_the_chain(db_url, tmp_path):
    cli = Cli(db_url)
    gurps_setup(cli)
    cli.run("roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,2,2")
    sealed = cli.json("history", "seal", "--reason", "session 1")
    exported = tmp_path / "party.jsonl"
    cli.run("-c", "テスト卓", "export", str(exported))
    cli.json("import", str(exported), "--as-name", "写しの卓")
    cli.json("-c", "写しの卓", "roll", "2D6", "--dice", "3,3")  # written under the chain's name too

    answer = _client(db_url, "写しの卓").get("/api/chain").json()
    assert answer["campaign"] == "テスト卓"  # the name in every record, not 写しの卓
    previous, seals = answer["genesis"], []
    for entry in answer["entries"]:  # the browser's rules
        record = json.loads(entry["record"])
        assert (record["campaign"], record["seq"], entry["prev_hash"]) == (answer["campaign"], entry["seq"], previous)
        previous = hashlib.sha256((previous + entry["record"]).encode("utf-8")).hexdigest()
        assert previous == entry["hash"]
        seals += [entry["hash"]] if record["kind"] == "seal" else []
    assert seals == [sealed["head"]] and len(answer["entries"]) == sealed["seq"] + 1
    page = _client(db_url, "写しの卓").get("/history")
    assert page.status_code == 200 and "写しの卓" in page.text  # the pages still show the display name
