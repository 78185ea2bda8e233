"""Moving a campaign between databases as JSON Lines (`export` / `import`).

The file holds the campaign's state (players, characters, traits, conditions,
scenarios, disappearances, searches) and its whole ledger, each entry with its record
exactly as hashed. Import re-verifies the chain line by line and writes everything in
one transaction, so a broken or tampered file leaves the target database untouched.
Both directions stream: memory stays flat however long the ledger is.

The dicts here stay dicts on purpose: each is one JSON line of the file as read (checked
field by field before anything trusts it), a ledger record (hashed JSON), or a row handed
as it is to one bulk INSERT. Results (Exported, Imported) are dataclasses.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from campaign import ledger, ledger_scan, read_limits
from campaign.chain import GENESIS_HASH, Broken, Walk
from campaign.db.database import Database
from campaign.db.models import Campaign, LedgerEntry
from campaign.db.state_tables import STATELESS_KINDS, load_state, sync_state
from campaign.errors import DataError, RuleRefused
from campaign.i18n import _
from campaign.projection.ops import INT_LIMIT
from campaign.projection.replay import Entry, ReplayConflict, entry_from_record, project
from campaign.projection.state import State, first_difference
from campaign.services.common import campaign_named, clean_campaign_name, clean_name
from campaign.services.fair import on_import as fair_import
from campaign.services.ledger.state_lines import BY_TYPE, claim, state_lines

FORMAT = "campaign-export"
VERSION = 1
BATCH = 5000


_encode = json.JSONEncoder(ensure_ascii=False).encode  # one encoder for every line, not one per line


def _line(line_type: str, /, **fields: Any) -> str:
    return _encode({"type": line_type, **fields}) + "\n"


def export_lines(session: Session, campaign: Campaign, progress: Callable[[int], None] | None = None) -> Iterator[str]:
    """Yield the export file line by line (header, state, ledger, footer).

    The state lines are the tables as campaign.services.ledger.state_lines spells them (one
    line per row of each table state_mapping declares)."""
    cid = campaign.id
    yield _line(
        "header",
        format=FORMAT,
        version=VERSION,
        campaign={
            "name": campaign.name,
            "ruleset": campaign.ruleset,
            "settings": campaign.settings,
            "created_at": campaign.created_at,
            "clock": campaign.clock,
            # only for a renamed campaign: the name its records carry
            **({"chain_name": campaign.chain_name} if campaign.chain_name else {}),
        },
    )
    state = load_state(session, campaign)
    for line_type, fields in state_lines(state):
        yield _line(line_type, **fields)
    count, head = 0, GENESIS_HASH
    rows = session.execute(
        select(LedgerEntry.record, LedgerEntry.prev_hash, LedgerEntry.hash)
        .where(LedgerEntry.campaign_id == cid)
        .order_by(LedgerEntry.seq)
        .execution_options(yield_per=BATCH)
    )
    for record, prev_hash, digest in rows:
        count += 1
        head = digest
        yield _line("entry", record=record, prev_hash=prev_hash, hash=digest)
        if progress is not None:
            progress(1)
    yield _line("footer", entries=count, head=head)


@dataclass(frozen=True, slots=True)
class Exported:
    """`export`: lines written, the ledger's length, and how many secret rolls there are
    (their hidden results only in the --secrets file, when `secrets_exported`)."""

    campaign: str
    lines: int
    entries: int
    secrets: int
    secrets_exported: bool


@dataclass(frozen=True, slots=True)
class Imported:
    """`import`: the campaign made (`chain_name` the name its records keep), its ledger's
    length and head, and how many hidden secret-roll results were restored."""

    campaign: str
    chain_name: str
    entries: int
    head: str
    secrets: int
    abandoned_seed: int | None = None  # the seed_abandon entry ending a commitment the file left open


def export_campaign(
    db: Database,
    campaign_name: str | None,
    out: IO[str],
    progress: Callable[[int], None] | None = None,
    secrets_out: IO[str] | None = None,
) -> Exported:
    """The campaign file never holds a secret roll's result; `secrets_out` (a separate,
    GM-only file) gets them, from the same read so both files describe one ledger."""
    from campaign.services.checks.secret_rolls import count_secrets, secret_lines

    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        count = 0
        for line in export_lines(session, campaign, progress):
            out.write(line)
            count += 1
        if secrets_out is not None:
            for line in secret_lines(session, campaign):
                secrets_out.write(line)
        return Exported(
            campaign=campaign.name,
            lines=count,
            entries=ledger.head(session, campaign.id)[0],
            secrets=count_secrets(session, campaign),
            secrets_exported=secrets_out is not None,
        )


class _Importer:
    """Builds one campaign from export lines inside the caller's transaction.

    The ledger is the only thing trusted, and only once its chain is verified: the
    state tables are rebuilt by replaying it. The file's state lines are kept as a claim
    and compared with that replay; any difference (a forged CP total, a reunion that
    never rolled, a string where a number belongs) refuses the whole import.
    """

    def __init__(self, session: Session, as_name: str | None = None) -> None:
        self.session = session
        self.as_name = as_name
        self.chain_name = ""  # the name every record must carry (set by the header)
        self.campaign: Campaign | None = None
        self.claimed = State()
        self.entries: list[Entry] = []
        self.walk: Walk | None = None  # the chain's rules (campaign.chain), from the header on
        self.pending: list[dict[str, Any]] = []
        self.footer_seen = False
        self.seal_heads: list[dict[str, Any]] = []
        self.fair_records: list[dict[str, Any]] = []  # what services.fair.on_import checks

    @property
    def expected_seq(self) -> int:
        return self.walk.seq if self.walk is not None else 1

    @property
    def prev_hash(self) -> str:
        return self.walk.prev_hash if self.walk is not None else GENESIS_HASH

    def feed(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        if self.campaign is None and kind != "header":
            raise ValueError(_("the file must start with a header line"))
        if self.footer_seen:
            raise ValueError(_("nothing may follow the footer"))
        if isinstance(kind, str) and kind in BY_TYPE:
            claim(self.claimed, BY_TYPE[kind], item)
            return
        handler = getattr(self, f"_{kind}", None) if isinstance(kind, str) else None
        if handler is None:
            raise ValueError(_("unknown line type {kind!r}").format(kind=kind))
        handler(item)

    def _header(self, item: dict[str, Any]) -> None:
        if self.campaign is not None:
            raise ValueError(_("a second header"))
        if item.get("format") != FORMAT or item.get("version") != VERSION:
            raise ValueError(_("not a {FORMAT} version {VERSION} file").format(FORMAT=FORMAT, VERSION=VERSION))
        meta = item["campaign"]
        for key in ("name", "chain_name"):
            value = meta.get(key)
            if (key == "name" or value is not None) and (
                not isinstance(value, str) or clean_name(value, "campaign") != value
            ):
                raise ValueError(_("campaign {key} {value!r} is not a clean name").format(key=key, value=value))
        # The records keep the name the chain was written under (they are hashed); the
        # campaign row may be called something else (import --as-name, or a file exported
        # from a campaign imported that way): Campaign.chain_name remembers the difference.
        self.chain_name = meta.get("chain_name") or meta["name"]
        name = self.as_name or meta["name"]
        if self.as_name is None and meta["name"].startswith("-"):  # the rule of init (clean_campaign_name)
            raise RuleRefused(
                _(
                    "the campaign's name {name!r} begins with '-' and would read as an option: import it under "
                    "another name (import --as-name NEW)"
                ).format(name=meta["name"])
            )
        created_at = meta["created_at"]
        if not isinstance(created_at, str) or len(created_at) > 32:
            raise ValueError(_("created_at must be a time stamp"))
        if self.session.scalar(select(Campaign.id).where(Campaign.name == name)) is not None:
            if self.as_name:
                raise RuleRefused(
                    _("a campaign named {name!r} already exists in the target database").format(name=name)
                )
            raise RuleRefused(
                _(
                    "a campaign named {name!r} already exists in the target database "
                    "(`import --as-name NEW` gives it another name)"
                ).format(name=name)
            )
        self.claimed.ruleset, self.claimed.settings = meta["ruleset"], meta["settings"]
        self.claimed.clock = meta.get("clock", 0)  # files from before the clock: never advanced
        # Ruleset and settings are written by the replay (sync_state); the row needs a start.
        self.campaign = Campaign(
            name=name,
            ruleset=str(meta["ruleset"])[:50],
            settings={},
            created_at=created_at,
            chain_name=self.chain_name if self.chain_name != name else None,
        )
        self.session.add(self.campaign)
        self.session.flush()
        self.walk = Walk(self.chain_name)  # records carry the name the chain was written under

    def _relationship(self, item: dict[str, Any]) -> None:
        self.claimed.relationships[(item["from"], item["to"])] = item["note"]

    def _entry(self, item: dict[str, Any]) -> None:
        record_json, prev_hash, digest = item.get("record"), item.get("prev_hash"), item.get("hash")
        assert self.walk is not None and self.campaign is not None  # the header came first
        seq = self.walk.seq
        # The one record rule (valid UTF-8, canonical, shallow) first: hashing a lone
        # surrogate would fail, and a record spelled two ways would break later proofs.
        problem = ledger_scan.record_text_problem(record_json) if isinstance(record_json, str) else None
        if problem:
            raise ValueError(_("entry #{seq}: {problem}").format(seq=seq, problem=problem))
        try:
            record = self.walk.step(prev_hash, record_json, digest)
        except Broken as exc:
            raise ValueError(str(exc)) from None
        problem = _indexed_problem(record)
        if problem:
            raise ValueError(_("entry #{seq}: {problem}").format(seq=seq, problem=problem))
        if record.get("kind") not in STATELESS_KINDS:
            self.entries.append(entry_from_record(record))
        if fair_import.wanted(record, str(record_json)):
            self.fair_records.append(record)
        if record.get("kind") == "seal":  # the heads it printed: `verify --head` looks them up
            self.seal_heads.append({"campaign_id": self.campaign.id, "seq": seq, "hash": digest})
        row = {name: record.get(name) for name in ledger_scan.INDEXED_FIELDS}
        row.update(campaign_id=self.campaign.id, record=record_json, prev_hash=prev_hash, hash=digest)
        self.pending.append(row)
        if len(self.pending) >= BATCH:
            self.flush_entries()

    def _footer(self, item: dict[str, Any]) -> None:
        if item.get("entries") != self.expected_seq - 1 or item.get("head") != self.prev_hash:
            raise ValueError(_("the footer does not match the entries (file truncated or edited)"))
        self.footer_seen = True

    def flush_entries(self) -> None:
        if self.pending:
            self.session.execute(LedgerEntry.__table__.insert(), self.pending)
            self.pending = []
        if self.seal_heads:
            from campaign.db.models import SealHead

            self.session.execute(SealHead.__table__.insert(), self.seal_heads)
            self.seal_heads = []

    def rebuild_state(self) -> None:
        """Replay the verified ledger into the tables; the state lines must agree with it."""
        try:
            state = project(self.entries)
        except ReplayConflict as exc:
            raise ValueError(_("the ledger does not replay: {exc}").format(exc=exc)) from None
        try:
            difference = first_difference(state, self.claimed)
        except TypeError as exc:  # e.g. a list where a name belongs: not even comparable
            raise ValueError(_("a state line holds a value of the wrong type ({exc})").format(exc=exc)) from None
        if difference is not None:
            raise ValueError(_("the state lines disagree with the ledger: {value}").format(value=difference.text()))
        # Equal to the replay (compared above, types included), and in the file's own key
        # order (the GM's order of stats), so an export of the import is byte-identical.
        assert self.campaign is not None  # the header came first
        sync_state(self.session, self.campaign, self.claimed)


_INDEXED_TYPES: dict[str, type | tuple[type, ...]] = {
    "seq": int,
    "at": str,
    "actor": str,
    "kind": str,
    "character": (str, type(None)),
    "scenario": (int, type(None)),
    "outcome": (str, type(None)),
    "parent_seq": (int, type(None)),
    "voids_seq": (int, type(None)),
}
_INDEXED_LENGTHS = {"at": 32, "actor": 200, "kind": 20, "character": 200, "outcome": 20}


def _indexed_problem(record: dict[str, Any]) -> str | None:
    """The columns copied out of a record must fit both backends' column types."""
    for name, types in _INDEXED_TYPES.items():
        value = record.get(name)
        if isinstance(value, bool) or not isinstance(value, types):
            return f"{name} has the wrong type ({type(value).__name__})"
        if isinstance(value, int) and not -INT_LIMIT <= value <= INT_LIMIT:
            return f"{name} {value} is out of range"
        if isinstance(value, str) and (len(value) > _INDEXED_LENGTHS[name] or "\x00" in value):
            return f"{name} is too long or holds NUL"
    return None


