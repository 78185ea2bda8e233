"""Group mode (PostgreSQL only): the GM's database role, which the table server signs in as.

Players hold no database role (migration 0016): they join `campaign serve` with a
one-time invite and every write of theirs goes through the server's services, which
check the session, so nothing a player sends reaches SQL on their own authority. What
stays in the database is what no client may type past: the chain trigger (0010) refuses
a forged or malformed ledger row from any role, the actor trigger keeps the GM's role to
actor GM, and grants keep everyone but the owner from changing or removing ledger rows.

The owner makes the GM's role and its grants here. Role names are ASCII slugs of ids,
never of names, and every identifier and password reaches SQL through psycopg.sql.
Players whose roles 0016 removed are owed an invite: `setup` and `migrate_players`
issue them (services.table.invites), once.

SQLite has no roles: it stays single-GM mode, and every command here says so.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from campaign import ledger
from campaign.core.text_rule import GM_ACTOR
from campaign.db.database import Database
from campaign.db.models import Campaign, Player
from campaign.db.models_group import GroupRole
from campaign.errors import NotFound, RuleRefused
from campaign.i18n import N_, _
from campaign.services.common import campaign_named, clean_name

if TYPE_CHECKING:  # loaded when invites are issued
    from campaign.services.table.invites import Invited

GM_NAME = GM_ACTOR
# The GM's role reads these and writes none (the ledger: appends only, below).
READ_ONLY_TABLES = ("group_roles", "alembic_version")
# Appended, never changed: the triggers refuse UPDATE/DELETE too, for every role.
APPEND_ONLY_TABLES = ("ledger", "seal_heads")
# What 0010 narrowed for the players' group role then (its own tables as they were).
GM_ONLY_TABLES = ("secret_rolls", "fair_seeds", "web_invites", "web_sessions", "web_requests", "table_calls")
SINGLE_MODE = N_("group mode needs PostgreSQL: an SQLite database is single-GM mode (--as is self-declared there)")


def require_postgres(db: Database) -> None:
    if db.dialect != "postgresql":
        raise RuleRefused(_(SINGLE_MODE))


# --- who is signed in


@dataclass(frozen=True)
class Identity:
    role: str
    kind: str  # "gm" or "revoked"
    name: str  # what the ledger records: "GM"
    campaign_id: int


_WHOAMI = text(
    "SELECT role_name, player_name, is_gm, revoked_at, campaign_id FROM group_roles WHERE role_name = session_user"
)


def identity(session: Session) -> Identity | None:
    """The group-mode identity of this connection's login role, or None (single-GM mode)."""
    if session.get_bind().dialect.name != "postgresql":
        return None
    row = session.execute(_WHOAMI).first()
    if row is None:
        return None
    # A player's row is an invite owed since migration 0016 dropped its login role: only a
    # role made by hand under that name could sign in as it, and it may do nothing.
    kind = "gm" if row.is_gm and not row.revoked_at else "revoked"
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
    """The actor to record: `--as` in single-GM mode (and for the owner); on the GM's
    role the GM, acting on behalf of `--as X` when given. Players sign in to the table
    server, never to the database (migration 0016)."""
    who = signed_in(db)
    if who is None:
        return requested or GM_NAME
    if who.kind == "revoked":
        raise RuleRefused(_("group mode: role {role} was revoked").format(role=who.role))
    if requested in (None, GM_NAME):
        return GM_NAME
    return OnBehalf(GM_NAME, requested)


# --- setting the GM's role up


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
    """The NOLOGIN group roles of a database: `gms` holds the GM's grants; `players` is
    the one migrations 0010 narrowed and 0016 dropped."""
    prefix = role_prefix(database)
    return {"players": f"{prefix}_players", "gms": f"{prefix}_gms"}


def _names(session: Session, campaign: Campaign) -> dict[str, str]:
    database = session.execute(text("SELECT current_database()")).scalar_one()
    prefix = role_prefix(database)
    return {**group_role_names(database), "gm": f"{prefix}_{campaign.id}_gm", "database": database}


def _raw(session: Session) -> Any:
    """The psycopg connection under the session, in the session's transaction."""
    return session.connection().connection.dbapi_connection


