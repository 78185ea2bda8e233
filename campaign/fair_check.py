"""Recompute provably fair dice from ledger records: one file, standard library only.

`history verify`, `proof check` and the standalone proofcheck.py hand this module the
records they already trust as a chain (in seq order); it checks what the chain alone
cannot: that every die of an entry marked fair is the one its committed seed, the
request's seq, the player's share and the die's index give (docs/fair-dice.md), and
that every revealed seed is the one its commitment promised. A chain re-hashed after a
die was changed is consistent as a chain and still fails here.

Self-contained on purpose (its own few lines of derivation, no import from the rest of
`campaign`): a player can copy it next to proofcheck.py and read all of it. The tests
check it against campaign.core.fair_dice and the vectors of the docs.

    python proofcheck.py proof.json --head 3f1c...   (the chain: run it first)
    python fair_check.py proof.json                  (the fair dice in the bundle)
    python fair_check.py --lang ja proof.json        (in Japanese)

Exit status: 0 every die recomputes (or none can yet), 1 a die or seed is wrong, 2 bad usage.

In Japanese or English, chosen as proofcheck.py chooses (--lang, else CAMPAIGN_LANG, else
the locale): every line it prints comes from JA below, English templates with named
placeholders and their Japanese. A problem reads as proofcheck.py's table words it (the
tests hold the lines both tables have to the same Japanese); `check_records` keeps the
English line, which proofcheck.py and `campaign proof check` translate themselves.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard

COMMIT, REVEAL, ABANDON = "seed_commit", "seed_reveal", "seed_abandon"
JUDGED_KINDS = ("roll", "fright", "table")  # whose results judge() recomputes from their dice

USAGE = "usage: python fair_check.py [--lang ja|en] PROOF.json"
HOLD = "fair dice hold: {checked} entries recomputed from {revealed} revealed seeds ({pending} wait for their seed)"
REJECTED = "fair dice rejected: {problem}"
UNLINKED = "{unlinked} fright rolls recorded before they named their effect: totals recomputed, not compared with it"
UNREADABLE = "error: cannot read {file}: {problem}"
NO_ENTRIES = "not a proof bundle (no entries)"
NOT_A_RECORD = "entry {number} of the bundle is not a ledger record"
TOO_DEEP = "the bundle is nested too deeply to read"
NOT_UTF8 = "the bundle is not UTF-8 text (byte {start})"
NOT_JSON = "the bundle is not valid JSON ({exc})"
WHERE = "{problem}: line {line} column {column} (char {char})"

# --- Language: one table of pairs, an English template and its Japanese indented under it
# (a line ending in a backslash goes on below). The lines proofcheck.py's table has too
# (every problem, the file's faults) are its Japanese word for word (a test).
LANGUAGES = ("ja", "en")
_PAIRS = """\
usage: python fair_check.py [--lang ja|en] PROOF.json
    使い方: python fair_check.py [--lang ja|en] PROOF.json
fair dice hold: {checked} entries recomputed from {revealed} revealed seeds ({pending} wait for their seed)
    公正なダイスは成り立ちます: 公開されたシード {revealed} 個から記録 {checked} 件を再計算しました \
(シードの公開待ち {pending} 件)
fair dice rejected: {problem}
    公正なダイスは成り立ちません: {problem}
{unlinked} fright rolls recorded before they named their effect: totals recomputed, not compared with it
    効果との対応を記録する前の恐怖判定の追加ロール {unlinked} 件: 合計は再計算済み、効果とは照合していません
error: cannot read {file}: {problem}
    エラー: {file} を読めません: {problem}
No such file or directory
    ファイルがありません
Permission denied
    読む権限がありません
Is a directory
    ディレクトリです
not a proof bundle (no entries)
    証明の束ではありません (entries がありません)
entry {number} of the bundle is not a ledger record
    証明の束の {number} 件目が台帳の記録ではありません
the bundle is nested too deeply to read
    証明の束の入れ子が深すぎて読めません
the bundle is not UTF-8 text (byte {start})
    証明の束が UTF-8 のテキストではありません ({start} バイト目)
the bundle is not valid JSON ({exc})
    証明の束が正しい JSON ではありません ({exc})
{problem}: line {line} column {column} (char {char})
    {line} 行 {column} 列目、位置 {char}: {problem}
Expecting value
    値がありません
Extra data
    値のあとに余計なデータがあります
Expecting ',' delimiter
    区切りの ',' がありません
Expecting ':' delimiter
    区切りの ':' がありません
Expecting property name enclosed in double quotes
    二重引用符で囲んだキーがありません
Unterminated string starting at
    閉じていない文字列があります
Invalid control character at
    文字列の中に制御文字があります
Invalid \\escape
    不正なエスケープ (\\) があります
Invalid \\uXXXX escape
    不正な \\uXXXX エスケープがあります
seed commitment #{seq} holds no SHA-256 hex digest
    シードの公約 #{seq} に SHA-256 の16進ダイジェストがありません
seed reveal #{seq} names #{target}, which is no earlier seed commitment
    シードの公開 #{seq} が指す #{target} は、それより前のシードの公約ではありません
seed commitment #{target} is revealed twice (#{first}, #{seq})
    シードの公約 #{target} が2回公開されています (#{first}、#{seq})
seed reveal #{seq} does not match commitment #{target}: the seed was swapped
    シードの公開 #{seq} が公約 #{target} と一致しません: シードがすり替えられています
entry #{seq} derives its dice from #{commit}, which is no earlier seed commitment
    記録 #{seq} のダイスの元 #{commit} は、それより前のシードの公約ではありません
entry #{seq}: its fair-dice inputs are malformed
    記録 #{seq}: 公正なダイスの入力が不正です
entry #{seq} derives its dice from seed #{commit}, revealed before it (#{revealed}): anyone could foresee them
    記録 #{seq} のダイスは、その前 (#{revealed}) に公開されたシード #{commit} から導かれています: \
誰でも出目を予見できました
entry #{seq}: its dice start at index {first}, expected {expected} (a die was drawn and dropped)
    記録 #{seq}: ダイスの番号が {first} から始まっています ({expected} のはず。引いたダイスが捨てられています)
entry #{seq}: die {number} is malformed
    記録 #{seq}: {number} 個目のダイスが不正です
entry #{seq}: its dice {dice} are not the derived draws {faces}
    記録 #{seq}: 出目 {dice} がシードから導いた値 {faces} と違います
entry #{seq}: die {number} (d{sides}) shows {face}, the seed gives {should}: the die was changed
    記録 #{seq}: {number} 個目のダイス (d{sides}) の出目は {face} ですが、シードから導くと {should} です。\
ダイスが書き換えられています
seed commitment #{target} is ended twice (#{first}, #{seq})
    シードの公約 #{target} が2回終えられています (#{first}、#{seq})