def bounded_lines(source: Iterable[str]) -> Iterator[str]:
    """An export's lines, each and all within campaign.read_limits' bounds."""
    return read_limits.lines(source, total=read_limits.EXPORT_CHARS, suffix="; nothing imported")


def _shallow(lines: Iterator[str]) -> Iterator[str]:
    for number, line in enumerate(lines, start=1):
        deep = read_limits.depth_problem(line)
        if deep:
            raise DataError(_("secrets line {number}: {deep}; nothing imported").format(number=number, deep=deep))
        yield line


def _bounded_secrets(secrets: Iterable[str]) -> Iterator[str]:
    """A secrets file's lines within bounds; its first line is read at once, so a file
    that is no secrets file at all (/dev/zero) is refused before the import begins."""
    lines = _shallow(
        read_limits.lines(secrets, label="secrets line", total=read_limits.SECRETS_CHARS, suffix="; nothing imported")
    )
    first = next(lines, None)
    return itertools.chain(() if first is None else (first,), lines)


def import_campaign(
    db: Database,
    lines: Iterable[str],
    progress: Callable[[int], None] | None = None,
    secrets: Iterable[str] | None = None,
    as_name: str | None = None,
) -> Imported:
    """Recreate a campaign from export lines; all or nothing, errors name the line.

    `as_name` renames it on the way in (a second copy beside the original, or a name
    the group prefers); its ledger keeps verifying under the name it was written with
    (Campaign.ledger_name)."""
    if as_name is not None:
        as_name = clean_campaign_name(as_name, "--as-name")
    line_number = 0
    hidden = None if secrets is None else _bounded_secrets(secrets)
    try:
        with db.write() as session:
            importer = _Importer(session, as_name)
            for line_number, line in enumerate(bounded_lines(lines), start=1):
                if not line.strip():
                    continue
                try:
                    deep = read_limits.depth_problem(line)
                    if deep:
                        raise ValueError(deep)
                    item = json.loads(line)
                    if not isinstance(item, dict):
                        raise ValueError(_("not a JSON object"))
                    importer.feed(item)
                except (RuleRefused, DataError):
                    raise
                except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
                    problem = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
                    raise DataError(
                        _("line {line_number}: {problem}; nothing imported").format(
                            line_number=line_number, problem=problem
                        )
                    ) from None
                if progress is not None:
                    progress(1)
            if not importer.footer_seen:
                raise DataError(
                    _("line {value}: the file ends without its footer (truncated); nothing imported").format(
                        value=line_number + 1
                    )
                )
            importer.flush_entries()
            try:
                importer.rebuild_state()
            except ValueError as exc:
                raise DataError(_("{exc}; nothing imported").format(exc=exc)) from None
            assert importer.campaign is not None  # the header came first
            fair_import.check(importer.fair_records)  # what `history verify` would refuse
            fair_import.record_shares(session, importer.campaign, importer.fair_records)
            abandoned = fair_import.abandon_dangling(session, importer.campaign, importer.fair_records)
            restored = 0
            if hidden is not None:  # secret rolls' hidden results, each checked against its commitment
                from campaign.services.checks.secret_rolls import load_secret_lines

                restored = load_secret_lines(session, importer.campaign, hidden)
            return Imported(
                campaign=importer.campaign.name,
                chain_name=importer.campaign.ledger_name,
                entries=importer.expected_seq - 1 + (abandoned is not None),
                head=importer.prev_hash if abandoned is None else ledger.head(session, importer.campaign.id)[1],
                secrets=restored,
                abandoned_seed=abandoned,
            )
    except IntegrityError as exc:
        raise DataError(
            _("line {line_number}: inconsistent content ({value}); nothing imported").format(
                line_number=line_number, value=str(exc.orig).splitlines()[0]
            )
        ) from None