def _execute(session: Session, statement: Any, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with _raw(session).cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


def _role_exists(session: Session, role: str) -> bool:
    return bool(_execute(session, "SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)))


def _require_owner(session: Session) -> None:
    who = identity(session)
    if who is not None:
        raise RuleRefused(
            _("group setup is for the database owner, not for the group role {role}").format(role=who.role)
        )


def schema_tables(session: Session) -> list[str]:
    """Every table of the schema as the database has it (new tables of later revisions
    included: the server needs them all)."""
    return list(
        session.execute(
            text("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
        ).scalars()
    )


def _grant_gms(session: Session, names: dict[str, str]) -> None:
    """(Re)grant the GM's group role what the table server does; idempotent, so setup
    can run again after an upgrade adds a table."""
    from psycopg import sql

    schema = session.execute(text("SELECT current_schema()")).scalar_one()
    if not _role_exists(session, names["gms"]):
        _execute(session, sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(names["gms"])))
    for statement in gm_grant_statements(names["database"], schema, schema_tables(session), names["gms"]):
        _execute(session, statement)


def gm_grant_statements(database: str, schema: str, tables: list[str], gms: str) -> list[Any]:
    """The GM's group role's grants on `tables` (also run by migration 0016 for a group
    set up before the table server's tables existed): everything on the state and the
    server's tables, appends only on the ledger and seal heads, reads on the rest; and
    the narrowing of PUBLIC (narrowing_statements)."""
    from psycopg import sql

    role, schema_id = sql.Identifier(gms), sql.Identifier(schema)
    statements = [
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), role),
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(schema_id, role),
        sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}").format(schema_id, role),
    ]
    for name in tables:
        table = sql.Identifier(schema, name)
        if name in READ_ONLY_TABLES + APPEND_ONLY_TABLES:
            # Nobody but the owner changes or removes these rows (the triggers refuse too).
            statements.append(sql.SQL("REVOKE UPDATE, DELETE, TRUNCATE ON {} FROM {}").format(table, role))
            privileges = "SELECT" if name in READ_ONLY_TABLES else "SELECT, INSERT"
        else:
            privileges = "SELECT, INSERT, UPDATE, DELETE"
        statements.append(sql.SQL(f"GRANT {privileges} ON {{}} TO {{}}").format(table, role))
    return statements + narrowing_statements(database, schema, None)


def narrowing_statements(
    database: str, schema: str, players: str | None, gm_only: tuple[str, ...] | None = None
) -> list[Any]:
    """What takes write access away where group mode once gave it: PUBLIC's TEMPORARY
    on the database and CREATE on the schema, so no role but the owner makes objects
    that could stand in for ours (the helpers pin search_path too, migration 0010), and
    for migration 0010 every write grant of the players' group role (table and column
    grants, sequences, `gm_only`: the GM's own tables as they stood then)."""
    from psycopg import sql

    schema_id = sql.Identifier(schema)
    statements = [
        sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM PUBLIC").format(sql.Identifier(database)),
        sql.SQL("REVOKE CREATE ON SCHEMA {} FROM PUBLIC").format(schema_id),
    ]
    if players is not None:
        role = sql.Identifier(players)
        statements += [
            sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM {}").format(sql.Identifier(database), role),
            sql.SQL(
                "REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA {} FROM {}"
            ).format(schema_id, role),
            sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA {} FROM {}").format(schema_id, role),
            sql.SQL("REVOKE ALL ON {} FROM {}").format(
                sql.SQL(", ").join(sql.Identifier(schema, name) for name in gm_only or GM_ONLY_TABLES), role
            ),
        ]
    return statements


def _create_login(session: Session, role: str, group: str) -> str:
    from psycopg import sql

    if _role_exists(session, role):
        raise RuleRefused(
            _(
                "a database role named {role} already exists (left over from another setup?); drop it or choose "
                "another database"
            ).format(role=role)
        )
    password = secrets.token_urlsafe(18)
    _execute(
        session,
        sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE {}").format(
            sql.Identifier(role), sql.Literal(password), sql.Identifier(group)
        ),
    )
    return password


