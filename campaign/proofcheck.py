"""Check a proof bundle on your own machine: one file, Python's standard library only.

    python proofcheck.py proof.json --head 3f1c...        (a copy of this file)
    python -m campaign.proofcheck proof.json --head 3f1c...

A proof bundle (written by `campaign history proof SEQ -o proof.json`) holds one ledger
entry and every entry after it up to a sealed head, each as the exact text that was
hashed. This script recomputes the chain the way the ledger does (SHA-256 over the
previous entry's hash followed by the entry's canonical JSON: sorted keys, no spaces,
UTF-8) and accepts the bundle only if every link holds and the last entry is a seal
whose hash is the bundle's head. Pass the head hash you wrote down when the GM sealed
the session (all 64 hex digits, or the first 16 or more): it may be any seal in the
bundle, and the bundle proves the entry against that seal. It also says whether a void
inside the bundle took the entry back, and checks every reveal in it against the
commitment its secret roll made, and recomputes every provably fair die in it from the
revealed seed and the player's share (docs/fair-dice.md; the same rules as fair_check.py).

Deliberately self-contained (no import from the rest of `campaign`), so a player can
copy this one file and trust what it does by reading it. The project's tests check that
it agrees, verdict and words, with the project's one chain verifier (campaign/chain.py)
as `campaign proof check` runs it.

Exit status: 0 the proof holds, 1 it does not (the reason names the entry), 2 bad usage.

In Japanese or English (--lang, else CAMPAIGN_LANG, else the locale): every line it prints,
argparse's usage and errors too, comes from one table (JA below: English templates with
named placeholders, their Japanese). `campaign proof check` prints the same sentences
(summary, message, rejection); its own rejections' Japanese in the catalog is the table's.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, TypeGuard

FORMAT = "campaign-proof"
VERSION = 1
BUNDLE_KEYS = {"format", "version", "campaign", "seq", "anchor", "head", "head_seq", "entries"}
ENTRY_KEYS = {"prev_hash", "hash", "record"}
HEX = frozenset("0123456789abcdef")
MIN_HEAD_PREFIX = 16  # hex digits of a --head prefix: 2^64 hashes to grind for a look-alike
MAX_BYTES = 256 * 2**20  # a bundle larger than this is refused unread
JUDGED_KINDS = ("roll", "fright", "table")  # whose results judge() recomputes from their dice
MAX_DEPTH = 64  # JSON nesting, of the bundle and of each record (json.loads recurses)
# What a secret roll commits to (SHA-256 over a salt and these fields' canonical JSON).
COMMITTED_FIELDS = ("expression", "dice", "total", "target", "outcome", "margin", "reason", "detail")

NOT_UTF8 = "record is not valid UTF-8 text (it holds a lone surrogate)"
NOT_CANONICAL = "record is not in canonical JSON (sorted keys, no spaces, UTF-8)"
NOT_CONTAINED = (
    "this bundle does not contain your seal: the bundle ends before it, the history was "
    "rewritten after it, or the hash is mistyped"
)
HOLDS = "proof holds: entry #{seq} is in the chain of {campaign!r} sealed at #{head_seq} ({entries} entries checked)"
VOIDED = "voided: entry #{voided} took entry #{seq} back (within seal #{head_seq})"
REVEALED = "revealed by entry #{revealed}, which matches its commitment"
RUNS_ON = "the bundle runs on to seal #{bundle_seq}; your seal #{head_seq} proves it up to there"
SEVERAL = "--head {head}: matches seals #{value} and #{value2}; give more digits"
NOT_COMMITTED = "the reveal does not match the commitment of #{target} (wrong result or salt)"
UNLINKED = "prev_hash does not link to entry #{prev}"

# --- Language: every sentence this checker prints, in Japanese under the English --------
# One table of pairs: an English template (named placeholders; a line ending in a backslash
# goes on below), its Japanese indented under it. A rejection is looked up by its English
# line (reason_text), so the reasons campaign/chain.py and fair_check.py word for `campaign
# proof check` read the same there; its own rejections have the catalog's Japanese (a test).
LANGUAGES = ("ja", "en")
_PAIRS = """\
proof holds: entry #{seq} is in the chain of {campaign!r} sealed at #{head_seq} ({entries} entries checked)
    証明は成り立ちます: 記録 #{seq} は「{campaign}」の台帳の #{head_seq} で封印された鎖にあります \
({entries} 件を検証)
voided: entry #{voided} took entry #{seq} back (within seal #{head_seq})
    取り消し済み: 記録 #{voided} が記録 #{seq} を取り消しています (封印 #{head_seq} まで)
revealed by entry #{revealed}, which matches its commitment
    記録 #{revealed} で公開され、コミットメントと一致しています
