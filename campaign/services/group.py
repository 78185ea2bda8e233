"""Group mode (PostgreSQL only): one database login role per player and one for the GM.

The roles, their grants and the role -> player table are made here, by the database
owner; what each role may then do is enforced by the database itself (the actor trigger
and the row-level security policies of migration 0007), so a player's client cannot
type its way past them. Role names are ASCII slugs of ids, never of player names
(players may be Japanese), and every identifier and password reaches SQL through
psycopg.sql, never by string formatting.

SQLite has no roles: it stays single-GM mode, and every command here says so.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.db.database import Database
from campaign.db.models import Campaign, Player
from campaign.db.models_group import GroupRole
from campaign.errors import NotFound, RuleRefused
from campaign.services.common import campaign_named, clean_name

if TYPE_CHECKING:  # loaded when a void is approved, not by every group-mode command
    from campaign.services.voids import VoidApproved

GM_NAME = "GM"
# Every table of a campaign; row-level security covers these (migration 0007).
CAMPAIGN_TABLES = ("campaigns", "players", "characters", "ledger", "relationships", "traits", "conditions",
                   "scenarios", "scenario_participants", "disappearances", "searches", "reunion_checks")
READ_ONLY_TABLES = ("group_roles", "alembic_version")
# Hidden results of secret rolls: the GM's role only (players see the commitment in the
# ledger and the result once a reveal entry appends it); so are the table server's rows
# (invite and session hashes, calls: migration 0011), which it reads and writes as the
# GM's role while players reach it only over HTTP. Seal heads: everyone reads,
# the GM writes (only the GM seals).
GM_ONLY_TABLES = ("secret_rolls", "fair_seeds", "web_invites", "web_sessions", "web_requests", "table_calls")
GM_WRITES_ALL_READ = ("seal_heads",)
# A player's role appends to the ledger and changes its own characters' pools, CP,
# stats, traits and conditions (fright checks); row-level security narrows each to
# the player's own characters.
PLAYER_WRITES = {"ledger": ("INSERT",), "traits": ("INSERT", "UPDATE"), "conditions": ("INSERT", "UPDATE")}
PLAYER_COLUMN_UPDATES = {"characters": ("stats", "cp_total", "pools"),
                         # the append lock (SELECT ... FOR UPDATE); a policy refuses real updates
                         "campaigns": ("id",)}
SINGLE_MODE = "group mode needs PostgreSQL: an SQLite database is single-GM mode (--as is self-declared there)"


def require_postgres(db: Database) -> None:
    if db.dialect != "postgresql":
        raise RuleRefused(SINGLE_MODE)


# --- who is signed in


@dataclass(frozen=True)
class Identity:
    role: str
    kind: str  # "gm", "player" or "revoked"
    name: str  # what the ledger records: the player's name, or "GM"
    campaign_id: int


_WHOAMI = text("SELECT role_name, player_name, is_gm, revoked_at, campaign_id FROM group_roles "
               "WHERE role_name = session_user")


def identity(session: Session) -> Identity | None:
    """The group-mode identity of this connection's login role, or None (single-GM mode)."""
    if session.get_bind().dialect.name != "postgresql":
        return None
    row = session.execute(_WHOAMI).first()
    if row is None:
        return None
    kind = "revoked" if row.revoked_at else "gm" if row.is_gm else "player"
    return Identity(row.role_name, kind, row.player_name, row.campaign_id)


def signed_in(db: Database) -> Identity | None:
    if db.dialect != "postgresql":
        return None
    with db.read() as session:
        return identity(session)


class OnBehalf(str):
    """The GM's name, remembering for whom the GM acts (`--as X` on the GM's role):
    the ledger records actor "GM" with detail.on_behalf_of X, so the chain says who
    really typed the command."""

    on_behalf_of: str

    def __new__(cls, actor: str, on_behalf_of: str) -> OnBehalf:
        made = super().__new__(cls, actor)
        made.on_behalf_of = on_behalf_of
        return made


