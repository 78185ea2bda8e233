"""Check a player's receipts file against a ledger: one file, standard library only.

The table page keeps a receipt of every roll it sent with a share (static/receipts.js)
and lets the player download them as one JSON file (docs/fair-dice.md, "The receipts
file"). A chain re-hashed end to end, or a server that swapped the player's share for
one it ground, is consistent in itself; it cannot hold the shares the player's device
sent. So this checks each receipt against the entries of a ledger (a proof bundle, an
export, or the campaign's ledger through `campaign fair check-receipts`):

- the entries that answered it exist and carry exactly the share the device sent, and
  hold the dice the server showed;
- their dice are the faces the committed seed and the share derive, one for one, count
  included, their index run starting at 0 and continuing across the request's entries
  (v2: HMAC-SHA-256(seed, "campaign-fair-v2:share:index:counter"); entries without
  "v" are v1, "seq:share:index:counter", and their seq must be the request's own);
- their totals, outcomes, margins and table rows follow from the dice, by fair_check.py's
  rules (every checker's: tests/unit/test_fair_rules_agree.py holds them to the engine);
- and it lists the entries in the player's name that no receipt covers.

Standard library only, as fair_check.py is, and it reads the dice rules from fair_check.py
(its derivation and judgement) rather than keep a third copy: a player copies the two
files next to their receipts.

    python receipts_check.py receipts-Aki.json proof.json         (a bundle or an export)
    python receipts_check.py --lang ja receipts-Aki.json night.jsonl

Exit status: 0 every receipt holds, 1 a receipt does not hold (or the file is another
campaign's), 2 bad usage or a file that is not a receipts file, bundle or export.
In Japanese or English, chosen as fair_check.py chooses (--lang, else CAMPAIGN_LANG,
else the locale).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping
from types import ModuleType
from typing import Any, TypeGuard


def _beside(name: str) -> ModuleType:
    """The module `name`.py from this file's own folder: run as a copied script, the
    fair_check.py the player put next to it (never one found elsewhere on the path)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None or not os.path.isfile(path):
        print(f"receipts_check.py needs {name}.py beside it: {path} is missing", file=sys.stderr)
        sys.exit(2)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


if __package__:  # campaign.receipts_check
    from campaign import fair_check
else:  # python receipts_check.py ...
    fair_check = _beside("fair_check")

FORMAT, VERSION = "campaign-receipts", 1

USAGE = "usage: python receipts_check.py [--lang ja|en] RECEIPTS.json LEDGER.json|.jsonl"
HOLD = (
    "your receipts hold: {receipts} rolls, {derived} entries recomputed from their seed, "
    "{pending} wait for the reveal, {abandoned} unprovable (seed abandoned)"
)
FAIL = "your receipts do not hold: {count} problems"
UNCOVERED = "entries in {player}'s name that no receipt covers (rolled elsewhere, or not by them): {seqs}"
V1 = "{count} entries use the v1 derivation, whose seq the server chose"
UNREADABLE = "error: cannot read {file}: {problem}"
NOT_RECEIPTS = "{file} is not a receipts file (campaign-receipts, version 1)"
NOT_LEDGER = "{file} is not a proof bundle or an export"
OTHER_CAMPAIGN = "the receipts are campaign {theirs}'s, not {ours}'s"
NO_ECHO = "receipt {key}: the server's answer did not echo the share the device sent"
OTHER_ECHO = "receipt {key}: the server answered with share {theirs}, not the device's ({mine})"
MISSING = "entry #{seq}, which answered receipt {key}, is not in the ledger"
REPLACED = "entry #{seq} carries share {theirs}, not the one the device sent ({mine}): the server replaced the share"
SHOWN = "entry #{seq} holds dice {dice}, but the server showed {shown}"
NOTHING = "receipt {key}: no entry carries its share"
INDEX = "entry #{seq}: its dice start at index {start}, expected {expected}"
BASE = "entry #{seq} derives its dice from seq {base}, not from its request's #{first}: the server chose the input"
DRAWS = "entry #{seq}: its dice {dice} are not the derived draws {faces}"
CHANGED = "entry #{seq}: die {number} (d{sides}) shows {shown}, the seed gives {should}: the die was changed"

