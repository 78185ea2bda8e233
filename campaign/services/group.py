"""Group mode (PostgreSQL only): one database login role per player and one for the GM.

The roles, their grants and the role -> player table are made here, by the database
owner; what each role may then do is enforced by the database itself (the actor trigger
and the row-level security policies of migration 0007, the chain trigger and pinned
search_path of 0010), so a client cannot type its way past them. Since 0010 the GM's
role writes and players' roles only read (void requests: services.void_requests). Role names are ASCII slugs of ids, never of player names
(players may be Japanese), and every identifier and password reaches SQL through
psycopg.sql, never by string formatting.

SQLite has no roles: it stays single-GM mode, and every command here says so.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.db.database import Database
from campaign.db.models import Campaign, Player
from campaign.db.models_group import GroupRole
from campaign.errors import NotFound, RuleRefused
from campaign.services.common import campaign_named, clean_name

GM_NAME = "GM"
# Every table of a campaign; row-level security covers these (migration 0007).
CAMPAIGN_TABLES = ("campaigns", "players", "characters", "ledger", "relationships", "traits", "conditions",
                   "scenarios", "scenario_participants", "disappearances", "searches", "reunion_checks")
READ_ONLY_TABLES = ("group_roles", "alembic_version")
# Hidden results of secret rolls: the GM's role only (players see the commitment in the
# ledger and the result once a reveal entry appends it). Seal heads: everyone reads,
# the GM writes (only the GM seals).
GM_ONLY_TABLES = ("secret_rolls", "fair_seeds", "web_invites", "web_sessions", "web_requests", "table_calls")
GM_WRITES_ALL_READ = ("seal_heads",)
# Players' roles read and write nothing (migration 0010): every write of theirs could
# carry ops row-level security cannot see, and the table server (campaign serve) replaces
# them with writes through its own services. Until then a player reads.
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


def group_role_names(database: str) -> dict[str, str]:
    """The two NOLOGIN group roles of a database (migration 0010 narrows existing ones)."""
    prefix = role_prefix(database)
    return {"players": f"{prefix}_players", "gms": f"{prefix}_gms"}


def _names(session: Session, campaign: Campaign) -> dict[str, str]:
    database = session.execute(text("SELECT current_database()")).scalar_one()
    prefix = role_prefix(database)
    return {**group_role_names(database), "gm": f"{prefix}_{campaign.id}_gm",
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
        statements.append(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(table(name), gms))
    for name in GM_WRITES_ALL_READ:
        statements.append(sql.SQL("GRANT SELECT ON {} TO {}, {}").format(table(name), players, gms))
        statements.append(sql.SQL("GRANT INSERT ON {} TO {}").format(table(name), gms))
    statements.append(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}").format(sql.Identifier(schema), gms))
    statements += narrowing_statements(names["database"], schema, names["players"])
    for statement in statements:
        _execute(session, statement)


def narrowing_statements(database: str, schema: str, players: str | None,
                         gm_only: tuple[str, ...] | None = None) -> list:
    """What takes write access away where group mode once gave it: every write grant of
    the players' group role (table and column grants, sequences), and PUBLIC's TEMPORARY
    on the database and CREATE on the schema, so no role but the owner makes objects
    that could stand in for ours (the helpers pin search_path too, migration 0010).
    `gm_only` names the GM's own tables as they stand when a migration calls this
    (default: today's GM_ONLY_TABLES)."""
    from psycopg import sql

    schema_id = sql.Identifier(schema)
    statements = [sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM PUBLIC").format(sql.Identifier(database)),
                  sql.SQL("REVOKE CREATE ON SCHEMA {} FROM PUBLIC").format(schema_id)]
    if players is not None:
        role = sql.Identifier(players)
        statements += [
            sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM {}").format(sql.Identifier(database), role),
            sql.SQL("REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA {} "
                    "FROM {}").format(schema_id, role),
            sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA {} FROM {}").format(schema_id, role),
            sql.SQL("REVOKE ALL ON {} FROM {}").format(sql.SQL(", ").join(
                sql.Identifier(schema, name) for name in gm_only or GM_ONLY_TABLES), role),
        ]
    return statements


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