def acting_name(db: Database, requested: str | None) -> str:
    """The actor to record: `--as` in single-GM mode; in group mode the signed-in role's
    player (a player's `--as` someone else is refused), or the GM, acting on behalf of
    `--as X` when given."""
    who = signed_in(db)
    if who is None:
        return requested or GM_NAME
    if who.kind == "revoked":
        raise RuleRefused(f"group mode: role {who.role} was revoked")
    if who.kind == "player":
        if requested not in (None, who.name):
            raise RuleRefused(f"group mode: you are signed in as {who.name}; only the GM's role may use --as")
        return who.name
    if requested in (None, GM_NAME):
        return GM_NAME
    return OnBehalf(GM_NAME, requested)


# --- setting roles up


def _slug(value: str, limit: int) -> str:
    """A stable ASCII identifier part; a name that is not already one gets a short hash."""
    slug = re.sub(r"[^a-z0-9]+", "_", value.lower()).strip("_")[:limit]
    if slug != value:
        slug = f"{slug}_{hashlib.sha256(value.encode()).hexdigest()[:6]}".strip("_")
    return slug or "db"


def role_prefix(database_name: str) -> str:
    """Roles are cluster-wide: names carry the database so two databases never share one."""
    return f"campaign_{_slug(database_name, 24)}"


def _names(session: Session, campaign: Campaign) -> dict[str, str]:
    database = session.execute(text("SELECT current_database()")).scalar_one()
    prefix = role_prefix(database)
    return {"players": f"{prefix}_players", "gms": f"{prefix}_gms", "gm": f"{prefix}_{campaign.id}_gm",
            "player": f"{prefix}_{campaign.id}_p{{id}}", "database": database}


def _raw(session: Session):
    """The psycopg connection under the session, in the session's transaction."""
    return session.connection().connection.dbapi_connection


def _execute(session: Session, statement, params: tuple = ()) -> list[tuple]:
    with _raw(session).cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


def _role_exists(session: Session, role: str) -> bool:
    return bool(_execute(session, "SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)))


def _require_owner(session: Session) -> None:
    who = identity(session)
    if who is not None:
        raise RuleRefused(f"group setup is for the database owner, not for the group role {who.role}")


def _grant_groups(session: Session, names: dict[str, str]) -> None:
    """(Re)grant the two group roles their rights; idempotent, so setup can run again
    after an upgrade adds a table."""
    from psycopg import sql

    schema = session.execute(text("SELECT current_schema()")).scalar_one()
    players, gms = sql.Identifier(names["players"]), sql.Identifier(names["gms"])
    for group in (names["players"], names["gms"]):
        if not _role_exists(session, group):
            _execute(session, sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(group)))

    def table(name: str):
        return sql.Identifier(schema, name)

    statements = [
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}, {}").format(sql.Identifier(names["database"]), players, gms),
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}, {}").format(sql.Identifier(schema), players, gms),
    ]
    for name in CAMPAIGN_TABLES + READ_ONLY_TABLES:
        statements.append(sql.SQL("GRANT SELECT ON {} TO {}, {}").format(table(name), players, gms))
    for name in ("ledger",) + READ_ONLY_TABLES:
        # Nobody but the owner changes or removes ledger rows (the triggers refuse too).
        statements.append(sql.SQL("REVOKE UPDATE, DELETE, TRUNCATE ON {} FROM {}, {}").format(
            table(name), players, gms))
    for name in CAMPAIGN_TABLES:
        if name != "ledger":
            statements.append(sql.SQL("GRANT INSERT, UPDATE, DELETE ON {} TO {}").format(table(name), gms))
    statements.append(sql.SQL("GRANT INSERT ON {} TO {}").format(table("ledger"), gms))
    for name in GM_ONLY_TABLES:
        statements.append(sql.SQL("REVOKE ALL ON {} FROM {}").format(table(name), players))
        statements.append(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(table(name), gms))
    for name in GM_WRITES_ALL_READ:
        statements.append(sql.SQL("GRANT SELECT ON {} TO {}, {}").format(table(name), players, gms))
        statements.append(sql.SQL("GRANT INSERT ON {} TO {}").format(table(name), gms))
    for name, privileges in PLAYER_WRITES.items():
        statements.append(sql.SQL("GRANT {} ON {} TO {}").format(
            sql.SQL(", ").join(sql.SQL(p) for p in privileges), table(name), players))
    for name, columns in PLAYER_COLUMN_UPDATES.items():
        statements.append(sql.SQL("GRANT UPDATE ({}) ON {} TO {}").format(
            sql.SQL(", ").join(sql.Identifier(c) for c in columns), table(name), players))
    statements.append(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}, {}").format(
        sql.Identifier(schema), players, gms))
    for statement in statements:
        _execute(session, statement)