LANGUAGES = ("ja", "en")
JA = {
    USAGE: "使い方: python receipts_check.py [--lang ja|en] 控え.json 台帳.json|.jsonl",
    HOLD: "控えは成り立ちます: ロール {receipts} 回、シードから再計算した記録 {derived} 件、公開待ち {pending} 件、"
    "証明不能 (シード放棄) {abandoned} 件",
    FAIL: "控えの検算に失敗しました: 問題 {count} 件",
    UNCOVERED: "{player} の名前の記録のうち、控えにないもの (別の端末から、または本人以外が振ったもの): {seqs}",
    V1: "{count} 件は v1 の導出です (seq はサーバーが選んだもの)",
    UNREADABLE: "エラー: {file} を読めません: {problem}",
    NOT_RECEIPTS: "{file} は控えのファイル (campaign-receipts, version 1) ではありません",
    NOT_LEDGER: "{file} は証明の束でもエクスポートでもありません",
    OTHER_CAMPAIGN: "この控えはキャンペーン {theirs} のもので、{ours} のものではありません",
    NO_ECHO: "控え {key}: サーバーの応答に、端末が送ったシェアが返されていません",
    OTHER_ECHO: "控え {key}: サーバーはシェア {theirs} で応答しました。端末のシェア ({mine}) ではありません",
    MISSING: "控え {key} に応答した記録 #{seq} が台帳にありません",
    REPLACED: "記録 #{seq} のシェアは {theirs} で、端末が送ったもの ({mine}) ではありません: "
    "サーバーがシェアをすり替えています",
    SHOWN: "記録 #{seq} の出目は {dice} ですが、サーバーが見せたのは {shown} です",
    NOTHING: "控え {key}: そのシェアを持つ記録がありません",
    INDEX: "記録 #{seq}: ダイスの番号が {start} から始まっています ({expected} のはず)",
    BASE: "記録 #{seq} のダイスは、要求の最初の記録 #{first} ではなく seq {base} から導かれています: "
    "サーバーが入力を選んでいます",
    DRAWS: "記録 #{seq}: 出目 {dice} がシードから導いた値 {faces} と違います",
    CHANGED: "記録 #{seq}: {number} 個目のダイス (d{sides}) の出目は {shown} ですが、シードから導くと {should} です。"
    "ダイスが書き換えられています",
}


language = fair_check.language  # --lang, else CAMPAIGN_LANG, else the locale


def message(template: str, lang: str = "en", **fields: object) -> str:
    """One of the English templates above, or of fair_check.py's, in `lang`, filled with `fields`."""
    words = (JA.get(template) or fair_check.JA.get(template, template)) if lang == "ja" else template
    return words.format(**fields)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


class Unreadable(ValueError):
    """A file that is not what it should be: `template` filled with `fields`."""

    def __init__(self, template: str, /, **fields: object) -> None:
        self.template, self.fields = template, fields
        super().__init__(template.format(**fields))


class OtherCampaign(Unreadable):
    """The receipts are another campaign's."""


# --- what the dice make: fair_check.py's rules


