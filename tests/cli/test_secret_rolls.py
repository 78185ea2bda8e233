"""Secret rolls with a commitment: nothing of the result shows before the reveal, the
reveal matches the commitment (verify checks it), and export/import carry the hidden
results only in their own file."""

from __future__ import annotations

import hashlib
import json

import pytest

from campaign.ledger import canonical_json
from tests.cli.conftest import Cli
from tests.integration.rawdb import drop_ledger_guards, execute, raw_connection, rehash_from


def _salt(cli: Cli, seq: int) -> str:
    with raw_connection(cli.db) as conn:
        return conn.execute(f"SELECT salt FROM secret_rolls WHERE seq = {seq}").fetchone()[0]


def _outputs(cli: Cli, seq: int, tmp_path) -> dict[str, str]:
    """Everything a player could read about the campaign, with its entry #seq."""
    outputs = {}
    for args in (
        ("history",),
        ("history", "--json"),
        ("history", "--csv"),
        ("history", "--all", "--json"),
        ("history", "show", str(seq)),
        ("history", "show", str(seq), "--json"),
        ("history", "verify", "--json"),
        ("char", "show", "鈴音", "--json"),
        ("char", "timeline", "鈴音", "--json"),
        ("history", "--char", "鈴音", "--csv"),
    ):
        result = cli.run(*args)
        outputs[" ".join(args)] = result.stdout + result.stderr
    export = tmp_path / f"export-{seq}.jsonl"
    result = cli.run("export", str(export))
    # The export reports its own path, whose tmp-dir numbering could hold any digits.
    outputs["export"] = export.read_text(encoding="utf-8") + result.stderr.replace(str(export), "EXPORT")
    return outputs