def _create_login(session: Session, role: str, group: str) -> str:
    from psycopg import sql

    if _role_exists(session, role):
        raise RuleRefused(f"a database role named {role} already exists (left over from another setup?); "
                          f"drop it or choose another database")
    password = secrets.token_urlsafe(18)
    _execute(session, sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {}").format(
        sql.Identifier(role), sql.Literal(password), sql.Identifier(group)))
    return password


def _reenable(session: Session, mapping: GroupRole, group: str) -> str:
    from psycopg import sql

    password = secrets.token_urlsafe(18)
    _execute(session, sql.SQL("ALTER ROLE {} LOGIN PASSWORD {}").format(
        sql.Identifier(mapping.role_name), sql.Literal(password)))
    _execute(session, sql.SQL("GRANT {} TO {}").format(sql.Identifier(group), sql.Identifier(mapping.role_name)))
    mapping.revoked_at = None
    return password


def _login_url(db: Database, role: str, password: str) -> str:
    from sqlalchemy.engine import make_url

    url = make_url(db.url).set(drivername="postgresql", username=role, password=password)
    return url.render_as_string(hide_password=False)


@dataclass(frozen=True, slots=True)
class IssuedRole:
    """A login role just made (or reopened): its password is shown this once."""

    role: str
    player: str
    kind: str  # "gm" or "player"
    password: str
    url: str


@dataclass(frozen=True, slots=True)
class GroupSetUp:
    campaign: str
    database: str
    roles: tuple[IssuedRole, ...]


@dataclass(frozen=True, slots=True)
class RolesIssued:
    """`group add-player`: the one role issued."""

    campaign: str
    roles: tuple[IssuedRole, ...]


@dataclass(frozen=True, slots=True)
class RoleRevoked:
    role: str
    player: str
    revoked_at: str


@dataclass(frozen=True, slots=True)
class RoleStatus:
    """A role as the database reports it: may it log in, and its privileges per table."""

    role: str
    player: str
    kind: str
    login: bool
    revoked_at: str | None
    rights: dict[str, list[str]]


@dataclass(frozen=True, slots=True)
class GroupStatus:
    campaign: str
    roles: tuple[RoleStatus, ...]


@dataclass(frozen=True, slots=True)
class VoidRequested:
    """A player's `history void` in group mode: a request entry for the GM to approve."""

    seq: int
    kind: str  # "void_request"
    requested_void: int
    reason: str | None


def _issued(db: Database, mapping: GroupRole, password: str) -> IssuedRole:
    return IssuedRole(role=mapping.role_name, player=mapping.player_name, kind="gm" if mapping.is_gm else "player",
                      password=password, url=_login_url(db, mapping.role_name, password))


def _map(session: Session, campaign: Campaign, role: str, player: Player | None) -> GroupRole:
    mapping = GroupRole(role_name=role, campaign_id=campaign.id, player_id=player.id if player else None,
                        player_name=player.name if player else GM_NAME, is_gm=player is None,
                        created_at=ledger.utc_now(), revoked_at=None)
    session.add(mapping)
    return mapping