def follows(record: dict[str, Any], others: Mapping[int, dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """(template, fields) of the first thing the entry's dice do not make (its count,
    total, target, outcome, margin, table row, or what it must agree with among `others`,
    the ledger by seq); None when all follow, or the entry is not one a checker recomputes."""
    try:
        fair_check.judge_entry(record, others)
    except fair_check.Unfair as wrong:
        return wrong.template, wrong.fields
    return None


# --- reading the files


def _json_file(path: str, template: str) -> Any:
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        lines = data.decode("utf-8", "replace").splitlines()
        try:  # an export: JSON Lines
            return [json.loads(line) for line in lines if line.strip()]
        except (ValueError, RecursionError):
            raise Unreadable(template, file=path) from None


def load_receipts(path: str) -> dict[str, Any]:
    """The receipts file at `path`; Unreadable when it is none (docs/fair-dice.md)."""
    document = _json_file(path, NOT_RECEIPTS)
    if (
        not isinstance(document, dict)
        or document.get("format") != FORMAT
        or document.get("version") != VERSION
        or not isinstance(document.get("receipts"), list)
        or not all(isinstance(r, dict) and isinstance(r.get("share"), str) for r in document["receipts"])
        or not isinstance(document.get("player"), str)
    ):
        raise Unreadable(NOT_RECEIPTS, file=path)
    return document


def load_ledger(path: str) -> tuple[str | None, list[dict[str, Any]]]:
    """(the ledger's campaign, its parsed records) from a proof bundle or an export."""
    document = _json_file(path, NOT_LEDGER)
    if isinstance(document, dict) and isinstance(document.get("entries"), list):
        texts = [entry.get("record") if isinstance(entry, dict) else None for entry in document["entries"]]
    elif (
        isinstance(document, list)
        and document
        and isinstance(document[0], dict)
        and document[0].get("type") == "header"
    ):
        texts = [item.get("record") for item in document if isinstance(item, dict) and item.get("type") == "entry"]
    else:
        raise Unreadable(NOT_LEDGER, file=path)
    strings = [text for text in texts if isinstance(text, str)]
    if len(strings) != len(texts):
        raise Unreadable(NOT_LEDGER, file=path)
    try:
        records = [json.loads(text) for text in strings]
    except (ValueError, RecursionError):
        raise Unreadable(NOT_LEDGER, file=path) from None
    if not all(isinstance(r, dict) and _is_int(r.get("seq")) for r in records):
        raise Unreadable(NOT_LEDGER, file=path)
    return (records[0].get("campaign") if records else None), records


# --- the check


def _share_of(record: Mapping[str, Any]) -> str | None:
    fair = (record.get("detail") or {}).get("fair")
    return fair.get("share") if isinstance(fair, dict) and isinstance(fair.get("share"), str) else None


def _seeds(records: list[dict[str, Any]]) -> tuple[dict[int, str], set[int]]:
    """({commit: seed} revealed and matching their commitment, {commit} abandoned)."""
    commits, seeds, abandoned = {}, {}, set()
    for record in records:
        detail, kind = record.get("detail") or {}, str(record.get("kind") or "")
        if kind == "seed_commit":
            commits[record["seq"]] = detail.get("commitment")
        elif kind == "seed_reveal" and isinstance(detail.get("seed"), str):
            try:
                digest = hashlib.sha256(bytes.fromhex(detail["seed"])).hexdigest()
            except ValueError:
                continue
            # a bundle may start after the commitment: the reveal repeats it (proofcheck.py checks the chain)
            if digest == commits.get(detail.get("reveals"), detail.get("commitment")):
                seeds[detail["reveals"]] = detail["seed"]
        elif kind.startswith("seed_abandon"):
            target = next((detail[k] for k in ("abandons", "commit", "seed_commit") if _is_int(detail.get(k))), None)
            if target is not None:
                abandoned.add(target)
    return seeds, abandoned


def _short(share: object) -> str:
    return f"{str(share)[:12]}…"


class _Check:
    """One pass over the receipts: problems as (seq, template, fields), counts, coverage."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.by_seq = {r["seq"]: r for r in records}
        self.by_share: dict[str, list[dict[str, Any]]] = {}
        for record in records:
            if (share := _share_of(record)) is not None:
                self.by_share.setdefault(share, []).append(record)
        self.seeds, self.abandoned = _seeds(records)
        self.problems: list[tuple[int | None, str, dict[str, Any]]] = []
        self.counts = {"derived": 0, "pending": 0, "abandoned": 0, "v1": 0}
        self.covered: set[int] = set()

    def receipt(self, receipt: Mapping[str, Any]) -> None:
        if receipt.get("refused"):
            return  # refused by the server: nothing was written
        key, mine = receipt.get("key"), receipt["share"]
        answer = receipt.get("answer") if isinstance(receipt.get("answer"), dict) else None
        entries = list(self.by_share.get(mine, []))
        before = len(self.problems)
        if answer is not None and answer.get("share") is None:
            self.problems.append((None, NO_ECHO, {"key": key}))
        elif answer is not None and answer.get("share") != mine:
            self.problems.append(
                (None, OTHER_ECHO, {"key": key, "theirs": _short(answer["share"]), "mine": _short(mine)})
            )
        for shown in (answer or {}).get("entries") or []:
            self._answered(key, mine, shown, entries)
        if not entries and answer is not None and len(self.problems) == before:
            self.problems.append((None, NOTHING, {"key": key}))
        entries.sort(key=lambda r: r["seq"])
        self.covered.update(r["seq"] for r in entries)
        self._request(mine, entries)

    def _answered(self, key: object, mine: str, shown: Mapping[str, Any], entries: list[dict[str, Any]]) -> None:
        seq = shown.get("seq")
        record = self.by_seq.get(seq) if _is_int(seq) else None
        if record is None:
            self.problems.append((seq, MISSING, {"seq": seq, "key": key}))
        elif _share_of(record) != mine:
            fields = {"seq": seq, "theirs": _short(_share_of(record)), "mine": _short(mine)}
            self.problems.append((seq, REPLACED, fields))
            if record not in entries:
                entries.append(record)
        elif shown.get("dice") != record.get("dice"):
            self.problems.append((seq, SHOWN, {"seq": seq, "dice": record.get("dice"), "shown": shown.get("dice")}))

    def _request(self, mine: str, entries: list[dict[str, Any]]) -> None:
        following, first = 0, entries[0]["seq"] if entries else None
        for record in entries:
            fair, seq = record["detail"]["fair"], record["seq"]
            draws = fair.get("draws") if isinstance(fair.get("draws"), list) else []
            start = fair.get("from") if _is_int(fair.get("from")) else following
            if fair.get("from") != following:
                self.problems.append((seq, INDEX, {"seq": seq, "start": fair.get("from"), "expected": following}))
            following = start + len(draws)
            if fair.get("v") != 2:
                self.counts["v1"] += 1
                if fair.get("seq") != first:
                    self.problems.append((seq, BASE, {"seq": seq, "base": fair.get("seq"), "first": first}))
            faces = [draw[1] for draw in draws]
            if record.get("dice") != faces:
                shown = ",".join(map(str, record.get("dice") or []))
                self.problems.append((seq, DRAWS, {"seq": seq, "dice": shown, "faces": ",".join(map(str, faces))}))
            if (wrong := follows(record, self.by_seq)) is not None:
                self.problems.append((seq, *wrong))
            self._derive(record, fair, mine, start, draws)

    def _derive(
        self, record: Mapping[str, Any], fair: Mapping[str, Any], mine: str, start: int, draws: list[Any]
    ) -> None:
        commit = fair.get("commit")
        seed = self.seeds.get(commit) if _is_int(commit) else None
        if seed is None:
            self.counts["abandoned" if commit in self.abandoned else "pending"] += 1
            return
        self.counts["derived"] += 1
        for number, (sides, shown) in enumerate(draws, start=1):
            base = None if fair.get("v") == 2 else fair.get("seq")  # v1's message starts with a seq
            should = fair_check.derive(seed, base, mine, start + number - 1, sides)
            if should != shown:
                fields = {"seq": record["seq"], "number": number, "sides": sides, "shown": shown, "should": should}
                self.problems.append((record["seq"], CHANGED, fields))


def check(document: Mapping[str, Any], records: list[dict[str, Any]], ledger: str | None) -> dict[str, Any]:
    """Every receipt of `document` against the ledger's `records` (its campaign `ledger`):
    {"ok", "player", "receipts", "derived", "pending", "abandoned", "v1", "problems":
    [{"seq", "problem", "template", "fields"}], "uncovered": [seq]}. OtherCampaign when the
    receipts name another campaign than the ledger's."""
    theirs = document.get("ledger") or document.get("campaign")
    if ledger is not None and theirs != ledger:
        raise OtherCampaign(OTHER_CAMPAIGN, theirs=theirs, ours=ledger)
    run = _Check(records)
    for receipt in document["receipts"]:
        run.receipt(receipt)
    player = document["player"]
    uncovered = [
        r["seq"]
        for r in records
        if r.get("actor") == player and isinstance(r.get("dice"), list) and r["seq"] not in run.covered
    ]
    problems = [
        {"seq": seq, "problem": template.format(**fields), "template": template, "fields": fields}
        for seq, template, fields in sorted(run.problems, key=lambda p: p[0] or 0)
    ]
    return {
        "ok": not problems,
        "player": player,
        "receipts": len(document["receipts"]),
        **run.counts,
        "problems": problems,
        "uncovered": uncovered,
    }


def lines(result: Mapping[str, Any], lang: str) -> list[str]:
    """The verdict in `lang`: the summary, one line per problem, the uncovered entries."""
    out = [message(HOLD, lang, **result) if result["ok"] else message(FAIL, lang, count=len(result["problems"]))]
    for problem in result["problems"]:
        out.append("  " + message(problem["template"], lang, **problem["fields"]))
    if result["uncovered"]:
        seqs = " ".join(f"#{seq}" for seq in result["uncovered"])
        out.append(message(UNCOVERED, lang, player=result["player"], seqs=seqs))
    if result["v1"]:
        out.append(message(V1, lang, count=result["v1"]))
    return out


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    option = None
    if args[:1] == ["--lang"] and len(args) > 1:
        option, args = args[1], args[2:]
    lang = language(option)
    if len(args) != 2 or any(a.startswith("-") for a in args) or option not in (None, *LANGUAGES):
        print(message(USAGE, lang), file=sys.stderr)
        return 2
    try:
        document = load_receipts(args[0])
        ledger, records = load_ledger(args[1])
        result = check(document, records, ledger)
    except OtherCampaign as exc:
        print(message(exc.template, lang, **exc.fields), file=sys.stderr)
        return 1
    except Unreadable as exc:
        print(message(exc.template, lang, **exc.fields), file=sys.stderr)
        return 2
    except OSError as exc:
        print(message(UNREADABLE, lang, file=exc.filename, problem=exc.strerror), file=sys.stderr)
        return 2
    for line in lines(result, lang):
        print(line)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