entry #{seq} derives its dice from seed #{commit}, abandoned before it (#{abandoned})
    記録 #{seq} のダイスは、その前 (#{abandoned}) に放棄されたシード #{commit} から導かれています
entry #{seq}: share already used under seed #{commit}: its dice repeat an earlier request's
    記録 #{seq}: シード #{commit} のもとで使用済みのシェアです: 以前の要求と同じ出目になります
entry #{seq}: {expression} rolls {count} d{sides}, its dice are {dice}
    記録 #{seq}: {expression} は d{sides} を {count} 個振りますが、出目は {dice} です
entry #{seq}: its {name} is {value}, its dice {dice} give {should}
    記録 #{seq}: {name} が {value} ですが、出目 {dice} からは {should} になります
entry #{seq}: the table {table} has no row {row}
    記録 #{seq}: 表 {table} に行 {row} はありません
"""
_LINES = _PAIRS.splitlines()
JA = {english: japanese.strip() for english, japanese in zip(_LINES[0::2], _LINES[1::2])}


def language(option: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """'ja' or 'en' as proofcheck.py decides: `option` (--lang), else CAMPAIGN_LANG, else
    the first locale variable set; else English."""
    environ = os.environ if environ is None else environ
    locale = next((environ[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if environ.get(name, "").strip()), "")
    for value in (option, environ.get("CAMPAIGN_LANG"), locale):
        code = (value or "").strip().lower().split(".")[0].replace("-", "_").split("_")[0]
        if code in LANGUAGES:
            return code
    return "en"


def message(template: str, lang: str = "en", **fields: object) -> str:
    """One of JA's English templates, in `lang`, filled with `fields`."""
    return (JA.get(template, template) if lang == "ja" else template).format(**fields)