def test_a_secret_roll_shows_nothing_of_its_result_until_revealed(gurps, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    rolled = gurps.run("roll", "S3D6<=12", "聞き耳", "--char", "鈴音", "--dice", "6,5,4")
    seq = gurps.json("history", "--limit", "1")[0]["seq"]
    salt = _salt(gurps, seq)
    # The result: faces 6,5,4 (15), failure by 3, the comment, the expression, the salt.
    secrets = [
        salt,
        "聞き耳",
        "3D6",
        "6,5,4",
        "6, 5, 4",
        "6 5 4",
        "[6",
        "失敗",
        "failure",
        '"total": 15',
        "-3",
        "margin -3",
    ]
    outputs = _outputs(gurps, seq, tmp_path)
    outputs["roll"] = rolled.stdout + rolled.stderr
    json_roll = gurps.json("roll", "S3D6<=12", "聞き耳", "--char", "鈴音", "--dice", "6,5,4")
    outputs["roll --json"] = json.dumps(json_roll, ensure_ascii=False)
    for name, text in outputs.items():
        for secret in secrets:
            assert secret not in text, f"{secret!r} leaks in `{name}`"
    entry = gurps.json("history", "show", str(seq))
    assert (entry["expression"], entry["dice"], entry["total"], entry["outcome"], entry["reason"]) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert list(entry["detail"]) == ["secret"] and len(entry["detail"]["secret"]["commitment"]) == 64
    assert f"secret roll by GM (commitment {entry['detail']['secret']['commitment'][:8]}…)" in outputs["history"]
    # The GM can look without revealing; then the reveal shows it to everyone.
    peeked = gurps.json("history", "peek", str(seq))
    assert (peeked["dice"], peeked["total"], peeked["outcome"], peeked["reason"]) == (
        [6, 5, 4],
        15,
        "failure",
        "聞き耳",
    )
    assert gurps.json("history", "--limit", "1")[0]["seq"] == json_roll["seq"]  # peek wrote nothing
    revealed = gurps.json("history", "reveal", str(seq))
    assert (revealed["kind"], revealed["dice"], revealed["total"], revealed["outcome"]) == (
        "reveal",
        [6, 5, 4],
        15,
        "failure",
    )
    assert revealed["detail"]["salt"] == salt
    # The commitment is SHA-256 over salt + canonical result: anyone can recompute it.
    result = revealed["detail"]["result"]
    assert (
        hashlib.sha256((salt + canonical_json(result)).encode()).hexdigest() == entry["detail"]["secret"]["commitment"]
    )
    after = _outputs(gurps, seq, tmp_path)
    assert "6,5,4" in after["history --csv"].replace(" ", ",") or "6 5 4" in after["history --csv"]
    assert f"reveals #{seq}: 3D6<=12 [6,5,4]=15 failure" in after["history"]
    report = gurps.json("history", "verify")
    assert report["ok"] and report["secrets"]["revealed"] == 1 and report["secrets"]["hidden"] == 2


def test_reveal_rules(gurps):
    plain = gurps.json("roll", "2D6", "--dice", "1,2")
    secret = gurps.json("roll", "S2D6", "--dice", "3,4")
    assert "not a secret roll" in gurps.error("history", "reveal", str(plain["seq"]), code=1)
    assert "not a secret roll" in gurps.error("history", "peek", str(plain["seq"]), code=1)
    assert "no ledger entry" in gurps.error("history", "reveal", "999", code=1)
    assert "or the GM may peek at" in gurps.error("--as", "Aki", "history", "peek", str(secret["seq"]), code=1)
    assert "or the GM may reveal" in gurps.error("--as", "Aki", "history", "reveal", str(secret["seq"]), code=1)
    mine = gurps.json("--as", "Aki", "roll", "S2D6", "--dice", "1,1")  # a player's own secret roll
    assert gurps.json("--as", "Aki", "history", "peek", str(mine["seq"]))["total"] == 2
    revealed = gurps.json("history", "reveal", str(secret["seq"]))
    assert revealed["total"] == 7
    assert f"already revealed (entry #{revealed['seq']})" in gurps.error(
        "history", "reveal", str(secret["seq"]), code=1
    )
    assert "cannot be voided" in gurps.error("history", "void", str(revealed["seq"]), "--reason", "x", "--yes", code=1)
    assert gurps.json("history", "peek", str(secret["seq"]))["revealed_by"] == revealed["seq"]
    assert gurps.json("history", "verify")["ok"]


def test_a_secret_check(gurps):
    view = gurps.json("check", "ability", "鈴音", "IQ", "--target", "15", "--dice", "4,5", "--secret")
    assert set(view) == {"seq", "check", "character", "secret", "commitment", "actor", "scenario"}
    human = gurps.run("check", "danger", "鈴音", "--stat", "IQ", "--difficulty", "14", "--dice", "6,6", "--secret")
    assert "secret roll by GM for 鈴音" in human.stdout and "大成功" not in human.stdout + human.stderr
    peeked = gurps.json("history", "peek", str(view["seq"]))
    assert (peeked["dice"], peeked["total"], peeked["target"], peeked["outcome"]) == ([4, 5], 21, 15, "success")
    revealed = gurps.json("history", "reveal", str(view["seq"]))
    assert revealed["total"] == 21 and revealed["detail"]["result"]["detail"]["check"] == "ability"
    assert gurps.json("history", "verify")["ok"]


def _rehash_from(db: str, first: int, change) -> None:
    """Edit entry `first` and recompute every later hash, its outcome column with it."""
    drop_ledger_guards(db)
    rehash_from(db, first, change, columns=("outcome",))


def _forge_result(record):
    record["detail"]["result"]["total"] = 9
    record["detail"]["result"]["outcome"] = "success"
    record["total"], record["outcome"] = 9, "success"


def _forge_salt(record):
    record["detail"]["salt"] = "0" * 32


def _forge_shown_only(record):
    record["total"], record["outcome"] = 9, "success"


FORGERIES = {
    "a wrong result": (_forge_result, "does not match the commitment"),
    "a wrong salt": (_forge_salt, "does not match the commitment"),
    "a shown result other than the committed one": (_forge_shown_only, "other than the one committed"),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forged_reveal_fails_verify(gurps, forgery):
    secret = gurps.json("roll", "S3D6<=12", "--dice", "6,5,4")
    revealed = gurps.json("history", "reveal", str(secret["seq"]))
    gurps.json("roll", "2D6", "--dice", "1,1")  # a later entry: the forger rehashes it too
    change, words = FORGERIES[forgery]
    _rehash_from(gurps.db, revealed["seq"], change)
    report = gurps.json("history", "verify", expect=1)
    assert report["secrets"] is not None, "the rehashed chain itself must be intact"
    assert not report["ok"] and report["bad_seq"] == revealed["seq"] and words in report["reason"], report
    message = gurps.error("history", "verify", code=1)
    assert f"reveal #{revealed['seq']}" in message


def test_an_edited_hidden_result_fails_verify(gurps):
    secret = gurps.json("roll", "S3D6<=12", "--dice", "6,5,4")
    execute(gurps.db, "UPDATE secret_rolls SET result = replace(result, '\"total\":15', '\"total\":9')")
    report = gurps.json("history", "verify", expect=1)
    assert report["bad_seq"] == secret["seq"] and "does not match its commitment" in report["reason"]


def test_export_and_import_carry_hidden_results_in_their_own_file(gurps, tmp_path):
    secret = gurps.json("roll", "S3D6<=12", "聞き耳", "--dice", "6,5,4")
    salt = _salt(gurps, secret["seq"])
    plain_file, secrets_file = tmp_path / "c.jsonl", tmp_path / "c.secrets.jsonl"
    note = gurps.run("export", str(plain_file)).stderr
    assert "1 secret roll's hidden result is not in the export" in note
    gurps.run("export", str(plain_file), "--secrets", str(secrets_file))
    assert salt not in plain_file.read_text(encoding="utf-8") and "聞き耳" not in plain_file.read_text(encoding="utf-8")
    assert salt in secrets_file.read_text(encoding="utf-8")
    # Imported with its secrets, the campaign can still reveal.
    other = Cli(str(tmp_path / "other.db"))
    assert other.json("import", str(plain_file), "--secrets", str(secrets_file))["secrets"] == 1
    assert other.json("history", "reveal", str(secret["seq"]))["total"] == 15
    assert other.json("history", "verify")["ok"]
    # Without them it cannot, and says why.
    bare = Cli(str(tmp_path / "bare.db"))
    bare.run("import", str(plain_file))
    assert "not in this database" in bare.error("history", "reveal", str(secret["seq"]), code=1)
    # A secrets file that does not match the commitments is refused, and nothing is imported.
    forged = tmp_path / "forged.jsonl"
    forged.write_text(secrets_file.read_text(encoding="utf-8").replace(salt, "0" * 32), encoding="utf-8")
    third = Cli(str(tmp_path / "third.db"))
    assert "does not match the commitment" in third.error("import", str(plain_file), "--secrets", str(forged), code=1)
    assert "no campaign" in third.error("history", code=1)


@pytest.mark.parametrize(
    "rolled, line, words",
    [
        (
            ("roll", "S3D6<=12", "聞き耳", "--char", "鈴音", "--dice", "6,5,4"),
            "#{seq} 鈴音: 3D6<=12 → [6,5,4] = 15 → failure (margin -3)  « 聞き耳 »",
            None,
        ),
        (("roll", "S2D6", "--dice", "3,4"), "#{seq} 2D6 → [3,4] = 7", None),
        (
            ("check", "ability", "鈴音", "IQ", "--target", "15", "--dice", "4,5", "--secret"),
            "#{seq} 鈴音: 2D6+12>=15 → [4,5] = 21 → success (margin +6)",
            None,
        ),
        (
            ("check", "danger", "鈴音", "--stat", "IQ", "--difficulty", "14", "--dice", "6,6", "--secret"),
            "#{seq} 鈴音: 2D6+12>14 → [6,6] = 24 → critical success (margin +10)",
            "margin +10 → band >=7: ",
        ),
    ],
    ids=["roll-with-target", "roll-without-target", "check-ability", "check-danger"],
)
def test_peek_shows_every_kind_of_secret_roll_to_the_gm(gurps, rolled, line, words):
    """The human rendering needs the entry's kind and who rolled, which the hidden
    result alone does not hold (it ended in KeyError: 'kind')."""
    seq = gurps.json(*rolled)["seq"]
    human = gurps.run("history", "peek", str(seq))
    assert "Traceback" not in human.output
    header, *printed = human.stdout.splitlines()
    assert header == f"hidden result of secret roll #{seq} (GM only)"
    assert printed[0] == line.format(seq=seq)
    assert (words is None and len(printed) == 1) or printed[1].strip().startswith(words)
    peeked = gurps.json("history", "peek", str(seq))
    public = gurps.json("history", "show", str(seq))
    assert {key: peeked[key] for key in ("seq", "kind", "actor", "character", "at", "source")} == {
        key: public[key] for key in ("seq", "kind", "actor", "character", "at", "source")
    }
    assert peeked["commitment"] == public["detail"]["secret"]["commitment"] and peeked["revealed_by"] is None
    revealed = gurps.json("history", "reveal", str(seq))
    for key in ("expression", "dice", "total", "target", "outcome", "margin", "reason"):
        assert peeked[key] == revealed[key], key
    # Once revealed, the GM's peek says where, and still renders.
    after = gurps.run("history", "peek", str(seq))
    assert after.stdout.splitlines()[0].endswith(f"; revealed in #{revealed['seq']}")
    assert after.stdout.splitlines()[1] == line.format(seq=seq)