def setup(db: Database, campaign_name: str | None) -> GroupSetUp:
    """Create the GM's role and one per player that has none yet; returns the new
    roles with their passwords (shown once: only a hash is kept, by PostgreSQL)."""
    require_postgres(db)
    with db.write() as session:
        _require_owner(session)
        campaign = campaign_named(session, campaign_name)
        names = _names(session, campaign)
        _grant_groups(session, names)
        mapped = {m.role_name: m for m in session.scalars(
            select(GroupRole).where(GroupRole.campaign_id == campaign.id))}
        issued = []
        if names["gm"] not in mapped:
            issued.append(_issued(db, _map(session, campaign, names["gm"], None),
                                  _create_login(session, names["gm"], names["gms"])))
        players = session.scalars(select(Player).where(Player.campaign_id == campaign.id).order_by(Player.id)).all()
        for player in players:
            role = names["player"].format(id=player.id)
            if role not in mapped:
                issued.append(_issued(db, _map(session, campaign, role, player),
                                      _create_login(session, role, names["players"])))
        session.flush()
        return GroupSetUp(campaign=campaign.name, database=names["database"], roles=tuple(issued))


def add_player(db: Database, campaign_name: str | None, name: str) -> RolesIssued:
    """A login role for one player (added with `player add` first, or made here); a
    revoked player's role is opened again with a new password."""
    require_postgres(db)
    name = clean_name(name, "player")
    with db.read() as session:
        _require_owner(session)
        campaign = campaign_named(session, campaign_name)
        exists = session.scalar(select(Player.id).where(Player.campaign_id == campaign.id, Player.name == name))
    if exists is None:
        from campaign.services.characters import add_player as add_player_entry

        add_player_entry(db, campaign_name, name, GM_NAME)
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        names = _names(session, campaign)
        if session.scalar(select(GroupRole).where(GroupRole.campaign_id == campaign.id, GroupRole.is_gm)) is None:
            raise RuleRefused("group mode is not set up for this campaign: run `campaign group setup` first")
        player = session.scalar(select(Player).where(Player.campaign_id == campaign.id, Player.name == name))
        mapping = session.scalar(select(GroupRole).where(GroupRole.player_id == player.id))
        if mapping is not None and mapping.revoked_at is None:
            raise RuleRefused(f"player {name!r} already has the role {mapping.role_name}")
        if mapping is not None:
            password = _reenable(session, mapping, names["players"])
        else:
            role = names["player"].format(id=player.id)
            mapping = _map(session, campaign, role, player)
            password = _create_login(session, role, names["players"])
        session.flush()
        return RolesIssued(campaign=campaign.name, roles=(_issued(db, mapping, password),))


def revoke(db: Database, campaign_name: str | None, name: str) -> RoleRevoked:
    """Take a player's (or the GM's: NAME "GM") login away. The role and its mapping
    stay, so the ledger's actors still resolve; a revoked role can do nothing."""
    from psycopg import sql

    require_postgres(db)
    name = clean_name(name, "player")
    with db.write() as session:
        _require_owner(session)
        campaign = campaign_named(session, campaign_name)
        names = _names(session, campaign)
        mapping = session.scalar(select(GroupRole).where(GroupRole.campaign_id == campaign.id,
                                                         GroupRole.player_name == name))
        if mapping is None:
            raise NotFound(f"no group role for {name!r} in campaign {campaign.name!r}")
        if mapping.revoked_at is not None:
            raise RuleRefused(f"the role of {name!r} ({mapping.role_name}) is already revoked")
        group = names["gms"] if mapping.is_gm else names["players"]
        _execute(session, sql.SQL("ALTER ROLE {} NOLOGIN").format(sql.Identifier(mapping.role_name)))
        _execute(session, sql.SQL("REVOKE {} FROM {}").format(sql.Identifier(group),
                                                             sql.Identifier(mapping.role_name)))
        mapping.revoked_at = ledger.utc_now()
        session.flush()
        return RoleRevoked(role=mapping.role_name, player=name, revoked_at=mapping.revoked_at)


_PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE")


def status(db: Database, campaign_name: str | None) -> GroupStatus:
    """Every role of the campaign, whether it may log in, and its rights per table as
    the database reports them (has_table_privilege), not as this code intends them."""
    require_postgres(db)
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        schema = session.execute(text("SELECT current_schema()")).scalar_one()
        roles = []
        for mapping in session.scalars(select(GroupRole).where(GroupRole.campaign_id == campaign.id)
                                       .order_by(GroupRole.is_gm.desc(), GroupRole.player_name)):
            login = session.execute(text("SELECT rolcanlogin FROM pg_roles WHERE rolname = :r"),
                                    {"r": mapping.role_name}).scalar()
            rights = {}
            for table in CAMPAIGN_TABLES:
                granted = [p for p in _PRIVILEGES if session.execute(
                    text("SELECT has_table_privilege(:r, :t, :p) OR (:p = 'UPDATE' AND "
                         "has_any_column_privilege(:r, :t, 'UPDATE'))"),
                    {"r": mapping.role_name, "t": f'"{schema}"."{table}"', "p": p}).scalar()] if login is not None else []
                rights[table] = granted
            roles.append(RoleStatus(role=mapping.role_name, player=mapping.player_name,
                                    kind="gm" if mapping.is_gm else "player", login=bool(login),
                                    revoked_at=mapping.revoked_at, rights=rights))
        return GroupStatus(campaign=campaign.name, roles=tuple(roles))


# --- void requests


def request_void(db: Database, campaign_name: str | None, actor: str, seq: int, reason: str) -> VoidRequested:
    """A player may not void; their `history void` appends a void request for the GM."""
    from campaign.services.common import campaign_transaction, clean_text

    reason = clean_text(reason, "--reason")
    with campaign_transaction(db, campaign_name) as (session, campaign):
        target = session.execute(text("SELECT kind FROM ledger WHERE campaign_id = :c AND seq = :s"),
                                 {"c": campaign.id, "s": seq}).first()
        if target is None:
            raise NotFound(f"no entry #{seq} in campaign {campaign.name!r}")
        if target.kind in ("void", "void_request"):
            raise RuleRefused(f"entry #{seq} is a {target.kind}: only the GM can take it back")
        appended = ledger.append(session, campaign, actor, ledger.NewEntry(
            kind="void_request", reason=reason, detail={"requested_void": seq}, voidable=False))
        return VoidRequested(seq=appended.seq, kind="void_request", requested_void=seq, reason=reason)


def approve(db: Database, campaign_name: str | None, actor: str, seq: int, *,
            cascade: bool = False) -> VoidApproved:
    """The GM grants void request SEQ: the requested entry is voided (an ordinary void
    entry whose reason names the request)."""
    import json

    from campaign.services.results import extended
    from campaign.services.voids import VoidApproved, void

    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        who = identity(session)
        row = session.execute(text("SELECT kind, record FROM ledger WHERE campaign_id = :c AND seq = :s"),
                              {"c": campaign.id, "s": seq}).first()
    if who is not None and who.kind != "gm":
        raise RuleRefused("group mode: only the GM's role approves void requests")
    if row is None:
        raise NotFound(f"no entry #{seq} in campaign {campaign.name!r}")
    if row.kind != "void_request":
        raise RuleRefused(f"entry #{seq} is a {row.kind}, not a void request")
    record = json.loads(row.record)
    target = record["detail"]["requested_void"]
    voided = void(db, campaign_name, actor, target,
                  f"approved void request #{seq} by {record['actor']}: {record.get('reason') or ''}".strip(),
                  cascade=cascade)
    return extended(VoidApproved, voided, request=seq)