def derive(seed: str, seq: int | None, share: str, index: int, sides: int) -> int:
    """HMAC-SHA-256(seed bytes, message), first n bytes, rejection sampling. The message is
    version 2's "campaign-fair-v2:share:index:counter" when `seq` is None, else version 1's
    "seq:share:index:counter"."""
    key = bytes.fromhex(seed)
    width = max(1, ((sides - 1).bit_length() + 7) // 8)
    span = 256**width
    limit = span - span % sides
    for counter in range(1000):
        text = f"campaign-fair-v2:{share}:{index}:{counter}" if seq is None else f"{seq}:{share}:{index}:{counter}"
        digest = hmac.new(key, text.encode("ascii"), hashlib.sha256).digest()
        value = int.from_bytes(digest[:width], "big")
        if value < limit:
            return value % sides + 1
    raise ArithmeticError("no face after 1000 tries")


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _hex(value: object, length: int | None = None) -> TypeGuard[str]:
    return (
        isinstance(value, str)
        and (length is None or len(value) == length)
        and all(c in "0123456789abcdef" for c in value)
    )


class Unfair(Exception):
    """The first wrong entry: `problem` is the English line, `template` of JA filled with `fields`."""

    def __init__(self, seq: int, template: str, /, **fields: object) -> None:
        self.seq, self.template, self.fields = seq, template, fields
        self.problem = template.format(**fields)
        super().__init__(self.problem)


class Unreadable(ValueError):
    """The file is no proof bundle: `template` of JA filled with `fields` (its English is str())."""

    def __init__(self, template: str, /, **fields: object) -> None:
        self.template, self.fields = template, fields
        super().__init__(template.format(**fields))


def check_records(records: Iterable[dict[str, Any]], partial: bool = False) -> dict[str, Any]:
    """{"ok", "seq", "problem", "revealed", "checked", "pending", "abandoned", "judged", "unlinked"}:
    the first entry whose fair dice, seed reveal or judged result is wrong, or counts of
    what was recomputed (`checked` dice entries whose seed is revealed, `pending` those
    whose seed is still secret, `abandoned` those under an abandoned commitment, `judged`
    entries whose total and outcome were recomputed from their dice, `unlinked` rolls a
    fright row asked for, recorded before they named the effect they sized: their totals
    are recomputed, not compared with the effect).

    `partial`: the records are a stretch of the chain (a proof bundle), so a commitment
    may lie before it; a reveal is then checked against the commitment it repeats."""
    try:
        return {"ok": True, "seq": None, "problem": None, **_check(records, partial)}
    except Unfair as bad:
        zero = dict.fromkeys(("revealed", "checked", "pending", "abandoned", "judged", "unlinked"), 0)
        return {"ok": False, "seq": bad.seq, "problem": bad.problem, **zero}


class _Seeds:
    """What the seed entries read so far say: commitments, revealed seeds, abandoned ones."""

    def __init__(self, partial: bool) -> None:
        self.partial = partial
        self.commits: dict[int, str] = {}
        self.seeds: dict[int, tuple[str, int]] = {}  # commit seq -> (seed, reveal seq)
        self.abandoned: dict[int, int] = {}  # commit seq -> abandon seq
        self.v2: set[int] = set()  # commitments made for version 2: no version-1 entry under them

    def read(self, seq: int, kind: object, detail: dict[str, Any]) -> None:
        if kind == COMMIT:
            if not _hex(detail.get("commitment"), 64):
                raise Unfair(seq, "seed commitment #{seq} holds no SHA-256 hex digest", seq=seq)
            self.commits[seq] = detail["commitment"]
            if detail.get("scheme") == "hmac-sha256-v2":
                self.v2.add(seq)
        elif kind == REVEAL:
            self._reveal(seq, detail)
        elif kind == ABANDON:
            target = self._repeated(seq, detail.get("abandons"), detail)
            if target in self.seeds or target in self.abandoned:
                first = self.seeds[target][1] if target in self.seeds else self.abandoned[target]
                twice = "seed commitment #{target} is ended twice (#{first}, #{seq})"
                raise Unfair(seq, twice, target=target, first=first, seq=seq)
            self.abandoned[target] = seq

    def _repeated(self, seq: int, target: object, detail: dict[str, Any]) -> int:
        """The commitment an entry ends (reveals or abandons); before a bundle, taken as
        the entry repeats it."""
        if (
            self.partial
            and _is_int(target)
            and target < seq
            and target not in self.commits
            and _hex(detail.get("commitment"), 64)
        ):
            self.commits[target] = detail["commitment"]
        if not _is_int(target) or target not in self.commits:
            no_commit = "seed reveal #{seq} names #{target}, which is no earlier seed commitment"
            raise Unfair(seq, no_commit, seq=seq, target=target)
        return target

    def _reveal(self, seq: int, detail: dict[str, Any]) -> None:
        target, seed = detail.get("reveals"), detail.get("seed")
        target = self._repeated(seq, target, detail)
        if target in self.seeds or target in self.abandoned:
            first = self.seeds[target][1] if target in self.seeds else self.abandoned[target]
            twice = "seed commitment #{target} is revealed twice (#{first}, #{seq})"
            raise Unfair(seq, twice, target=target, first=first, seq=seq)
        if (
            not _hex(seed, 64)
            or hashlib.sha256(bytes.fromhex(seed)).hexdigest() != self.commits[target]
            or detail.get("commitment") != self.commits[target]
        ):
            swapped = "seed reveal #{seq} does not match commitment #{target}: the seed was swapped"
            raise Unfair(seq, swapped, seq=seq, target=target)
        self.seeds[target] = (seed, seq)


def _check(records: Iterable[dict[str, Any]], partial: bool) -> dict[str, int]:
    """One pass over the records, judging as it goes and keeping only the fair entries
    (their seeds are revealed later in the chain): a million-entry ledger streams through
    in the memory of its fair entries."""
    known = _Seeds(partial)
    fair_entries: list[dict[str, Any]] = []
    judging = _Judging()
    for record in records:
        seq: int = record["seq"]  # every record has its seq: the chain rules checked it first
        detail = found if isinstance(found := record.get("detail"), dict) else {}
        known.read(seq, record.get("kind"), detail)
        if isinstance(detail.get("fair"), dict):
            fair_entries.append(record)
        if record.get("kind") in JUDGED_KINDS:
            judging.add(record)
    counts = {"checked": 0, "pending": 0, "abandoned": 0}
    runs: dict[tuple[Any, ...], int] = {}
    for record in fair_entries:  # first the dice themselves, then what they made
        counts[_fair_entry(record, known, runs)] += 1
    if judging.failure is not None:
        raise judging.failure
    return {"revealed": len(known.seeds), **counts, "judged": judging.count, "unlinked": judging.unlinked}


class _Judging:
    """judge() each record as it streams past, once per distinct roll: a ledger repeats
    the same few expressions and dice, and a record that differs only in its seq is judged
    alike (the first of them, in seq order, is the one a failure names). The first failure
    is held, not raised, so a wrong die of a fair entry is named before what it made."""

    def __init__(self) -> None:
        self.count = 0
        self.unlinked = 0
        self.failure: Unfair | None = None
        self._seen: dict[object, bool] = {}
        # fright checks and table look-ups by seq, as much of each as their sub-entries read
        self._frights: dict[int, dict[str, Any]] = {}
        self._tables: dict[int, dict[str, Any]] = {}

    def add(self, record: dict[str, Any]) -> None:
        if self.failure is not None:
            return
        try:
            self._judge(record)
        except Unfair as bad:
            self.failure = bad

    def _judge(self, record: dict[str, Any]) -> None:
        kind, detail = record.get("kind"), record.get("detail")
        self.unlinked += _unlinked(record)
        if kind == "table":
            kept = detail.get("text_rolls") if isinstance(detail, dict) else None
            self._tables[record["seq"]] = {"seq": record["seq"], "detail": {"text_rolls": kept}}
        if kind == "fright":
            if record.get("parent_seq") is None:
                effects = detail.get("effects") if isinstance(detail, dict) else None
                slim = {name: record.get(name) for name in ("seq", "total", "target", "dice")}
                self._frights[record["seq"]] = {**slim, "detail": {"effects": effects}}
            else:
                _fright_margin(record, self._frights)
        key = _judge_key(record)
        if key is None:
            self.count += judge(record)
            _fright_effect(record, self._frights)
            _text_copy(record, self._tables)
            return
        if key not in self._seen:
            self._seen[key] = judge(record)
        self.count += self._seen[key]


def _judge_key(record: dict[str, Any]) -> object:
    """What judge() reads of a record, hashable and typed (True is not 1), or None (a
    table look-up, or a sub-entry, reads more of its detail: judged on its own)."""
    if record.get("kind") == "table" or (record.get("kind") == "fright" and record.get("parent_seq") is not None):
        return None
    detail = record.get("detail")
    gurps = detail.get("gurps") if isinstance(detail, dict) else None
    marks = (gurps.get("automatic"), gurps.get("sorcery")) if isinstance(gurps, dict) else gurps
    dice = record.get("dice")
    fields = (record.get("total"), record.get("target"), record.get("outcome"), record.get("margin"), marks)
    key = (
        record.get("kind"),
        record.get("parent_seq") is None,
        record.get("expression"),
        tuple(dice) if isinstance(dice, list) else dice,
        tuple(map(type, dice)) if isinstance(dice, list) else None,
        fields,
        tuple(map(type, fields)),
    )
    try:
        hash(key)
    except TypeError:  # a list where a number belongs: judged on its own
        return None
    return key


def _fair_inputs(record: dict[str, Any], known: _Seeds) -> tuple[int, int | None, str, int, list[Any]]:
    """(commit, base, share, from, draws) of a fair entry; base is version 1's seq, None in version 2."""
    seq, fair = record["seq"], record["detail"]["fair"]
    commit, share, first, draws = (fair.get(name) for name in ("commit", "share", "from", "draws"))
    if not _is_int(commit) or commit >= seq or (commit not in known.commits and not known.partial):
        no_commit = "entry #{seq} derives its dice from #{commit}, which is no earlier seed commitment"
        raise Unfair(seq, no_commit, seq=seq, commit=commit)
    version, base = fair.get("v", 1), fair.get("seq")
    if version == 1:  # never under a version-2 commitment: the server chose version 1's seq
        good = _is_int(base) and commit < base <= seq and (share is None or _hex(share)) and commit not in known.v2
    else:
        good = version == 2 and "seq" not in fair and _hex(share, 64)
    if not good or not _is_int(first) or first < 0 or not isinstance(draws, list):
        raise Unfair(seq, "entry #{seq}: its fair-dice inputs are malformed", seq=seq)
    return commit, base if version == 1 else None, share or "", first, draws


def _fair_entry(record: dict[str, Any], known: _Seeds, runs: dict[tuple[Any, ...], int]) -> str:
    """Check one fair entry; which count it adds to: checked, pending or abandoned."""
    seq = record["seq"]
    commit, base, share, first, draws = _fair_inputs(record, known)
    if commit in known.seeds and known.seeds[commit][1] < seq:
        foreseen = (
            "entry #{seq} derives its dice from seed #{commit}, revealed before it (#{revealed}): "
            "anyone could foresee them"
        )
        raise Unfair(seq, foreseen, seq=seq, commit=commit, revealed=known.seeds[commit][1])
    if commit in known.abandoned and known.abandoned[commit] < seq:
        ended = "entry #{seq} derives its dice from seed #{commit}, abandoned before it (#{abandoned})"
        raise Unfair(seq, ended, seq=seq, commit=commit, abandoned=known.abandoned[commit])
    run = (commit, base, share if base is None else "")
    if first == 0 and runs.get(run, 0) > 0 and base is None:
        reused = "entry #{seq}: share already used under seed #{commit}: its dice repeat an earlier request's"
        raise Unfair(seq, reused, seq=seq, commit=commit)
    expected = runs.get(run, 0)
    if first != expected:
        dropped = "entry #{seq}: its dice start at index {first}, expected {expected} (a die was drawn and dropped)"
        raise Unfair(seq, dropped, seq=seq, first=first, expected=expected)
    runs[run] = first + len(draws)
    faces = []
    for offset, draw in enumerate(draws):
        if (
            not isinstance(draw, list)
            or len(draw) != 2
            or not all(_is_int(v) for v in draw)
            or not 1 <= draw[0] <= 10**6
        ):
            raise Unfair(seq, "entry #{seq}: die {number} is malformed", seq=seq, number=offset + 1)
        faces.append(draw[1])
    dice = record.get("dice")
    if (dice if dice is not None else []) != faces:
        differ = "entry #{seq}: its dice {dice} are not the derived draws {faces}"
        raise Unfair(seq, differ, seq=seq, dice=dice, faces=faces)
    if commit in known.abandoned:
        return "abandoned"
    if commit not in known.seeds:
        return "pending"
    seed = known.seeds[commit][0]
    for offset, (sides, face) in enumerate(draws):
        should = derive(seed, base, share, first + offset, sides)
        if face != should:
            changed = "entry #{seq}: die {number} (d{sides}) shows {face}, the seed gives {should}: the die was changed"
            raise Unfair(seq, changed, seq=seq, number=offset + 1, sides=sides, face=face, should=should)
    return "checked"


# --- Judged results: total, outcome and margin follow from the dice ----------------------
# The rules the roll used (docs/rules.md "Success roll", "Fright check"), for what a checker
# can recompute alone:
#   an arithmetic roll as the dice engine reads it (its expression as recorded: dice terms
#   NdM, Dm, Nd, D66, NdMKHk / NdMKLk, whole numbers, + - * / with / rounding down, and
#   parentheses, optionally compared with a fixed target): the dice are the terms' faces in
#   the order written. A GURPS success roll (3D6[+-k]<=N with detail.gurps, or a fright
#   check) gets its criticals; any other comparison is plain success or failure.
#   a table look-up (`table roll`, a table's reroll, the fright table): 3d6 plus the
#   modifier (the fright table: the check's margin of failure), clamped only by the two
#   tables a modifier can push out of 3..18; the row recorded is one of the table's rows
#   (_ROWS) and holds the result.
#   the dice a row's text names (a table's "1d-3 turns (at least 1)"): the row's own dice
#   and minimum (_TEXT_ROLLS: a record before the minimum was recorded is checked alike),
#   the value max(minimum, faces + modifier). A roll the fright table's row asks for (turns
#   of stun, fatigue, an HT roll) is an arithmetic roll or a success roll of its own, under
#   a row of that table.
# Rolls read from a chat log are not judged here; their dice are still the derived faces
# when fair.
_COMPARISONS = ("<=", "=<", ">=", "=>", "<>", "!=", "<", ">", "=")
_SAME = {"=<": "<=", "=>": ">=", "<>": "!="}
_COMPARE = {
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}
_CLAMPED = {"FEAR": (4, 40), "REACT": (0, 19)}  # the modifiable tables' ranges (seeds/fear.toml, react.toml)
_NESTING = 32  # campaign.core.dice_tree.MAX_NESTING
# The shipped tables' rows (seeds/*.toml), numbers only: each table's highest result and
# the lowest result of each row, in order (a row runs to the next row's lowest - 1). The
# tables are part of the program, not of a campaign, so a checker carries them; the tests
# hold this copy to the seeds (tests/unit/test_fair_rules_agree.py).
_ROWS = {
    "CRT": (18, (3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 18)),
    "FEAR": (40, (4, 6, 8, 10, 11, 12, 13, 14, *range(16, 41))),
    "FMB": (18, (3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 18)),
    "GFMB": (18, (3, 5, 6, 7, 8, 9, 12, 13, 15, 16, 18)),
    "HCRT": (18, (3, 4, 6, 7, 8, 9, 12, 13, 14, 15)),
    "MFMB": (18, tuple(range(3, 19))),
    "REACT": (19, (0, 1, 4, 7, 10, 13, 16, 19)),
    "YFMB": (18, tuple(range(3, 19))),
    "YSCRT": (18, tuple(range(3, 19))),
    "YSFMB": (18, tuple(range(3, 19))),
}
# The dice each row's text names (core.table_model.TextDice), by table and row's lowest:
# (dice, minimum) in the row's order; the record names one by its index.
_TEXT_ROLLS = {
    ("GFMB", 3): (("1D", 0),),
    ("GFMB", 16): (("1D", 0),),
    ("MFMB", 3): (("1D", 0),),
    ("YFMB", 3): (("3D", 0), ("1D", 0)),
    ("YFMB", 4): (("3D", 0),),
    ("YFMB", 10): (("1D", 0),),
    ("YSCRT", 15): (("1D-3", 1),),
    ("YSFMB", 7): (("1D", 0),),
    ("YSFMB", 9): (("1D-2", 0),),
    ("YSFMB", 16): (("1D-3", 1),),
}


class _NotJudged(Exception):
    """The expression is not one this checker reads (see above)."""


class _Expression:
    """A recorded expression parsed as the dice engine parses it: a tree of tuples
    ("n", value), ("d", count, sides, keep, kept), ("d66",), ("neg", node),
    ("sum", ((sign, node), ...)) and ("mul", first, ((operator, node), ...)), with
    dice-free parts folded to numbers as the engine folds them."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.depth = text, 0, 0

    def parse(self) -> tuple[Any, str | None, int | None]:
        """(left side, comparison, target); _NotJudged when the text is another shape."""
        text = self.text
        if not text or " " in text:
            raise _NotJudged
        head = re.split(r"[<>=!]", text)[0]
        if "B" in head:  # barabara dice (3B6, 2B6+1B10): faces counted, never summed in a comparison
            groups = re.fullmatch(r"(\d+B\d+)(\+\d+B\d+)*", head)
            if groups is None:
                raise _NotJudged
            sizes = tuple(tuple(int(n) for n in part.split("B")) for part in head.split("+"))
            left: Any = ("b", sizes)
            self.pos = len(head)
        else:
            left = self.sum()
        if left[0] == "n":
            raise _NotJudged  # no dice
        comparison = target = None
        if self.pos < len(text):
            comparison = next((c for c in _COMPARISONS if text.startswith(c, self.pos)), None)
            if comparison is None:
                raise _NotJudged
            self.pos += len(comparison)
            comparison = _SAME.get(comparison, comparison)
            right = self.sum()
            if right[0] != "n":
                raise _NotJudged
            target = right[1]
        if self.pos != len(text):
            raise _NotJudged
        return left, comparison, target

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def sum(self) -> Any:
        terms = [(1, self.product())]
        while self.peek() in ("+", "-"):
            sign = 1 if self.text[self.pos] == "+" else -1
            self.pos += 1
            terms.append((sign, self.product()))
        if len(terms) == 1:
            return terms[0][1]
        if all(node[0] == "n" for _, node in terms):
            return ("n", sum(sign * node[1] for sign, node in terms))
        return ("sum", tuple(terms))

    def product(self) -> Any:
        first, rest = self.unary(), []
        while self.peek() in ("*", "/"):
            operator = self.text[self.pos]
            self.pos += 1
            rest.append((operator, self.unary()))
        if not rest:
            return first
        if first[0] == "n" and all(node[0] == "n" for _, node in rest):
            value = first[1]
            for operator, node in rest:
                if operator == "/" and node[1] == 0:
                    raise _NotJudged
                value = value * node[1] if operator == "*" else value // node[1]
            return ("n", value)
        return ("mul", first, tuple(rest))

    def unary(self) -> Any:
        char = self.peek()
        if char not in ("+", "-"):
            return self.dice_or_atom()
        self.enter()
        self.pos += 1
        operand = self.unary()
        self.depth -= 1
        if char == "+":
            return operand
        return ("n", -operand[1]) if operand[0] == "n" else ("neg", operand)

    def enter(self) -> None:
        self.depth += 1
        if self.depth > _NESTING:
            raise _NotJudged

    def dice_or_atom(self) -> Any:
        if self.peek() == "D":
            return self.dice(None)
        atom = self.atom()
        if self.peek() != "D":
            return atom
        if atom[0] != "n":
            raise _NotJudged
        return self.dice(atom[1])

    def dice(self, count: int | None) -> Any:
        self.pos += 1
        text = self.text
        if count is None and text.startswith("66", self.pos) and not text[self.pos + 2 : self.pos + 3].isdigit():
            self.pos += 2
            return ("d66",)
        if self.peek().isdigit() or self.peek() == "(":
            sides = self.fixed()
        elif count is None:
            raise _NotJudged
        else:
            sides = 6
        count = 1 if count is None else count
        if not (1 <= count <= 1000 and 1 <= sides <= 1000):
            raise _NotJudged
        keep, kept = None, None
        if self.peek() == "K":
            keep = text[self.pos : self.pos + 2]
            if keep not in ("KH", "KL"):
                raise _NotJudged
            self.pos += 2
            kept = self.fixed() if self.peek().isdigit() or self.peek() == "(" else 1
            if not 1 <= kept <= count:
                raise _NotJudged
        return ("d", count, sides, keep, kept)

    def fixed(self) -> int:
        node = self.atom()
        if node[0] != "n":
            raise _NotJudged
        return int(node[1])

    def atom(self) -> Any:
        found = re.match(r"\d+", self.text[self.pos :])
        if found:
            self.pos += found.end()
            return ("n", int(found.group()))
        if self.peek() != "(":
            raise _NotJudged
        self.enter()
        self.pos += 1
        inner = self.sum()
        if self.peek() != ")":
            raise _NotJudged
        self.pos += 1
        self.depth -= 1
        return inner


_PARSED: dict[str, Any] = {}  # a ledger repeats the same few expressions


def _parsed(text: str) -> tuple[Any, str | None, int | None, tuple[tuple[int, int], ...]] | None:
    """(left side, comparison, target, dice terms) of an expression, or None (not judged)."""
    if text in _PARSED:
        return _PARSED[text]  # type: ignore[no-any-return]
    try:
        left, comparison, target = _Expression(text).parse()
        found: Any = (left, comparison, target, tuple(_terms(left)))
    except (_NotJudged, RecursionError):
        found = None
    if len(_PARSED) < 4096:
        _PARSED[text] = found
    return found  # type: ignore[no-any-return]


def _terms(node: Any) -> list[tuple[int, int]]:
    """(count, sides) of every dice term, in the order the engine rolls them."""
    kind = node[0]
    if kind == "d":
        return [(node[1], node[2])]
    if kind == "b":
        return list(node[1])
    if kind == "d66":
        return [(2, 6)]
    if kind == "neg":
        return _terms(node[1])
    if kind == "sum":
        return [term for _, part in node[1] for term in _terms(part)]
    if kind == "mul":
        return _terms(node[1]) + [term for _, part in node[2] for term in _terms(part)]
    return []


def _value(node: Any, faces: list[int]) -> int:
    """The node's value, taking its dice from the front of `faces`."""
    kind = node[0]
    if kind == "n":
        return int(node[1])
    if kind == "b":  # barabara without a target: the faces' sum
        count = sum(size for size, _ in node[1])
        taken, faces[:count] = faces[:count], []
        return sum(taken)
    if kind == "d":
        count, keep, kept = node[1], node[3], node[4]
        taken = [faces.pop(0) for _ in range(count)]
        return sum(sorted(taken, reverse=keep == "KH")[:kept] if keep else taken)
    if kind == "d66":
        tens, ones = faces.pop(0), faces.pop(0)
        return tens * 10 + ones
    if kind == "neg":
        return -_value(node[1], faces)
    if kind == "sum":
        return sum(sign * _value(part, faces) for sign, part in node[1])
    value = _value(node[1], faces)
    for operator, part in node[2]:
        right = _value(part, faces)
        if operator == "/" and right == 0:
            raise _NotJudged
        value = value * right if operator == "*" else value // right
    return value


def _success_roll(node: Any) -> bool:
    """Whether the left side is 3D6[+-k], the one shape a GURPS success roll judges."""
    if node[0] == "d":
        return bool(node[1:] == (3, 6, None, None))
    if node[0] != "sum":
        return False
    dice = [part for sign, part in node[1] if part[0] != "n"]
    signs = [sign for sign, part in node[1] if part[0] != "n"]
    return len(dice) == 1 and signs == [1] and dice[0][:4] == ("d", 3, 6, None) and dice[0][4] is None


def gurps_outcome(raw: int, total: int, target: int, sorcery: bool = False) -> str:
    """docs/rules.md "Success roll": criticals on the raw 3d6 against the target as
    written, success on the total; sorcery makes 17 and 18 critical failures."""
    if raw <= 4 or (raw == 5 and target >= 15) or (raw == 6 and target >= 16):
        return "critical_success"
    if raw == 18 or (raw == 17 and (target <= 15 or sorcery)) or raw >= target + 10:
        return "critical_failure"
    if raw >= 17:
        return "failure"
    return "success" if total <= target else "failure"


def _dice_fit(dice: list[Any], terms: Iterable[tuple[int, int]]) -> bool:
    sides = [side for count, side in terms for _ in range(count)]
    return len(dice) == len(sides) and all(_is_int(face) and 1 <= face <= side for face, side in zip(dice, sides))


def _miscounted(terms: Iterable[tuple[int, int]]) -> dict[str, Any]:
    """What the "rolls {count} d{sides}" line names: the dice count, and their sides when one."""
    sides = {side for _, side in terms}
    return {"count": sum(count for count, _ in terms), "sides": sides.pop() if len(sides) == 1 else "?"}


def judgement(record: dict[str, Any]) -> dict[str, Any] | None:
    """What the entry's dice, expression and target give: {"count", "sides", "total", ...
    every recorded field they decide, by name ("detail.raw" for a field of detail)}; only
    {"count", "sides"} when the dice do not fit the expression; None when the entry is not
    one this checker recomputes (see above). `judge` compares."""
    kind, detail = record.get("kind"), record.get("detail")
    detail = detail if isinstance(detail, dict) else {}
    dice = record.get("dice")
    if not isinstance(dice, list) or str(record.get("source") or "").startswith(("ccfolia", "import")):
        return None  # no dice, or read from a chat log: BCDice judged it there, by its own rules
    if kind == "table" and "text_roll" in detail:
        return _text_judgement(record, detail, dice)
    if kind == "table" or (kind == "fright" and detail.get("purpose") == "table"):
        return _table_judgement(record, detail, dice)
    if kind not in ("roll", "fright"):
        return None
    below = None  # a roll the fright table's row asked for: under one of its rows
    if kind == "fright" and record.get("parent_seq") is not None:
        below = ("detail.entry", detail.get("entry"), None, "FEAR")
    parsed = _parsed(str(record.get("expression") or ""))
    if parsed is None:
        return None
    left, comparison, target, terms = parsed
    try:
        if not _dice_fit(dice, terms):
            return _miscounted(terms)
        total = _value(left, list(dice))
    except _NotJudged:
        return None
    shown: dict[str, Any] = {**_miscounted(terms), "total": total, "target": None, "outcome": None, "margin": None}
    if below is not None:
        shown["row"] = below
    if comparison is None:
        return shown
    if left[0] == "b":  # barabara: the total is how many faces meet the target; no outcome
        wanted = int(target or 0)
        return {**shown, "total": sum(1 for face in dice if _COMPARE[comparison](face, wanted)), "target": wanted}
    gurps = detail.get("gurps")
    # a penalty (after waking) moves the target the roll was judged against: detail.gurps says which
    goal: int = gurps["target"] if isinstance(gurps, dict) and _is_int(gurps.get("target")) else int(target or 0)
    shown["target"] = goal
    if (isinstance(gurps, dict) or kind == "fright") and comparison == "<=" and _success_roll(left):
        sorcery = isinstance(gurps, dict) and gurps.get("sorcery") is True
        raw = sum(dice)
        outcome = gurps_outcome(raw, total, goal, sorcery)
        shown.update(outcome=outcome, margin=goal - total)
        if isinstance(gurps, dict):
            shown["automatic"] = outcome == "failure" and raw >= 17
        return shown
    margin = goal - total if comparison in ("<=", "<") else total - goal if comparison in (">=", ">") else None
    outcome = "success" if _COMPARE[comparison](total, goal) else "failure"
    return {**shown, "outcome": outcome, "margin": margin}


def _table_judgement(record: dict[str, Any], detail: dict[str, Any], dice: list[Any]) -> dict[str, Any] | None:
    """A table look-up: its result from its 3d6 and modifier, and the row that holds it."""
    if record.get("kind") == "table":
        name, added, row = detail.get("table"), detail.get("modifier"), detail.get("entry")
        if isinstance(row, dict):  # an older record names its row whole; its range says which
            row = row.get("range")
        if not ("raw" in detail and "result" in detail) or "text_roll" in detail:
            return None  # a reference table's or a BCDice table's roll, or an entry's text dice
    else:  # the fright table's roll, under its fright check
        name, added, row = detail.get("name"), detail.get("margin_added"), detail.get("range")
    if not isinstance(name, str) or not _is_int(added):
        return None
    if not _dice_fit(dice, [(3, 6)]):
        return {"count": 3, "sides": 6}
    raw = sum(dice) + added
    low, high = _CLAMPED.get(name, (raw, raw))
    result = max(low, min(high, raw))
    shown: dict[str, Any] = {"count": 3, "sides": 6, "total": result, "target": None, "outcome": None, "margin": None}
    shown["detail.raw"] = raw
    shown["expression"] = name + format(added, "+d") if added else name  # "FEAR+5", "REACT-1", "CRT"
    if record.get("kind") == "table":
        shown["detail.result"] = result
        shown["row"] = ("detail.entry", row, result, name)
        rolls = detail.get("text_rolls")
        if isinstance(rolls, list) and rolls:  # the copy of its text dice the look-up keeps
            shown["detail.text_rolls"] = [_text_value(code, name, row) for code in rolls]
    else:
        shown.update({"detail.entry": result, "detail.dice": dice})
        shown["row"] = ("detail.range", row, result, name)
    return shown


def _text_spec(code: object, table: object, row: object) -> tuple[int, int, int] | None:
    """(count, modifier, minimum) of the text dice a code names by its index in the row (an
    older code, without its index, by its dice)."""
    low = row[0] if isinstance(row, list) and row else None
    specs = _TEXT_ROLLS.get((table, low), ()) if isinstance(table, str) and _is_int(low) else ()
    index = code.get("index") if isinstance(code, dict) else None
    if table is None and row is None and isinstance(code, dict) and _is_int(code.get("min")):
        found = re.fullmatch(r"([1-9][0-9]?)D([+-][0-9]{1,3})?", str(code.get("dice")))  # an older record,
        return (int(found[1]), int(found[2] or 0), code["min"]) if found else None  # with its words, names no row
    if isinstance(code, dict) and "index" not in code:
        index = next((n for n, (dice, _) in enumerate(specs) if dice == code.get("dice")), None)
    if not _is_int(index) or not 0 <= index < len(specs):
        return None
    dice, floor = specs[index]
    count, _, modifier = dice.partition("D")
    return int(count), int(modifier or 0), floor


def _text_value(code: object, table: object, row: object) -> object:
    """A text roll's code ({"index", "dice", "faces", "value", "min"}) as the row's own dice
    and minimum make it from its faces."""
    spec = _text_spec(code, table, row)
    if spec is None or not isinstance(code, dict):
        return None  # no text dice of the row: nothing the record holds can be right
    count, modifier, floor = spec
    faces = code.get("faces")
    if not isinstance(faces, list) or not _dice_fit(faces, [(count, 6)]):
        return {**code, "value": None}  # its faces are not the row's dice
    should = {**code, "dice": str(count) + "D" + (format(modifier, "+d") if modifier else "")}
    should["value"] = max(floor, sum(faces) + modifier)
    if "min" in code:  # recorded since the record holds it; before, the row's own is taken
        should["min"] = floor
    return should


def _text_judgement(record: dict[str, Any], detail: dict[str, Any], dice: list[Any]) -> dict[str, Any] | None:
    """The dice a table row's text names: the row's own dice, at least its minimum; the
    code the entry holds (dice, faces, value, minimum) is its own."""
    table, row, code = detail.get("table"), detail.get("entry"), detail.get("text_roll")
    shown: dict[str, Any] = {"count": len(dice), "sides": 6}
    if "table" in detail or "entry" in detail:
        shown["row"] = ("detail.entry", row, None, table)
    spec = _text_spec(code, table, row)
    if spec is not None and not _dice_fit(dice, [(spec[0], 6)]):
        return {**shown, "count": spec[0]}
    value = _text_value({**code, "faces": dice} if isinstance(code, dict) else code, table, row)
    shown["total"] = value.get("value") if isinstance(value, dict) else None
    shown.update({"target": None, "outcome": None, "margin": None, "detail.text_roll": value})
    shown["expression"] = value.get("dice") if isinstance(value, dict) else None
    return shown


def _holds(row: object, result: int | None) -> bool:
    return (
        isinstance(row, list)
        and len(row) == 2
        and all(_is_int(v) for v in row)
        and (result is None or row[0] <= result <= row[1])
    )


def _is_row(table: object, row: object) -> bool:
    """Whether `row` is one of the table's rows: [low, high], or a row's low alone."""
    high, lows = _ROWS.get(table, (None, ())) if isinstance(table, str) else (None, ())
    low = row if _is_int(row) else row[0] if isinstance(row, list) and len(row) == 2 else None
    if low not in lows or isinstance(low, bool):
        return False
    after = lows.index(low) + 1
    return _is_int(row) or row[1] == (lows[after] - 1 if after < len(lows) else high)  # type: ignore[index]


def _field(record: dict[str, Any], name: str) -> object:
    if name == "automatic":
        gurps = (record.get("detail") or {}).get("gurps")
        return isinstance(gurps, dict) and gurps.get("automatic") is True
    if name.startswith("detail."):
        detail = record.get("detail")
        return detail.get(name[len("detail.") :]) if isinstance(detail, dict) else None
    return record.get(name)


def judge(record: dict[str, Any]) -> bool:
    """Whether the entry was judged (it is one of those above); Unfair when its dice,
    total, target, outcome, margin, automatic mark or table row do not follow from them."""
    should = judgement(record)
    if should is None:
        return False
    seq, dice = record["seq"], record["dice"]
    if "row" in should and not _is_row(should["row"][3], should["row"][1]):
        missing = "entry #{seq}: the table {table} has no row {row}"
        raise Unfair(seq, missing, seq=seq, table=should["row"][3], row=should["row"][1])
    if "total" not in should:
        count = "entry #{seq}: {expression} rolls {count} d{sides}, its dice are {dice}"
        fields = {key: should[key] for key in ("count", "sides")}
        raise Unfair(seq, count, seq=seq, expression=record.get("expression"), dice=dice, **fields)
    wrong = "entry #{seq}: its {name} is {value}, its dice {dice} give {should}"
    for name, want in should.items():
        if name in ("count", "sides", "row"):
            continue
        value = _field(record, name)
        if value != want or isinstance(value, bool) != isinstance(want, bool):
            raise Unfair(seq, wrong, seq=seq, name=name, value=value, dice=dice, should=want)
    if "row" in should:
        name, row, result, _ = should["row"]
        if result is not None and not _holds(row, result):
            raise Unfair(seq, wrong, seq=seq, name=name, value=row, dice=dice, should=result)
    return True


def judge_entry(record: dict[str, Any], others: Mapping[int, dict[str, Any]]) -> bool:
    """judge() one entry of a ledger, and what it must agree with among `others` (by seq),
    as one pass in order checks it: a fright table's added margin with its check, a sized
    roll with the effect it sized, a text's dice with the look-up that named them. For a
    checker that judges some entries of a ledger (receipts_check.py: those its receipts cover)."""
    judged = judge(record)
    detail = found if isinstance(found := record.get("detail"), dict) else {}
    parent = others.get(record.get("parent_seq"))  # type: ignore[arg-type]
    frights = (
        {}
        if parent is None or parent.get("kind") != "fright" or parent.get("parent_seq") is not None
        else {parent["seq"]: parent}
    )
    if record.get("kind") == "fright" and record.get("parent_seq") is not None:
        _fright_margin(record, frights)
    _fright_effect(record, frights)
    asker = others.get(detail.get("requested_by"))  # type: ignore[arg-type]
    _text_copy(record, {} if asker is None or asker.get("kind") != "table" else {asker["seq"]: asker})
    return judged


_SIZES = {
    "stun_turns": "duration",
    "duration": "duration",
    "severity": "severity",
    "fatigue": "amount",
    "injury": "amount",
}


def _sized(record: dict[str, Any]) -> str | None:
    """The field of a fright's effect that a roll its row asked for sizes ("duration",
    "amount", "severity"), or None (a check, a table roll, another entry)."""
    detail = record.get("detail")
    purpose = detail.get("purpose") if isinstance(detail, dict) else None
    if record.get("kind") != "fright" or record.get("parent_seq") is None or not isinstance(purpose, str):
        return None
    return _SIZES.get(purpose.split(":")[0])


def _unlinked(record: dict[str, Any]) -> bool:
    """A fright row's roll recorded before it named the effect it sized: its total is
    recomputed, the effect's value is not compared with it (not a failure)."""
    detail = record.get("detail")
    source = str(record.get("source") or "")
    return (
        _sized(record) is not None
        and isinstance(detail, dict)
        and "effect" not in detail
        and not source.startswith(("ccfolia", "import"))
    )


def _fright_effect(record: dict[str, Any], parents: Mapping[int, dict[str, Any]]) -> None:
    """A roll a fright row asked for sizes one of the fright's effects (its detail.effect
    says which): the effect holds the roll's total, under the same row."""
    field, parent = _sized(record), parents.get(record.get("parent_seq"))  # type: ignore[arg-type]
    detail = record.get("detail")
    if field is None or parent is None or not isinstance(detail, dict) or "effect" not in detail:
        return
    effects, index = (parent.get("detail") or {}).get("effects"), detail["effect"]
    found = isinstance(effects, list) and _is_int(index) and 0 <= index < len(effects)
    effect = effects[index] if found else None  # type: ignore[index]
    value = effect.get(field) if isinstance(effect, dict) else None
    same_row = isinstance(effect, dict) and effect.get("entry") == detail.get("entry")
    if same_row and value == record.get("total") and not isinstance(value, bool):
        return
    seq, wrong = parent["seq"], "entry #{seq}: its {name} is {value}, its dice {dice} give {should}"
    name = "detail.effects." + str(index) + "." + field
    raise Unfair(seq, wrong, seq=seq, name=name, value=value, dice=record.get("dice"), should=record.get("total"))


def _text_copy(record: dict[str, Any], tables: Mapping[int, dict[str, Any]]) -> None:
    """The look-up whose row named the dice keeps a copy of them (its detail.text_rolls,
    the value its text shows): the copy with the same index holds the entry's faces and
    value, when the look-up is among the records."""
    detail = record.get("detail")
    code = detail.get("text_roll") if isinstance(detail, dict) and record.get("kind") == "table" else None
    asker = tables.get(detail.get("requested_by")) if isinstance(code, dict) and "index" in code else None  # type: ignore[union-attr]
    if asker is None:
        return
    copies = (asker.get("detail") or {}).get("text_rolls")
    copies = copies if isinstance(copies, list) else []
    found = [n for n, kept in enumerate(copies) if isinstance(kept, dict) and kept.get("index") == code["index"]]  # type: ignore[index]
    kept = copies[found[0]] if len(found) == 1 else None
    shows = [kept.get("faces"), kept.get("value")] if isinstance(kept, dict) else None
    if shows == [record.get("dice"), record.get("total")]:
        return
    seq, wrong = asker["seq"], "entry #{seq}: its {name} is {value}, its dice {dice} give {should}"
    name = "detail.text_rolls." + str(found[0] if found else code["index"])  # type: ignore[index]
    raise Unfair(
        seq,
        wrong,
        seq=seq,
        name=name,
        value=shows,
        dice=record.get("dice"),
        should=[record.get("dice"), record.get("total")],
    )


def _fright_margin(record: dict[str, Any], parents: Mapping[int, dict[str, Any]]) -> None:
    """The fright table adds its check's margin of failure (docs/rules.md "Fright check"):
    the check's own total and target, when the check is among the records."""
    parent = parents.get(record.get("parent_seq"))  # type: ignore[arg-type]
    detail = record.get("detail")
    if parent is None or not isinstance(detail, dict) or detail.get("purpose") != "table":
        return
    total, target = parent.get("total"), parent.get("target")
    if _is_int(total) and _is_int(target) and detail.get("margin_added") != max(0, total - target):
        seq, dice = record["seq"], parent.get("dice")
        wrong = "entry #{seq}: its {name} is {value}, its dice {dice} give {should}"
        should = max(0, total - target)
        raise Unfair(
            seq, wrong, seq=seq, name="detail.margin_added", value=detail.get("margin_added"), dice=dice, should=should
        )


def check_bundle_file(path: str) -> dict[str, Any]:
    """The fair dice of a proof bundle (`campaign history proof -o FILE`): its records are
    read as they are; proofcheck.py is what proves they are the chain's. OSError when the
    file cannot be read, Unreadable (a ValueError) when it is no bundle."""
    return check_records(bundle_records(path), partial=True)


def bundle_records(path: str) -> list[dict[str, Any]]:
    """The parsed records of the bundle at `path`, each an object with its seq."""
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        bundle = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise Unreadable(NOT_UTF8, start=exc.start) from None
    except json.JSONDecodeError as exc:
        where = {"line": exc.lineno, "column": exc.colno, "char": exc.pos}
        raise Unreadable(NOT_JSON, exc=Unreadable(WHERE, problem=Unreadable(exc.msg), **where)) from None
    except RecursionError:  # json.loads recurses: deeper than Python's stack
        raise Unreadable(TOO_DEEP) from None
    entries = bundle.get("entries") if isinstance(bundle, dict) else None
    if not isinstance(entries, list):
        raise Unreadable(NO_ENTRIES)
    records = []
    for number, entry in enumerate(entries, start=1):
        record = canonical_record(entry.get("record") if isinstance(entry, dict) else None)
        if not isinstance(record, dict) or not _is_int(record.get("seq")):
            raise Unreadable(NOT_A_RECORD, number=number)
        records.append(record)
    return records


RECORD_DEPTH = 64  # campaign.read_limits.JSON_DEPTH


class _Twice(ValueError):
    """A key given twice in one object, or NaN/Infinity: JSON a careful reader reads two ways."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({key for key, _ in pairs}) != len(pairs):
        raise _Twice
    return dict(pairs)


def _constant(name: str) -> Any:
    raise _Twice


def _nests_deeper(text: str, limit: int = RECORD_DEPTH) -> bool:
    """Brackets outside strings nested more than `limit` deep, found without parsing."""
    depth = 0
    for char in "".join(text.replace("\\\\", "").replace('\\"', "").split('"')[0::2]):
        depth += (char in "[{") - (char in "]}")
        if depth > limit:
            return True
    return False


def canonical_record(text: object) -> object:
    """The value of a record's text when the text is its one canonical spelling, else
    None: the ledger's record rule (campaign.ledger_scan.record_text_problem; the tests
    run one table of shapes against both): sorted keys, no spaces, characters as UTF-8,
    only json.dumps' escapes, no key twice, no NaN, nested at most RECORD_DEPTH levels.
    A record spelled another way is no ledger record: the dice read here would not be
    the ones the chain's readers see."""
    if not isinstance(text, str) or _nests_deeper(text):
        return None
    try:
        value = json.loads(text, object_pairs_hook=_unique, parse_constant=_constant)
        again = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        again.encode("utf-8")
    except (ValueError, RecursionError):  # not JSON, read two ways, or a lone surrogate
        return None
    return value if again == text else None


