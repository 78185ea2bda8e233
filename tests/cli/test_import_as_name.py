"""`import --as-name NEW`: a campaign renamed on its way in keeps a chain that verifies.

The hashed records carry the name the chain was written under; the renamed campaign
remembers it (Campaign.chain_name), so verify, new entries, proofs, secrets, a second
export and import all keep working.
"""

from __future__ import annotations

import json
import sqlite3

from tests.cli.conftest import Cli, gurps_setup


def _exported(cli: Cli, tmp_path, name: str, *extra: str) -> str:
    target = tmp_path / name
    cli.run("-c", "テスト卓", "export", str(target), *extra)
    return str(target)


def header_entries(path) -> int:
    return json.loads(path.read_text(encoding="utf-8").splitlines()[-1])["entries"]


def _party(cli: Cli) -> Cli:
    gurps_setup(cli)
    cli.run("roll", "3D6<=12", "回避", "--char", "鈴音", "--dice", "1,2,2")
    cli.run("history", "seal", "--reason", "session 1")
    return cli


def test_import_as_name_beside_the_original_verifies_and_keeps_writing(cli, tmp_path):
    _party(cli)
    exported = _exported(cli, tmp_path, "party.jsonl")
    # the same name is taken: refused, with the way out named
    message = cli.error("import", exported, code=1)
    assert "already exists" in message and "--as-name" in message

    done = cli.json("import", exported, "--as-name", "写しの卓")
    assert done["campaign"] == "写しの卓" and done["chain_name"] == "テスト卓"
    assert done["entries"] == cli.json("-c", "テスト卓", "history", "verify")["entries"]
    assert {c["name"] for c in cli.json("list")} == {"テスト卓", "写しの卓"}
    assert cli.json("-c", "写しの卓", "history", "verify")["ok"] is True
    assert cli.json("-c", "テスト卓", "history", "verify")["ok"] is True

    # a new entry in the renamed campaign joins the same chain (under the chain's name)
    rolled = cli.json("-c", "写しの卓", "roll", "3D6<=12", "--char", "鈴音", "--dice", "6,6,6")
    report = cli.json("-c", "写しの卓", "history", "verify")
    assert report["ok"] is True and report["entries"] == rolled["seq"]
    shown = cli.json("-c", "写しの卓", "history", "show", str(rolled["seq"]))
    assert shown["total"] == 18
    # the original is untouched by what the copy did
    assert cli.json("-c", "テスト卓", "history", "verify")["entries"] == rolled["seq"] - 1


def test_renamed_campaign_exports_and_imports_again(cli, tmp_path):
    _party(cli)
    cli.json("import", _exported(cli, tmp_path, "party.jsonl"), "--as-name", "写しの卓")
    cli.run("-c", "写しの卓", "char", "damage", "鈴音", "HP", "3", "--reason", "爪")
    second = tmp_path / "copy.jsonl"
    cli.run("-c", "写しの卓", "export", str(second))
    header = json.loads(second.read_text(encoding="utf-8").splitlines()[0])
    assert header["campaign"]["name"] == "写しの卓"
    assert header["campaign"]["chain_name"] == "テスト卓"

    fresh = Cli(str(tmp_path / "fresh.db"))
    said = fresh.run("import", str(second)).stdout
    assert (
        said.strip() == f"imported 写しの卓: {header_entries(second)} ledger entries, chain verified "
        "(its entries keep the name テスト卓)"
    )
    assert fresh.json("-c", "写しの卓", "history", "verify")["ok"] is True
    again = fresh.json("import", str(second), "--as-name", "三つ目")
    assert again["campaign"] == "三つ目"
    assert fresh.json("-c", "三つ目", "history", "verify")["ok"] is True
    sheet = fresh.json("-c", "三つ目", "char", "show", "鈴音")
    assert sheet["pools"]["HP"]["current"] == 8
    # importing under the chain's own name again stores no separate chain name
    back = fresh.json("import", str(second), "--as-name", "テスト卓")
    assert back["campaign"] == "テスト卓"
    assert fresh.json("-c", "テスト卓", "history", "verify")["ok"] is True
    with sqlite3.connect(tmp_path / "fresh.db") as raw:
        names = dict(raw.execute("SELECT name, chain_name FROM campaigns"))
    assert names == {"写しの卓": "テスト卓", "三つ目": "テスト卓", "テスト卓": None}


def test_proof_and_secrets_of_a_renamed_campaign(cli, tmp_path):
    _party(cli)
    secret = cli.json("roll", "S3D6<=12", "--char", "鈴音", "--dice", "2,3,4")
    cli.run("history", "seal")
    exported = _exported(cli, tmp_path, "party.jsonl", "--secrets", str(tmp_path / "party.secrets.jsonl"))
    done = cli.json("import", exported, "--as-name", "写しの卓", "--secrets", str(tmp_path / "party.secrets.jsonl"))
    assert done["secrets"] == 1
    revealed = cli.json("-c", "写しの卓", "history", "reveal", str(secret["seq"]))
    assert revealed["total"] == 9
    bundle = tmp_path / "proof.json"
    cli.run("-c", "写しの卓", "history", "proof", "5", "-o", str(bundle))
    checked = cli.json("proof", "check", str(bundle))
    assert checked["ok"] is True


def test_a_record_claiming_another_campaign_is_still_refused(cli, tmp_path):
    _party(cli)
    exported = _exported(cli, tmp_path, "party.jsonl")
    lines = open(exported, encoding="utf-8").read().splitlines()
    header = json.loads(lines[0])
    header["campaign"]["chain_name"] = "別の卓"  # the records say テスト卓
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8")
    message = cli.error("import", str(forged), "--as-name", "写しの卓", code=1)
    assert "does not belong to campaign" in message
    assert [c["name"] for c in cli.json("list")] == ["テスト卓"]


def test_as_name_must_be_a_clean_name(cli, tmp_path):
    _party(cli)
    exported = _exported(cli, tmp_path, "party.jsonl")
    assert cli.error("import", exported, "--as-name", "  ", code=2)
    assert [c["name"] for c in cli.json("list")] == ["テスト卓"]