the bundle runs on to seal #{bundle_seq}; your seal #{head_seq} proves it up to there
    証明の束は封印 #{bundle_seq} まで続きますが、あなたの封印 #{head_seq} で証明できるのはそこまでです
by {actor} at {at}
    {actor} が {at} に記録
entry #{seq}: {reason}
    記録 #{seq}: {reason}
proof rejected: {reason}
    証明は成り立ちません: {reason}
note: compare the head above with the hash you kept from `history seal` (or pass it with --head): \
the bundle proves the entry against that head only
    注意: 上の先頭ハッシュを `history seal` で控えたハッシュと見比べてください (--head で渡すこともできます)。\
証明の束が示すのは、その先頭に対する記録だけです
error: --head must be the hash printed by `history seal` (64 hex digits, or its first {n} or more)
    エラー: --head には `history seal` が表示したハッシュ (16進64桁、または先頭{n}桁以上) を渡してください
error: cannot read {file}: {problem}
    エラー: {file} を読めません: {problem}
error: {problem}
    エラー: {problem}
Check a campaign proof bundle offline.
    キャンペーンの証明の束を、オフラインで検証します。
the JSON file written by `campaign history proof`
    `campaign history proof` が書いたJSONファイル
the head hash you kept from `campaign history seal` (64 hex digits, or the first 16 or more)
    `history seal` で控えた先頭ハッシュ (16進64桁か先頭16桁以上)
print one JSON document
    JSON文書を一つ出力します
the language of the output: ja or en
    出力の言語: ja または en
No such file or directory
    ファイルがありません
Permission denied
    読む権限がありません
Is a directory
    ディレクトリです
usage:
    使い方:
positional arguments:
    引数:
options:
    オプション:
show this help message and exit
    このヘルプを表示して終わります
the following arguments are required: {names}
    次の引数が必要です: {names}
unrecognized arguments: {names}
    知らない引数です: {names}
argument {name}: expected one argument
    引数 {name} には値を1つ渡してください
argument {name}: invalid choice: {value} (choose from {choices})
    引数 {name}: {value} は選べません ({choices} から選んでください)
argument {name}: ignored explicit argument {value}
    引数 {name}: 値 {value} は受け付けません
ambiguous option: {option} could match {matches}
    あいまいなオプションです: {option} は {matches} のどれとも取れます
--head {head}: matches seals #{value} and #{value2}; give more digits
    --head {head}: 封印 #{value} と #{value2} の両方に一致します。桁を増やしてください
this bundle does not contain your seal: the bundle ends before it, the history was rewritten after it, \
or the hash is mistyped
    この証明の束にあなたの封印はありません: 束がその手前で終わっているか、封印のあとで履歴が書き換えられたか、\
ハッシュの写し間違いです
the bundle is larger than {value} MiB
    証明の束が {value} MiB を超えています
the bundle is not UTF-8 text (byte {start})
    証明の束が UTF-8 のテキストではありません ({start} バイト目)
the bundle is nested more than {MAX_DEPTH} levels deep
    証明の束の入れ子が {MAX_DEPTH} 段を超えています
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
key {key!r} appears twice in one object
    1つのオブジェクトにキー {key} が2回出てきます
{name} is not JSON
    {name} は JSON の値ではありません
the bundle is not a JSON object
    証明の束が JSON のオブジェクトではありません
the bundle's fields are wrong (missing {missing}, unexpected {extra})
    証明の束の項目が違います (不足: {missing}、余分: {extra})
not a {FORMAT} bundle of version {VERSION}
    バージョン {VERSION} の {FORMAT} の証明の束ではありません
the bundle's campaign is not a name
    証明の束のキャンペーンが名前ではありません
the bundle's seq or head_seq is not a positive whole number
    証明の束の seq か head_seq が正の整数ではありません
the bundle's {name} is not a 64-hex SHA-256 hash
    証明の束の {name} が16進64桁の SHA-256 ハッシュではありません
the bundle has no entries
    証明の束に記録がありません
head_seq {head_seq} does not match {count} entries from #{first}
    head_seq {head_seq} が #{first} からの記録 {count} 件と合いません
fields must be exactly {value}
    項目はちょうど {value} でなければなりません
record is not text, or a hash is not 64 hex digits
    記録が文字列でないか、ハッシュが16進64桁ではありません
prev_hash does not link to the bundle's anchor
    prev_hash が証明の束の起点につながりません
prev_hash does not link to entry #{prev}
    prev_hash が記録 #{prev} につながりません
hash does not match the entry's content (the entry was edited)
    ハッシュが内容と合いません (記録の書き換え)
