"""The `campaign` command: global options, error handling, and the sub-apps.

Commands only translate: parse options, call one service, render. Expected errors
(CampaignError) become one line on stderr with exit 1 or 2, never a traceback.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from campaign import __version__
from campaign.cli import helptext
from campaign.cli.context import AppState
from campaign.errors import CampaignError

if TYPE_CHECKING:
    from typer import _click  # the Click that Typer vendors (its Context, Command, errors)

helptext.install()  # help paragraphs reflow; options show CHAR / N, flags no <bool>


class CampaignGroup(TyperGroup):
    """The root group, lazy in Click's documented way: list_commands names every entry
    of COMMANDS (in its order), get_command builds one on first use and keeps it."""

    def list_commands(self, ctx: _click.Context) -> list[str]:
        return [*COMMANDS, *(name for name in self.commands if name not in COMMANDS)]

    def get_command(self, ctx: _click.Context, name: str) -> _click.Command | None:
        if name in COMMANDS and name not in self.commands:
            for loaded, command in _load(name).items():
                self.commands.setdefault(loaded, command)
        return self.commands.get(name)

    def resolve_command(
        self, ctx: _click.Context, args: list[str]
    ) -> tuple[str | None, _click.Command | None, list[str]]:
        """Typer's own suggestions read only the commands built so far (the app turns them
        off): "Did you mean ...?" here is chosen from every name list_commands gives."""
        from difflib import get_close_matches

        try:
            return super().resolve_command(ctx, args)
        except typer.TyperException as exc:  # Click's UsageError: "No such command 'histroy'."
            from campaign.i18n import _

            matches = get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if args and exc.message == f"No such command {args[0]!r}.":  # Click's words, in the output's language
                exc.message = _("No such command {name!r}.").format(name=args[0])
            if matches:
                exc.message = _("{message} Did you mean {names}?").format(
                    message=exc.message, names=", ".join(repr(m) for m in matches)
                )
            raise

    def main(self, args: Sequence[str] | None = None, *more: Any, **options: Any) -> Any:
        # Bytes that are not UTF-8 arrive as lone surrogates (surrogateescape) and
        # could not be stored or hashed: refuse them before anything runs.
        args = list(sys.argv[1:] if args is None else args)
        for arg in args:
            try:
                arg.encode("utf-8")
            except UnicodeEncodeError:
                from campaign.i18n import _

                _error(_("an argument is not valid UTF-8 text: {arg!r}").format(arg=arg))
                sys.exit(2)
        args = [half_width_number(arg) for arg in args]
        from campaign import i18n
        from campaign.cli.actor import hoist_actor

        try:
            i18n.begin(None)  # CAMPAIGN_LANG, else decided later; --lang (eager) then overrides it
            args = hoist_actor(args)  # `campaign roll ... --as Aki` = `campaign --as Aki roll ...`
        except CampaignError as exc:
            _error(exc)
            sys.exit(exc.exit_code)
        if options.get("standalone_mode", True) is False:
            return super().main(args, *more, **options)
        return _one_line_usage_errors(
            lambda: super(CampaignGroup, self).main(args, *more, **{**options, "standalone_mode": False})
        )

    def invoke(self, ctx: _click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CampaignError as exc:
            _error(exc)
            raise typer.Exit(exc.exit_code) from None
        except Exception as exc:
            refusal = _database_refusal(exc)
            if refusal is not None:
                from campaign.i18n import _

                _error(_("refused by the database: {refusal}").format(refusal=refusal))
                raise typer.Exit(1) from None
            message = _environment_error(exc, getattr(ctx.obj, "db_option", None))
            if message is None:
                raise
            _error(message)
            raise typer.Exit(1) from None


_NUMBER_LIKE = re.compile(r"[+-]?\d+(\.\d+)?|\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?|[+-]?\d+[a-z]*")
_MINUS = str.maketrans({"\u2212": "-", "\u2012": "-", "\u2013": "-", "\u30fc": "-"})


def half_width_number(arg: str) -> str:
    """`－２`, `＋３`, `２０２６－１２－０２` as ココフォリア users type them (a Japanese IME
    writes full-width forms): the ASCII form when NFKC makes the argument a number, a
    date or a span (`１ｈ`); any other argument (a name, free text) is kept exactly as typed."""
    if arg.isascii():
        return arg
    if arg.startswith("--") and "=" in arg:  # --mod=－２
        option, _sep, value = arg.partition("=")
        return f"{option}={half_width_number(value)}"
    folded = unicodedata.normalize("NFKC", arg).translate(_MINUS).strip()
    return folded if folded.isascii() and _NUMBER_LIKE.fullmatch(folded) else arg


def _one_line_usage_errors(run: Callable[[], object]) -> None:
    """Run the command line as Click's standalone mode would, except that a usage error
    (an unknown option, a missing argument, a value of the wrong type) is one line on
    stderr with exit 2, as every other error is, not Typer's boxed panel."""
    from typer._click import exceptions as click  # the Click that Typer vendors and raises
    from typer.exceptions import Abort

    try:
        code = run()
    except click.NoArgsIsHelpError as exc:  # `campaign char`: the noun's help
        exc.show()
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        _error(usage_line(exc))
        sys.exit(exc.exit_code)
    except Abort:
        from campaign.i18n import _

        sys.stderr.write(_("aborted") + "\n")
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