def _worded(value: object, lang: str) -> str:
    """A problem (an Unreadable, an OSError's words, a value) in `lang`, its parts too."""
    if isinstance(value, Unreadable):
        fields = {name: _worded(part, lang) for name, part in value.fields.items()}
        return message(value.template, lang, **fields)
    return message(str(value), lang) if isinstance(value, str) and value in JA else str(value)


def _arguments(args: list[str]) -> tuple[str | None, str | None]:
    """(the bundle's path, the --lang given) from argv; no path when the usage is wrong."""
    path, lang, rest = None, None, list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--lang" and rest:
            lang = rest.pop(0)
        elif arg.startswith("--lang="):
            lang = arg[len("--lang=") :]
        elif arg.startswith("-") or path is not None:
            return None, lang
        else:
            path = arg
    return (path if lang in (None, *LANGUAGES) else None), lang


def main(argv: list[str] | None = None) -> int:
    path, option = _arguments(sys.argv[1:] if argv is None else argv)
    lang = language(option)
    if path is None:
        print(message(USAGE, lang), file=sys.stderr)
        return 2
    try:
        counts = _check(bundle_records(path), partial=True)
    except OSError as exc:
        print(message(UNREADABLE, lang, file=path, problem=_worded(exc.strerror or exc, lang)), file=sys.stderr)
        return 1
    except Unreadable as exc:
        print(message(UNREADABLE, lang, file=path, problem=_worded(exc, lang)), file=sys.stderr)
        return 1
    except Unfair as bad:
        print(message(REJECTED, lang, problem=message(bad.template, lang, **bad.fields)), file=sys.stderr)
        return 1
    print(message(HOLD, lang, **counts))
    if counts["unlinked"]:
        print(message(UNLINKED, lang, **counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