record is nested more than {MAX_DEPTH} levels deep
    記録の入れ子が {MAX_DEPTH} 段を超えています
record is not valid JSON
    記録が正しいJSONではありません
record: {reason}
    記録の中身: {reason}
record is not valid UTF-8 text (it holds a lone surrogate)
    記録が正しいUTF-8ではありません (対のないサロゲート)
record is not in canonical JSON (sorted keys, no spaces, UTF-8)
    記録が正規のJSONではありません (キーの並び、空白、UTF-8)
record does not belong to campaign {campaign!r}
    キャンペーン {campaign} の記録ではありません
record says seq {got!r}, expected {seq}
    記録の seq が {got} です ({seq} のはずです)
record or hash is not text
    記録かハッシュが文字列ではありません
record is not text
    記録が文字列ではありません
record is not valid UTF-8
    記録が正しいUTF-8ではありません
record holds a lone surrogate (a \\ud800-style escape: not text UTF-8 can carry)
    記録に対のないサロゲートがあります (UTF-8 で表せない \\ud800 形式のエスケープ)
record nests JSON more than {depth} levels deep
    記録のJSONの入れ子が {depth} 段を超えています
record is nested too deeply
    記録の入れ子が深すぎます
prev_hash does not link to the genesis hash
    prev_hash が起点のハッシュにつながりません
entry {seq} is missing (next stored entry is {next})
    記録 {seq} がありません (次に保存されている記録は {next})
entry {seq} is out of order (expected {expected})
    記録 {seq} の順番が違います ({expected} のはずです)
column '{column}' differs from the hashed record
    列 '{column}' がハッシュされた記録の値と違います
the last entry is not a seal, so the head was never sealed
    最後の記録が封印でなく、先頭は封印されていません
the last entry's hash is not the bundle's head {head}
    最後の記録のハッシュが証明の束の先頭 {head} と一致しません
the reveal names #{target}, which is no earlier secret roll
    公開が指す #{target} は、それより前の秘密のロールではありません
secret roll #{target} is revealed twice (#{value}, #{seq})
    秘密のロール #{target} が2回公開されています (#{value}、#{seq})
the reveal does not match the commitment of #{target} (wrong result or salt)
    公開が #{target} のコミットメントと一致しません (結果かソルトが違います)
the reveal shows a {name} other than the one committed
    公開の {name} がコミットメントの値と違います
fair dice: {problem}
    公正なダイス: {problem}
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
# The words describe() shows for a record's codes (as `campaign history` shows them).
_KINDS_JA = (
    "campaign=キャンペーン setting=設定 player=プレイヤー character=キャラクター relation=関係 "
    "roll=ロール table=表 check=判定 fright=恐怖判定 trait=特徴 condition=状態 "
    "status=状態 missing=行方不明 search=捜索 scenario=シナリオ reunion=再会判定 void=取り消し seal=封印 "
    "reveal=公開 seed_commit=シードの公約 seed_reveal=シードの公開 seed_abandon=シードの放棄 award=CP付与 time=時間 "
    "skill=技能 damage=ダメージ heal=回復 note=メモ rename=改名 void_request=取消の依頼 "
    "void_refusal=取消の却下"
)
KINDS_JA = dict(pair.split("=") for pair in _KINDS_JA.split())
OUTCOMES = {"ja": dict(success="成功", failure="失敗", critical_success="クリティカル", critical_failure="ファンブル")}
_FIELD = r"\{(\w+)(?:!r)?\}"  # a placeholder of the table: {seq}, {campaign!r}


def _pattern(template: str) -> re.Pattern[str]:
    """The English lines `template` words: its own words, any value in each placeholder."""
    parts = re.split(_FIELD, template)
    return re.compile("".join(f"(?P<{p}>.+?)" if i % 2 else re.escape(p) for i, p in enumerate(parts)), re.DOTALL)


# Most fixed words first ("entry #{seq}: die {number} is malformed" before "entry #{seq}: {reason}"),
# and one that opens with a value last ("record: NaN is not JSON" is "record: {reason}").
_ORDER = sorted((t for t in JA if "{" in t), key=lambda t: (t.startswith("{"), -len(re.sub(_FIELD, "", t))))
_PATTERNS: list[tuple[re.Pattern[str], str]] = []  # compiled when a line is first read back (~10 ms)