def _reenable(session: Session, mapping: GroupRole, group: str) -> str:
    from psycopg import sql

    password = secrets.token_urlsafe(18)
    _execute(
        session,
        sql.SQL("ALTER ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(mapping.role_name), sql.Literal(password)),
    )
    _execute(session, sql.SQL("GRANT {} TO {}").format(sql.Identifier(group), sql.Identifier(mapping.role_name)))
    mapping.revoked_at = None
    return password


def _login_url(db: Database, role: str, password: str) -> str:
    from sqlalchemy.engine import make_url

    url = make_url(db.url).set(drivername="postgresql", username=role, password=password)
    return url.render_as_string(hide_password=False)


@dataclass(frozen=True, slots=True)
class IssuedRole:
    """The GM's login role just made (or reopened): its password is shown this once."""

    role: str
    player: str
    kind: str  # "gm"
    password: str
    url: str


@dataclass(frozen=True, slots=True)
class GroupSetUp:
    """`group setup`: the GM's role if new, and the invites owed to players whose
    database roles migration 0016 removed (each link shown this once)."""

    campaign: str
    database: str
    roles: tuple[IssuedRole, ...]
    invites: tuple[Invited, ...]


@dataclass(frozen=True, slots=True)
class PlayersMigrated:
    """`group migrate-players`: one invite per former player role, shown once."""

    campaign: str
    invites: tuple[Invited, ...]


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
    # Players whose database role migration 0016 removed and who have no invite yet.
    owed_invites: tuple[str, ...]


def _issued(db: Database, mapping: GroupRole, password: str) -> IssuedRole:
    return IssuedRole(
        role=mapping.role_name,
        player=mapping.player_name,
        kind="gm",
        password=password,
        url=_login_url(db, mapping.role_name, password),
    )


def _owed(session: Session, campaign: Campaign) -> list[GroupRole]:
    """Former players' mappings (migration 0016 dropped their roles): invites owed."""
    return list(
        session.scalars(
            select(GroupRole)
            .where(GroupRole.campaign_id == campaign.id, GroupRole.is_gm.is_(False))
            .order_by(GroupRole.player_name)
        )
    )


def setup(db: Database, campaign_name: str | None) -> GroupSetUp:
    """Create the GM's (the server's) login role if it has none and refresh its grants;
    returns the new role with its password (shown once: PostgreSQL keeps only a hash),
    and an invite for each player whose role migration 0016 removed."""
    require_postgres(db)
    with db.write() as session:
        _require_owner(session)
        campaign = campaign_named(session, campaign_name)
        names = _names(session, campaign)
        _grant_gms(session, names)
        gm = session.get(GroupRole, names["gm"])
        issued = []
        if gm is None:
            gm = GroupRole(
                role_name=names["gm"],
                campaign_id=campaign.id,
                player_id=None,
                player_name=GM_NAME,
                is_gm=True,
                created_at=ledger.utc_now(),
                revoked_at=None,
            )
            session.add(gm)
            issued.append(_issued(db, gm, _create_login(session, names["gm"], names["gms"])))
        invites = _issue_owed(session, campaign)
        session.flush()
        return GroupSetUp(campaign=campaign.name, database=names["database"], roles=tuple(issued), invites=invites)


def _issue_owed(session: Session, campaign: Campaign) -> tuple[Invited, ...]:
    """An invite per owed mapping; the mapping goes in the transaction that stores the
    invite, so each former player is given one once and none is lost."""
    from campaign.services.table.invites import issue_invite

    invites = []
    for mapping in _owed(session, campaign):
        player = session.get(Player, mapping.player_id) if mapping.player_id is not None else None
        invites.append(issue_invite(session, campaign, player if player is not None else mapping.player_name))
        session.delete(mapping)
    return tuple(invites)


def migrate_players(db: Database, campaign_name: str | None) -> PlayersMigrated:
    """An invite for each player whose database role migration 0016 removed."""
    require_postgres(db)
    with db.write() as session:
        campaign = campaign_named(session, campaign_name)
        invites = _issue_owed(session, campaign)
        session.flush()
        return PlayersMigrated(campaign=campaign.name, invites=invites)


PLAYERS_HAVE_NO_ROLE = (
    "players have no database role since migration 0016: they join the table server "
    "with `campaign invite {name}` (revoke one with `campaign invite revoke {name}`)"
)


def revoke(db: Database, campaign_name: str | None, name: str) -> RoleRevoked:
    """Take the GM's role's login away (NAME "GM"). Its mapping stays, so a revoked role
    still connected is refused by the actor trigger; players have no role to revoke."""
    from psycopg import sql

    require_postgres(db)
    name = clean_name(name, "player")
    if name != GM_NAME:
        raise RuleRefused(PLAYERS_HAVE_NO_ROLE.format(name=name))
    with db.write() as session:
        _require_owner(session)
        campaign = campaign_named(session, campaign_name)
        names = _names(session, campaign)
        mapping = session.scalar(select(GroupRole).where(GroupRole.campaign_id == campaign.id, GroupRole.is_gm))
        if mapping is None:
            raise NotFound(_("no group role for {name!r} in campaign {name2!r}").format(name=name, name2=campaign.name))
        if mapping.revoked_at is not None:
            raise RuleRefused(
                _("the role of {name!r} ({role_name}) is already revoked").format(
                    name=name, role_name=mapping.role_name
                )
            )
        _execute(session, sql.SQL("ALTER ROLE {} NOLOGIN").format(sql.Identifier(mapping.role_name)))
        _execute(
            session,
            sql.SQL("REVOKE {} FROM {}").format(sql.Identifier(names["gms"]), sql.Identifier(mapping.role_name)),
        )
        mapping.revoked_at = ledger.utc_now()
        session.flush()
        return RoleRevoked(role=mapping.role_name, player=name, revoked_at=mapping.revoked_at)


def reopen(db: Database, campaign_name: str | None) -> GroupSetUp:
    """The revoked GM's role opened again with a new password."""
    require_postgres(db)
    with db.write() as session:
        _require_owner(session)
        campaign = campaign_named(session, campaign_name)
        names = _names(session, campaign)
        mapping = session.scalar(select(GroupRole).where(GroupRole.campaign_id == campaign.id, GroupRole.is_gm))
        if mapping is None:
            raise RuleRefused(_("group mode is not set up for this campaign: run `campaign group setup` first"))
        if mapping.revoked_at is None:
            raise RuleRefused(_("the GM's role {role_name} is not revoked").format(role_name=mapping.role_name))
        issued = _issued(db, mapping, _reenable(session, mapping, names["gms"]))
        session.flush()
        return GroupSetUp(campaign=campaign.name, database=names["database"], roles=(issued,), invites=())


_PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE")


def status(db: Database, campaign_name: str | None) -> GroupStatus:
    """The campaign's roles, whether each may log in, and its rights per table as the
    database reports them (has_table_privilege), not as this code intends them; and
    the players still owed an invite."""
    require_postgres(db)
    with db.read() as session:
        campaign = campaign_named(session, campaign_name)
        schema = session.execute(text("SELECT current_schema()")).scalar_one()
        tables = schema_tables(session)
        roles = []
        for mapping in session.scalars(select(GroupRole).where(GroupRole.campaign_id == campaign.id, GroupRole.is_gm)):
            login = session.execute(
                text("SELECT rolcanlogin FROM pg_roles WHERE rolname = :r"), {"r": mapping.role_name}
            ).scalar()
            rights = {}
            for table in tables:
                granted = (
                    [
                        p
                        for p in _PRIVILEGES
                        if session.execute(
                            text("SELECT has_table_privilege(:r, :t, :p)"),
                            {"r": mapping.role_name, "t": f'"{schema}"."{table}"', "p": p},
                        ).scalar()
                    ]
                    if login is not None
                    else []
                )
                rights[table] = granted
            roles.append(
                RoleStatus(
                    role=mapping.role_name,
                    player=mapping.player_name,
                    kind="gm",
                    login=bool(login),
                    revoked_at=mapping.revoked_at,
                    rights=rights,
                )
            )
        owed = tuple(m.player_name for m in _owed(session, campaign))
        return GroupStatus(campaign=campaign.name, roles=tuple(roles), owed_invites=owed)