def usage_line(exc: _click.ClickException) -> str:
    """A usage error's message (in the output's language: cli.usage_words), and where the
    command's help is."""
    from campaign.cli.usage_words import usage_message

    message = usage_message(exc)
    ctx = getattr(exc, "ctx", None)
    if ctx is not None and ctx.command.get_help_option(ctx) is not None:
        from campaign.i18n import _

        message = _("{message} (see `{command} --help`)").format(message=message.rstrip("."), command=ctx.command_path)
    return message


def _error(message: BaseException | str) -> None:
    """The one line of an error: user text in it (a name, a URL) can neither break the
    line nor send control sequences to the terminal."""
    from campaign.cli.output import safe_line
    from campaign.i18n import _
    from campaign.refusal_words import refusal_text

    sys.stderr.write(_("error: {message}").format(message=safe_line(refusal_text(message))) + "\n")


def _environment_error(exc: Exception, db_option: str | None = None) -> str | None:
    """One line for a failure of the machine rather than of the program: a full disk, a
    file size limit, a read-only or vanished file system, a lost database server. Such a
    command changed nothing (its transaction rolled back), and a traceback would only
    hide the one fact the user needs. Anything else is a bug and keeps its traceback."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (
        errno.ENOSPC,
        errno.EFBIG,
        errno.EDQUOT,
        errno.EROFS,
        errno.EIO,
        errno.EACCES,
        errno.EPERM,
    ):
        where = f": {exc.filename}" if exc.filename else ""
        from campaign.i18n import _

        return _("{problem}; nothing was changed").format(problem=f"{exc.strerror}{where}")
    sa_exc = sys.modules.get("sqlalchemy.exc")  # loaded only if a database was opened
    if sa_exc is not None and isinstance(exc, sa_exc.DBAPIError):  # PostgreSQL: its disk full, no writes taken
        from campaign.db.storage import server_trouble

        trouble = server_trouble(exc)
        if trouble is not None:
            return trouble
    if sa_exc is not None and isinstance(exc, sa_exc.OperationalError):
        if getattr(exc.orig, "sqlite_errorname", None):  # SQLite: a full disk or a read-only file, said so
            from campaign.db.engine import resolve_url, sqlite_path
            from campaign.db.storage import machine_trouble

            try:
                path = sqlite_path(resolve_url(db_option))
            except CampaignError:
                path = None
            trouble = machine_trouble(path, exc)
            if trouble is not None:
                return trouble
        first = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else type(exc.orig).__name__
        from campaign.i18n import _

        return _("the database failed: {problem}; nothing was changed").format(problem=first)
    return None


def _database_refusal(exc: Exception) -> str | None:
    """The first line of a PostgreSQL permission refusal (SQLSTATE 42501: a grant, a
    row-level security policy or the group-mode actor trigger), else None. In group mode
    the database, not this client, decides what a role may do; its "no" is a refusal."""
    original = getattr(exc, "orig", None)
    if getattr(original, "sqlstate", None) != "42501":
        return None
    return str(original).splitlines()[0]


app = typer.Typer(
    cls=CampaignGroup,
    name="campaign",
    help="A campaign manager for tabletop RPG groups: characters, fright checks, missing "
    "characters and search parties, with every roll in a tamper-evident ledger.\n\n"
    "Example: campaign init 'Night Parade' && campaign roll 3D6<=12",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    add_completion=False,
    suggest_commands=False,  # CampaignGroup.resolve_command suggests from every command
)


def _language(value: str | None) -> str | None:
    """--lang, read before --help prints (both are eager, in the order typed)."""
    if value is not None:
        from campaign import i18n

        try:
            i18n.begin(value)
        except CampaignError as exc:
            _error(exc)
            raise typer.Exit(exc.exit_code) from None
    return value


def _version(value: bool) -> None:
    if value:
        print(f"campaign {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar="CAMPAIGN_DB",
            help="Database file path or SQLAlchemy URL "
            "(postgresql+psycopg://...). Default: a file in your user data directory.",
        ),
    ] = None,
    campaign: Annotated[
        str | None,
        typer.Option(
            "--campaign", "-c", envvar="CAMPAIGN", help="Campaign to act on (default: the one chosen with `use`)."
        ),
    ] = None,
    actor: Annotated[
        str | None,
        typer.Option(
            "--as",
            envvar="CAMPAIGN_ACTOR",
            help="Who is acting, recorded in the ledger "
            "(default GM; in group mode the signed-in role decides, see `campaign group`).",
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            envvar="CAMPAIGN_SEED",
            hidden=True,
            help="Roll from a fixed seed (demos and tests only; recorded as 'seeded').",
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            metavar="ja|en",
            callback=_language,
            is_eager=True,
            help="The language of what is printed "
            "(default: the campaign's `lang` setting, else the locale, else its ruleset; "
            "or CAMPAIGN_LANG).",
        ),
    ] = None,
) -> None:
    """Global options come before the command: campaign --db group.db -c 'Night Parade' char list"""
    from campaign.services.common import clean_name

    try:
        actor = clean_name(actor, "--as") if actor is not None else None
    except CampaignError as exc:
        _error(exc)
        raise typer.Exit(exc.exit_code) from None
    ctx.obj = AppState(
        db_option=db,
        campaign_option=campaign,
        actor_option=actor,
        seed=seed,
        db_in_argv=db is not None and getattr(ctx.get_parameter_source("db"), "name", None) == "COMMANDLINE",
    )
    ctx.call_on_close(ctx.obj.close)


# Every top-level command: "module:attribute" in campaign.cli, one module per noun (a
# function is a command, a Typer named `app` a noun with its verbs). A module
# is imported, and its click commands built, only when one of its commands runs or help
# lists them, so `campaign roll` never pays for the scenario, check or demo modules.
# The order is the order `campaign --help` lists them in. Add new commands here.
COMMANDS = {
    "init": "campaign:init",
    "use": "campaign:use",
    "list": "campaign:list_",
    "settings": "campaign:settings",
    "roll": "roll:roll",
    "history": "history:app",
    "proof": "proof:app",
    "fair": "fair:app",
    "stats": "stats:stats",
    "luck": "stats:stats",
    "player": "player:app",
    "char": "char:app",
    "award": "award:award",
    "db": "db:app",
    "check": "check:app",
    "missing": "missing:app",
    "scenario": "scenario:app",
    "export": "transfer:export",
    "import": "transfer:import_",
    "import-log": "ccfolia:import_log",
    "fright": "fright:fright",
    "table": "table:app",
    "ref": "ref:app",
    "trait": "trait:app",
    "skill": "skill:app",
    "condition": "condition:app",
    "group": "group:app",
    "time": "time:app",
    "serve": "serve:serve",
    "invite": "invite:app",
    "call": "call:app",
    "requests": "requests:app",
    "shell": "shell:shell",
    "demo": "demo:demo",
}


def _load(name: str) -> dict[str, _click.Command]:
    """The click command(s) that COMMANDS[name] defines, built on a scratch Typer."""
    import importlib

    import typer.main

    module_name, _, attribute = COMMANDS[name].partition(":")
    module = importlib.import_module(f"campaign.cli.{module_name}")
    scratch = typer.Typer()
    if isinstance(getattr(module, attribute), typer.Typer):
        scratch.add_typer(getattr(module, attribute), name=name)
    else:
        settings = getattr(getattr(module, attribute), "context_settings", None)  # e.g. award's -5
        scratch.command(name, context_settings=settings)(getattr(module, attribute))
    group = typer.main.get_group_from_info(
        typer.models.TyperInfo(scratch),
        pretty_exceptions_short=app.pretty_exceptions_short,
        rich_markup_mode=app.rich_markup_mode,
        suggest_commands=True,  # a noun's verbs are all built at once
    )
    return dict(group.commands)


def main() -> None:
    """The console script. Before the interpreter tears down, every object it holds moves to
    the garbage collector's permanent generation: shutdown then skips the full collections
    over the tens of thousands of objects that Typer, Rich and SQLAlchemy create at import,
    which otherwise cost a short command about a quarter of its run time (see
    docs/performance.md). Finalizers, atexit hooks and Click's close callbacks (which close
    the database, see context.AppState.close) all run as usual."""
    import gc

    gc.freeze()  # what the imports made lives until exit: no collection needs to walk it
    try:
        app()
    finally:
        gc.freeze()