def language(option: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """'ja' or 'en': `option` (--lang), else CAMPAIGN_LANG, else the locale; else English."""
    environ = os.environ if environ is None else environ
    locale = next((environ[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if environ.get(name, "").strip()), "")
    for value in (option, environ.get("CAMPAIGN_LANG"), locale):  # the first locale variable set decides
        code = (value or "").strip().lower().split(".")[0].replace("-", "_").split("_")[0]
        if code in LANGUAGES:
            return code
    return "en"


def reason_text(reason: str, lang: str = "en") -> str:
    """A rejection's English line in `lang`: its template's Japanese with the values it holds
    (a reason inside it, "record: key 'seq' appears twice ...", in Japanese too); a line the
    table does not word (already translated by the project's catalog) as it is."""
    if lang != "ja":
        return reason
    if reason in JA:
        return JA[reason]
    if not _PATTERNS:
        _PATTERNS.extend((_pattern(t), t) for t in _ORDER)
    for pattern, template in _PATTERNS:
        if found := pattern.fullmatch(reason):
            nested = ("reason", "problem", "exc")  # the values that are themselves reasons
            values = {k: reason_text(v, lang) if k in nested else v for k, v in found.groupdict().items()}
            return JA[template].format(**values)
    return reason


def rejection(reason: str, seq: int | None, lang: str = "en") -> str:
    """A rejection as both checkers print it: "entry #9: hash does not match ..." in `lang`."""
    reason = reason_text(reason, lang)
    return reason if seq is None else message("entry #{seq}: {reason}", lang, seq=seq, reason=reason)


def message(template: str, lang: str = "en", **fields: object) -> str:
    """One of this checker's sentences (an English template of JA) in `lang`."""
    return (JA.get(template, template) if lang == "ja" else template).format(**fields)


class Rejected(Exception):
    """The bundle does not prove what it claims; `seq` names the entry when there is one.
    `reason` is the English line, a template of JA filled with `fields` (as --json prints it)."""

    def __init__(self, template: str, seq: int | None = None, /, **fields: object) -> None:
        self.reason = template.format(**fields) if fields else template
        super().__init__(self.reason)
        self.seq = seq

    def __str__(self) -> str:
        return rejection(self.reason, self.seq)


class BadHead(Exception):
    """The --head given cannot name one seal: malformed, or a prefix of several (exit 2)."""


def canonical_json(value: object) -> str:
    """The ledger's spelling of a record: sorted keys, no spaces, non-ASCII kept as UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev_hash: str, record_json: str) -> str:
    """SHA-256 (hex) over the previous hash followed by the record's canonical JSON."""
    return hashlib.sha256((prev_hash + record_json).encode("utf-8")).hexdigest()


def canonical_problem(text: str, value: object) -> str | None:
    """None when the record's bytes are canonical_json(value) in strict UTF-8 (an escaped
    lone surrogate reads back as a string no UTF-8 can hold)."""
    try:
        exact = text.encode("utf-8")
        canonical = canonical_json(value).encode("utf-8")
    except UnicodeEncodeError:
        return NOT_UTF8
    return None if canonical == exact else NOT_CANONICAL


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON text nests arrays and objects more than `limit` levels, found without
    parsing it. Strings are taken out first (escaped backslashes and quotes removed, the
    text split at the quotes left), so brackets inside them do not count."""
    if text.count("[") + text.count("{") <= limit:  # no deeper than its openers: every record
        return False
    outside = "".join(text.replace("\\\\", "").replace('\\"', "").split('"')[0::2])
    depth = 0
    for char in outside:
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json.loads hook: a key given twice would let a reader and a checker see different values."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise Rejected("key {key!r} appears twice in one object", key=key)
        seen[key] = value
    return seen


def _no_constants(name: str) -> NoReturn:
    raise Rejected("{name} is not JSON", name=name)


def _strict_loads(text: str) -> object:
    return json.loads(text, object_pairs_hook=_strict_object, parse_constant=_no_constants)


def _is_hash(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and len(value) == 64 and all(ch in HEX for ch in value)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def load(data: bytes) -> object:
    """The bundle as JSON, refusing anything a careful reader could read two ways."""
    if len(data) > MAX_BYTES:
        raise Rejected("the bundle is larger than {value} MiB", value=MAX_BYTES // 2**20)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Rejected("the bundle is not UTF-8 text (byte {start})", start=exc.start) from None
    if too_deep(text):
        raise Rejected("the bundle is nested more than {MAX_DEPTH} levels deep", MAX_DEPTH=MAX_DEPTH)
    try:
        return _strict_loads(text)
    except ValueError as exc:
        raise Rejected("the bundle is not valid JSON ({exc})", exc=exc) from None


def normalize_head(text: str) -> str | None:
    """A --head as typed (any case, spaces around it): 64 hex digits or a prefix of
    MIN_HEAD_PREFIX or more; None if it is neither."""
    value = text.strip().lower()
    if MIN_HEAD_PREFIX <= len(value) <= 64 and all(ch in HEX for ch in value):
        return value
    return None


def _record(text: str, campaign: str, seq: int) -> dict[str, Any]:
    """The entry's record, if its text is a canonical record of this campaign at `seq`."""
    if too_deep(text):
        raise Rejected("record is nested more than {MAX_DEPTH} levels deep", seq, MAX_DEPTH=MAX_DEPTH)
    try:
        record = _strict_loads(text)
    except ValueError:
        raise Rejected("record is not valid JSON", seq) from None
    except Rejected as exc:
        raise Rejected("record: {reason}", seq, reason=exc.reason) from None
    problem = canonical_problem(text, record)
    if problem:
        raise Rejected(problem, seq)
    if not isinstance(record, dict) or record.get("campaign") != campaign:
        raise Rejected("record does not belong to campaign {campaign!r}", seq, campaign=campaign)
    if record.get("seq") != seq:
        raise Rejected("record says seq {got!r}, expected {seq}", seq, got=record.get("seq"), seq=seq)
    return record


def _commitment_of(record: dict[str, Any]) -> object:
    detail = record.get("detail")
    secret = detail.get("secret") if isinstance(detail, dict) else None
    return secret.get("commitment") if isinstance(secret, dict) else None


def _check_reveal(
    records: dict[int, dict[str, Any]], first: int, seq: int, record: dict[str, Any], revealed: dict[int, int]
) -> None:
    """A reveal in the bundle discloses what its secret roll committed to: the salt and
    result hash to the commitment, the entry repeats the result, and when the secret roll
    is in the bundle too, the commitment is the one that roll made (and it is revealed once)."""
    detail = found if isinstance(found := record.get("detail"), dict) else {}
    target, commitment, salt, result = (detail.get(k) for k in ("reveals", "commitment", "salt", "result"))
    if not _is_int(target) or target >= seq or (target >= first and _commitment_of(records.get(target, {})) is None):
        raise Rejected("the reveal names #{target}, which is no earlier secret roll", seq, target=target)
    if target in revealed:
        raise Rejected(
            "secret roll #{target} is revealed twice (#{value}, #{seq})",
            seq,
            target=target,
            value=revealed[target],
            seq=seq,
        )
    if target >= first and _commitment_of(records[target]) != commitment:
        raise Rejected(NOT_COMMITTED, seq, target=target)
    if (
        not isinstance(salt, str)
        or not isinstance(result, dict)
        or not isinstance(commitment, str)
        or hashlib.sha256((salt + canonical_json(result)).encode("utf-8")).hexdigest() != commitment
    ):
        raise Rejected(NOT_COMMITTED, seq, target=target)
    for name in COMMITTED_FIELDS:
        if name != "detail" and record.get(name) != result.get(name):
            raise Rejected("the reveal shows a {name} other than the one committed", seq, name=name)
    revealed[target] = seq


def _your_seal(seals: list[tuple[int, str]], head: str | None) -> tuple[int, str]:
    """(seq, hash) of the seal `head` names among the bundle's seals (None: the last)."""
    if head is None:
        return seals[-1]
    found = [seal for seal in seals if seal[1].startswith(head)]
    if len(found) > 1:
        raise BadHead(SEVERAL.format(head=head, value=found[0][0], value2=found[1][0]))
    if not found:
        raise Rejected(NOT_CONTAINED)
    return found[0]


# --- Fair dice (docs/fair-dice.md), the same rules as fair_check.py: kept here, word for
# word, so this file stands alone (tests/unit/test_fair_rules_agree.py holds them together).


def fair_face(seed: str, seq: int | None, share: str, index: int, sides: int) -> int:
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


class _Seeds:
    """What the seed entries read so far say: commitments, revealed seeds, abandoned ones."""

    def __init__(self, partial: bool) -> None:
        self.partial = partial
        self.commits: dict[int, str] = {}
        self.seeds: dict[int, tuple[str, int]] = {}  # commit seq -> (seed, reveal seq)
        self.abandoned: dict[int, int] = {}  # commit seq -> abandon seq
        self.v2: set[int] = set()  # commitments made for version 2: no version-1 entry under them

    def read(self, seq: int, kind: object, detail: dict[str, Any]) -> None:
        if kind == "seed_commit":
            if not _hex(detail.get("commitment"), 64):
                raise Unfair(seq, "seed commitment #{seq} holds no SHA-256 hex digest", seq=seq)
            self.commits[seq] = detail["commitment"]
            if detail.get("scheme") == "hmac-sha256-v2":
                self.v2.add(seq)
        elif kind == "seed_reveal":
            self._reveal(seq, detail)
        elif kind == "seed_abandon":
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


def _check_fair(records: Iterable[dict[str, Any]], partial: bool) -> dict[str, int]:
    known = _Seeds(partial)
    fair_entries: list[dict[str, Any]] = []
    judged: list[dict[str, Any]] = []
    for record in records:
        seq: int = record["seq"]  # every record has its seq: the chain rules checked it first
        detail = found if isinstance(found := record.get("detail"), dict) else {}
        known.read(seq, record.get("kind"), detail)
        if isinstance(detail.get("fair"), dict):
            fair_entries.append(record)
        if record.get("kind") in JUDGED_KINDS:
            judged.append(record)
    counts = {"checked": 0, "pending": 0, "abandoned": 0}
    runs: dict[tuple[Any, ...], int] = {}
    for record in fair_entries:  # first the dice themselves, then what they made
        counts[_fair_entry(record, known, runs)] += 1
    unlinked = sum(1 for record in judged if _unlinked(record))
    return {"revealed": len(known.seeds), **counts, "judged": _judge_all(judged), "unlinked": unlinked}


def _judge_all(records: list[dict[str, Any]]) -> int:
    """judge() each record, once per distinct roll: a ledger repeats the same few
    expressions and dice, and a record that differs only in its seq is judged alike
    (the first of them, in seq order, is the one a failure names)."""
    seen: dict[object, bool] = {}
    frights: dict[int, dict[str, Any]] = {}  # fright checks by seq: their table adds their margin
    tables: dict[int, dict[str, Any]] = {}  # table look-ups by seq: they keep a copy of their text dice
    count = 0
    for record in records:
        if record.get("kind") == "table":
            tables[record["seq"]] = record
        if record.get("kind") == "fright":
            if record.get("parent_seq") is None:
                frights[record["seq"]] = record
            else:
                _fright_margin(record, frights)
        key = _judge_key(record)
        if key is None:
            count += judge(record)
            _fright_effect(record, frights)
            _text_copy(record, tables)
            continue
        if key not in seen:
            seen[key] = judge(record)
        count += seen[key]
    return count


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
        should = fair_face(seed, base, share, first + offset, sides)
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


def _fright_effect(record: dict[str, Any], parents: dict[int, dict[str, Any]]) -> None:
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


def _text_copy(record: dict[str, Any], tables: dict[int, dict[str, Any]]) -> None:
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


def _fright_margin(record: dict[str, Any], parents: dict[int, dict[str, Any]]) -> None:
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


def _fair_problem(records: list[dict[str, Any]]) -> tuple[int | None, str | None]:
    """(seq, problem) of the first fair-dice fault among a bundle's seed entries, fair
    entries and rolls (in seq order), else (None, None). A commitment before the bundle is
    taken from the reveal that repeats it; a die whose seed is not revealed yet waits."""
    try:
        _check_fair(records, True)
    except Unfair as bad:
        return bad.seq, bad.problem
    return None, None


_KEPT = ("seal", "void", "reveal")  # the kinds of entry check() keeps beside the first and secret rolls


def _voided_by(records: dict[int, dict[str, Any]], target: int, until: int) -> int | None:
    """The void (up to seq `until`) that took `target` back, or the entry it is part of
    (its parent_seq), and that no later void took back."""
    voids = {
        seq: r.get("voids_seq")
        for seq, r in records.items()
        if seq <= until and r.get("kind") == "void" and _is_int(r.get("voids_seq"))
    }
    parent = records[target].get("parent_seq")
    aims = (target, parent) if _is_int(parent) else (target,)
    live = [seq for seq, voided in voids.items() if voided in aims and seq not in voids.values()]
    return max(live) if live else None


def check(bundle: object, head: str | None = None) -> dict[str, Any]:  # noqa: C901 - the rules in the docstring's order, one function for players who audit it
    """Verify a loaded bundle; return what it proves, or raise Rejected naming the entry.

    Rules, in order: the bundle's own fields are well formed; entry i (counting from the
    bundle's seq) links to the previous entry's hash (the first to the anchor), hashes to
    its stored hash, is canonical JSON of valid UTF-8, is an object of this campaign with
    that seq; the last entry is a seal and its hash is the bundle's head; every reveal
    matches its commitment; with `head` (normalize_head), a seal of the bundle has it.
    The entry is proven against that seal; a void up to it is reported (voided_by).
    """
    if not isinstance(bundle, dict):
        raise Rejected("the bundle is not a JSON object")
    if set(bundle) != BUNDLE_KEYS:
        missing, extra = sorted(BUNDLE_KEYS - set(bundle)), sorted(set(bundle) - BUNDLE_KEYS)
        raise Rejected(
            "the bundle's fields are wrong (missing {missing}, unexpected {extra})", missing=missing, extra=extra
        )
    if bundle["format"] != FORMAT or not _is_int(bundle["version"]) or bundle["version"] != VERSION:
        raise Rejected("not a {FORMAT} bundle of version {VERSION}", FORMAT=FORMAT, VERSION=VERSION)
    campaign, first, entries = bundle["campaign"], bundle["seq"], bundle["entries"]
    if not isinstance(campaign, str):
        raise Rejected("the bundle's campaign is not a name")
    if not _is_int(first) or first < 1 or not _is_int(bundle["head_seq"]):
        raise Rejected("the bundle's seq or head_seq is not a positive whole number")
    for name in ("anchor", "head"):
        if not _is_hash(bundle[name]):
            raise Rejected("the bundle's {name} is not a 64-hex SHA-256 hash", name=name)
    if not isinstance(entries, list) or not entries:
        raise Rejected("the bundle has no entries")
    last = first + len(entries) - 1
    if bundle["head_seq"] != last:
        raise Rejected(
            "head_seq {head_seq} does not match {count} entries from #{first}",
            head_seq=bundle["head_seq"],
            count=len(entries),
            first=first,
        )

    prev_hash, records, seals, fair_records = bundle["anchor"], {}, [], []
    for seq, entry in enumerate(entries, start=first):
        if not isinstance(entry, dict) or set(entry) != ENTRY_KEYS:
            raise Rejected("fields must be exactly {value}", seq, value=sorted(ENTRY_KEYS))
        text, stored = entry["record"], entry["hash"]
        if not isinstance(text, str) or not _is_hash(stored) or not _is_hash(entry["prev_hash"]):
            raise Rejected("record is not text, or a hash is not 64 hex digits", seq)
        if entry["prev_hash"] != prev_hash:
            unlinked = "prev_hash does not link to the bundle's anchor" if seq == first else UNLINKED
            raise Rejected(unlinked, seq, prev=seq - 1)
        try:
            digest = chain_hash(prev_hash, text)
        except UnicodeEncodeError:
            raise Rejected(NOT_UTF8, seq) from None
        if digest != stored:
            raise Rejected("hash does not match the entry's content (the entry was edited)", seq)
        record = _record(text, campaign, seq)
        kind = record.get("kind")
        if seq == first or kind in _KEPT or _commitment_of(record) is not None:
            records[seq] = record  # only what voids and reveals need: a long bundle stays small
        if kind in ("seed_commit", "seed_reveal", "seed_abandon", *JUDGED_KINDS) or '"fair":{' in text:
            fair_records.append(record)
        if kind == "seal":
            seals.append((seq, stored))
        prev_hash = stored

    if kind != "seal":
        raise Rejected("the last entry is not a seal, so the head was never sealed", last)
    if prev_hash != bundle["head"]:
        raise Rejected("the last entry's hash is not the bundle's head {head}", last, head=bundle["head"])
    revealed: dict[int, int] = {}
    for seq, record in records.items():
        if record.get("kind") == "reveal":
            _check_reveal(records, first, seq, record, revealed)
    seal_seq, seal_hash = _your_seal(seals, head)
    bad_seq, problem = _fair_problem(fair_records)
    if problem is not None:
        raise Rejected("fair dice: {problem}", bad_seq, problem=problem)
    return {
        "ok": True,
        "campaign": campaign,
        "seq": first,
        "head": seal_hash,
        "head_seq": seal_seq,
        "entries": len(entries),
        "head_given": head is not None,
        "entry": records[first],
        "voided_by": _voided_by(records, first, seal_seq),
        "revealed_by": next((r for t, r in revealed.items() if t == first and r <= seal_seq), None),
        "bundle_head": bundle["head"],
        "bundle_head_seq": last,
    }


def _read(path: str) -> bytes:
    """The file's bytes, at most MAX_BYTES + 1 of them (a larger file is refused unread)."""
    with open(path, "rb") as handle:
        return handle.read(MAX_BYTES + 1)


def check_file(path: str, head: str | None = None) -> dict[str, Any]:
    """Read and check a bundle file; Rejected for any fault in it, OSError if unreadable."""
    return check(load(_read(path)), head)


def describe(entry: dict[str, Any], lang: str = "en") -> str:
    """One line for the proven entry, e.g. `#9 fright 鈴音: 3D6<=11 [6,5,5] = 16 failure`
    (`#9 恐怖判定 鈴音: 3D6<=11 [6,5,5] = 16 失敗` in Japanese)."""
    kind = str(entry.get("kind"))
    parts = [f"#{entry.get('seq')}", KINDS_JA.get(kind, kind) if lang == "ja" else kind]
    if entry.get("character"):
        parts[-1] += f" {entry['character']}:"
    if entry.get("expression"):
        faces = entry.get("dice")
        dice = ",".join(str(face) for face in faces) if isinstance(faces, list) else str(faces or "")
        parts.append(f"{entry['expression']} [{dice}] = {entry.get('total')}")
    if entry.get("outcome"):
        outcome = str(entry["outcome"])
        parts.append(OUTCOMES.get(lang, {}).get(outcome, outcome))
    if entry.get("reason"):
        parts.append(f"« {entry['reason']} »")
    parts.append(message("by {actor} at {at}", lang, actor=entry.get("actor"), at=entry.get("at")))
    return " ".join(parts)


def summary(result: dict[str, Any], lang: str = "en") -> list[str]:
    """The lines a holding proof prints: the head it was checked against first."""
    seq, head_seq = result["seq"], result["head_seq"]
    lines = [
        result["head"],
        message(HOLDS, lang, seq=seq, campaign=result["campaign"], head_seq=head_seq, entries=result["entries"]),
        "  " + describe(result["entry"], lang),
    ]
    if result["voided_by"] is not None:
        lines.append("  " + message(VOIDED, lang, voided=result["voided_by"], seq=seq, head_seq=head_seq))
    if result["revealed_by"] is not None:
        lines.append("  " + message(REVEALED, lang, revealed=result["revealed_by"]))
    if result["bundle_head_seq"] != head_seq:
        lines.append("  " + message(RUNS_ON, lang, bundle_seq=result["bundle_head_seq"], head_seq=head_seq))
    return lines


NOTE = (
    "note: compare the head above with the hash you kept from `history seal` (or pass it with --head): "
    "the bundle proves the entry against that head only"
)


def _option(argv: list[str], name: str) -> str | None:
    """The value of `name` in argv before argparse runs (its help is in that language)."""
    for index, arg in enumerate(argv):
        if arg == name and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith(name + "="):
            return arg[len(name) + 1 :]
    return None


def _arguments(argv: list[str], lang: str) -> Any:
    """argv parsed, every word argparse prints in `lang` too: the usage line, the headings
    and its errors go through JA like the rest (a wording JA lacks stays as it is)."""
    import argparse

    def frame(text: str) -> str:  # argparse's own words in its help and usage text
        lines = [
            message(line, lang) if line in ("positional arguments:", "options:") else line for line in text.split("\n")
        ]
        text = "\n".join(lines)
        return message("usage:", lang) + text[len("usage:") :] if text.startswith("usage:") else text

    class Parser(argparse.ArgumentParser):
        def format_usage(self) -> str:
            return frame(super().format_usage())

        def format_help(self) -> str:
            return frame(super().format_help())

        def error(self, problem: str) -> NoReturn:
            self.print_usage(sys.stderr)
            self.exit(2, message("error: {problem}", lang, problem=reason_text(problem, lang)) + "\n")

    parser = Parser(
        prog="proofcheck", description=message("Check a campaign proof bundle offline.", lang), add_help=False
    )
    parser.add_argument("bundle", help=message("the JSON file written by `campaign history proof`", lang))
    parser.add_argument("-h", "--help", action="help", help=message("show this help message and exit", lang))
    parser.add_argument(
        "--head",
        help=message(
            "the head hash you kept from `campaign history seal` (64 hex digits, or the first 16 or more)", lang
        ),
    )
    parser.add_argument("--json", action="store_true", help=message("print one JSON document", lang))
    parser.add_argument("--lang", choices=LANGUAGES, help=message("the language of the output: ja or en", lang))
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    lang = language(_option(argv, "--lang"))
    args = _arguments(argv, lang)
    head = None
    if args.head is not None:
        head = normalize_head(args.head)
        if head is None:
            template = (
                "error: --head must be the hash printed by `history seal` (64 hex digits, or its first {n} or more)"
            )
            print(message(template, lang, n=MIN_HEAD_PREFIX), file=sys.stderr)
            return 2
    try:
        result = check_file(args.bundle, head)
    except OSError as exc:
        print(
            message(
                "error: cannot read {file}: {problem}",
                lang,
                file=args.bundle,
                problem=reason_text(exc.strerror or str(exc), lang),
            ),
            file=sys.stderr,
        )
        return 1
    except BadHead as exc:
        print(message("error: {problem}", lang, problem=reason_text(str(exc), lang)), file=sys.stderr)
        return 2
    except Rejected as exc:
        if args.json:
            print(json.dumps({"ok": False, "bad_seq": exc.seq, "reason": exc.reason}, ensure_ascii=False))
        print(message("proof rejected: {reason}", lang, reason=rejection(exc.reason, exc.seq, lang)), file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print("\n".join(summary(result, lang)))
    if not result["head_given"]:
        print(message(NOTE, lang), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
