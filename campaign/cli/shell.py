"""`campaign shell`: one process, one open database, for a whole session at the table.

A command run on its own pays the interpreter, the imports and opening the database
(~280 ms); at the table the GM types dozens of rolls in a row. The shell pays that once:
each line is run by the same command tree, inside the root context of the `campaign
[global options] shell` that started it, so every command shares its AppState (one
Database, one --campaign / --as) and nothing is imported twice. Readline (for Tab and
history) is imported only on a terminal, and only when `shell` runs.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperGroup

from campaign.cli.output import JsonOption
from campaign.i18n import _

if TYPE_CHECKING:
    from types import ModuleType

    from typer import _click  # the Click that Typer vendors

PROMPT = "campaign> "
LEAVE = ("exit", "quit")


def shell(
    ctx: typer.Context,
    json_out: JsonOption = False,
    timings: Annotated[
        str | None,
        typer.Option(
            "--timings",
            hidden=True,
            help="Write each command's wall and CPU time in ms, a line each, to this file (benchmarks).",
        ),
    ] = None,
) -> None:
    """A prompt that runs campaign commands on one open database, without start-up cost.

    Type commands as after `campaign`: roll 3D6<=12 --char 鈴音, fright 鈴音,
    history --char 鈴音 --json. Tab completes commands, options and character,
    player and table names; history is kept across sessions. Global options given
    before `shell` apply to every command; `as Aki` makes the following commands act as
    Aki (shown in the prompt; `as GM` switches back), `--as NAME` on a line acts for that
    line only. An error prints its line and the prompt
    continues; Ctrl-C cancels the line, Ctrl-D or `exit` leaves. With --json every
    command that can prints JSON. Off a terminal it reads one command per line from
    stdin and prints only their output; its exit status is the last command's.

    Example: campaign --db group.db -c 'Night Parade' shell
    """
    session = Session(ctx.find_root(), json_out=json_out)
    try:
        status = _interactive(session) if sys.stdin.isatty() else _scripted(session)
    finally:
        if timings:
            Path(timings).write_text(
                "".join(f"{wall:.3f} {cpu:.3f}\n" for wall, cpu in session.timings), encoding="utf-8"
            )
    if status:
        raise typer.Exit(status)


class Session:
    """Runs command lines in the shell's root context; never lets an exception out."""

    def __init__(self, root: _click.Context, *, json_out: bool = False) -> None:
        self.root = root
        assert isinstance(root.command, TyperGroup)  # the root is campaign's group (cli.app)
        self.group = root.command
        self.json_out = json_out
        self.timings: list[tuple[float, float]] = []  # (wall, CPU) ms of each command
        self.names_stale = True  # the completer rereads names after any command
        from campaign import i18n

        # --lang (or CAMPAIGN_LANG) as the shell began: a line's --json turns its own words
        # English (cli.output), and the next line must not inherit that
        self.language = i18n.override()

    def run(self, line: str) -> int:
        """Run one line; its exit status (0 ok, 1 refused or a bug, 2 malformed)."""
        try:
            args = split_line(line)
        except ValueError as exc:  # an unclosed quote
            _error(f"{exc}: {line}")
            return 2
        if not args:
            return 0
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return self._invoke(args)
        finally:
            self.timings.append(((time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000))
            self.names_stale = True
            sys.stdout.flush()

    def _invoke(self, args: list[str]) -> int:  # noqa: C901 - each except is a refusal the CLI entry point makes too, kept side by side
        from campaign.cli.actor import split_actor
        from campaign.cli.app import _database_refusal, _environment_error
        from campaign.errors import CampaignError

        state = self.root.obj
        state.may_create = False  # as in a fresh process: only init and import create the file
        from campaign import i18n

        i18n.use(self.language)  # --lang stays; the campaign's `lang` is asked again (`use` may switch)
        saved, for_this_line = (state.actor_option, state._actor), False
        try:
            if args[0] == "--as" and len(args) > 2:  # `--as Aki roll ...`: this line only
                args = [*args[2:], "--as", args[1]]
            line_actor, args = split_actor(args)
            if args[0] in ("help", "-h", "--help"):
                typer.echo(self.group.get_help(self.root))
                return 0
            if args[0] == "as":
                return self._switch_actor(args[1:])
            if args[0].startswith("-"):
                _error(
                    _(
                        "{option}: global options go before `shell` (`campaign --db FILE -c NAME shell`); "
                        "`as NAME` switches who is acting"
                    ).format(option=args[0])
                )
                return 2
            if line_actor is not None:
                for_this_line = True
                self._set_actor(line_actor)
            name, command, rest = self.group.resolve_command(self.root, args)
            assert command is not None  # an unknown name is refused (a usage error)
            if name == "shell":
                _error(_("already in the shell"))
                return 1
            if self.json_out:
                rest = with_json(command, self.root, rest)
            with command.make_context(name, rest, parent=self.root) as sub:
                command.invoke(sub)
            return 0
        except CampaignError as exc:
            _error(exc)
            return exc.exit_code
        except typer.Exit as exc:
            return exc.exit_code
        except typer.Abort:
            _error(_("aborted"))
            return 1
        except typer.TyperException as exc:  # Click's usage errors (exit 2), or a bare --help of a noun
            from typer._click.exceptions import NoArgsIsHelpError

            if isinstance(exc, NoArgsIsHelpError):
                exc.show()
                return 0
            from campaign.cli.usage_words import usage_message

            _error(usage_message(exc))
            return exc.exit_code
        except KeyboardInterrupt:
            _error(_("interrupted (a transaction cut short is rolled back)"))
            return 130
        except Exception as exc:
            refusal = _database_refusal(exc)
            if refusal is not None:
                _error(_("refused by the database: {refusal}").format(refusal=refusal))
                return 1
            message = _environment_error(exc, state.db_option)
            if message is not None:
                _error(message)
                return 1
            _bug(exc)
            return 1
        finally:
            if for_this_line:
                state.actor_option, state._actor = saved

    def _set_actor(self, name: str) -> None:
        """Who the following commands record as acting (checked as `--as` is)."""
        from campaign.services.common import clean_name

        state = self.root.obj
        state.actor_option, state._actor = clean_name(name, "as"), None
        if state.actor_option == "GM":
            state.actor_option = None  # back to the default (in group mode: the signed-in role)

    def _switch_actor(self, words: list[str]) -> int:
        """`as NAME`: every following command acts as NAME (`as GM` switches back)."""
        if len(words) != 1:
            _error(_("as takes one name: as Aki (as GM switches back)"))
            return 2
        self._set_actor(words[0])
        return 0

    @property
    def prompt(self) -> str:
        """`campaign> ` as the GM, `campaign (Aki)> ` once `as Aki` switched."""
        actor = self.root.obj.actor_option
        return PROMPT if actor in (None, "GM") else f"campaign ({actor})> "


_PLAIN = re.compile(r"[^ \t\r\n\\'\"]+")  # a run of characters that stand for themselves
_IN_DOUBLE = re.compile(r'[^"\\]+')  # inside "...": all but the closing quote and a backslash


def split_line(line: str) -> list[str]:
    """The words of a command line exactly as `shlex.split(line)` gives them (POSIX
    quoting: '...' literal, "..." with \\ and \" escaped, a backslash outside quotes
    escaping any character), in time linear in the line's length.

    shlex builds each word a character at a time by string concatenation, which is
    quadratic: a 1.2 MB line took 23 s. Here whole runs are sliced out and each word is
    joined once.
    """
    words: list[str] = []
    parts: list[str] = []
    in_word = False
    i, end = 0, len(line)
    while i < end:
        char = line[i]
        if char in " \t\r\n":
            if in_word:
                words.append("".join(parts))
                parts, in_word = [], False
            i += 1
            continue
        in_word = True
        if char == "\\":
            if i + 1 == end:
                raise ValueError("No escaped character")
            parts.append(line[i + 1])
            i += 2
        elif char == "'":
            close = line.find("'", i + 1)
            if close < 0:
                raise ValueError("No closing quotation")
            parts.append(line[i + 1 : close])
            i = close + 1
        elif char == '"':
            i += 1
            while True:
                run = _IN_DOUBLE.match(line, i)
                if run is not None:
                    parts.append(run.group())
                    i = run.end()
                if i == end:
                    raise ValueError("No closing quotation")
                if line[i] == '"':
                    i += 1
                    break
                if i + 1 == end:  # a backslash last, inside the quotes
                    raise ValueError("No escaped character")
                escaped = line[i + 1]
                parts.append(escaped if escaped in '"\\' else "\\" + escaped)
                i += 2
        else:
            run = _PLAIN.match(line, i)
            assert run is not None  # line[i] is none of the characters it stops at
            parts.append(run.group())
            i = run.end()
    if in_word:
        words.append("".join(parts))
    return words


def with_json(command: _click.Command, ctx: _click.Context, rest: list[str]) -> list[str]:
    """`shell --json`: add --json to a command (or the verb under a noun) that takes it."""
    if "--json" in rest or "--csv" in rest:
        return rest
    path: list[str] = []
    while isinstance(command, TyperGroup):  # a noun: find its verb
        verb = next((i for i, arg in enumerate(rest) if not arg.startswith("-")), None)
        sub = command.get_command(ctx, rest[verb]) if verb is not None else None
        if sub is None or verb is None:
            break
        path, rest, command = [*path, *rest[: verb + 1]], rest[verb + 1 :], sub
    if any("--json" in getattr(param, "opts", ()) for param in command.params):
        return [*path, "--json", *rest]
    return [*path, *rest]


def _error(message: BaseException | str) -> None:
    from campaign.cli.app import _error as one_line

    one_line(message)


def _bug(exc: BaseException) -> None:
    """A bug: the last frames, enough to report it, and the session goes on."""
    import traceback

    sys.stderr.write(
        _("error: {message}").format(message=_("internal error (a bug, please report it); the shell goes on")) + "\n"
    )
    sys.stderr.write("".join(traceback.format_exception(exc, limit=-4)))


def _scripted(session: Session) -> int:
    """Commands from stdin, one per line; nothing echoed but their output."""
    from campaign.read_limits import SHELL_CHARS, lines

    status = 0
    for line in lines(sys.stdin, label="shell line", total=SHELL_CHARS):  # /dev/zero ends in one line
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line in LEAVE:
            break
        status = session.run(line)
    return status


def history_file() -> Path:
    """Shell history lives beside the default database, in the user data directory."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("campaign", appauthor=False)) / "shell_history"


def _interactive(session: Session) -> int:
    readline: ModuleType | None
    try:
        import readline
    except ImportError:  # a Python built without it: a plain prompt, no Tab, no history
        readline = None
    path = _set_up_readline(readline, session) if readline is not None else None
    try:
        while True:
            try:
                line = input(session.prompt)
            except KeyboardInterrupt:  # Ctrl-C: drop the line, keep the session
                sys.stdout.write("\n")
                continue
            except EOFError:  # Ctrl-D
                sys.stdout.write("\n")
                break
            if not line.strip():
                continue
            if path is not None and readline is not None:  # written as it goes: a killed session keeps its lines
                try:
                    readline.append_history_file(1, path)
                except OSError:
                    path = None
            if line.strip() in LEAVE:
                break
            session.run(line)
    finally:
        if (
            path is not None and readline is not None
        ):  # trimmed to the history length, replaced whole (campaign.safe_files)
            from campaign.errors import CampaignError
            from campaign.safe_files import replacing_paths

            try:
                with replacing_paths([path]) as (tmp,):
                    readline.write_history_file(tmp)
            except (OSError, CampaignError):
                pass
    return 0


def _set_up_readline(readline: ModuleType, session: Session) -> Path | None:
    """Tab completion and the history file; the history's path, or None without one."""
    from campaign.cli.shell_completion import Completer

    path: Path | None
    path = history_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
        readline.read_history_file(path)
    except OSError:
        path = None  # an unwritable data dir costs the history, not the session
    readline.set_history_length(1000)
    readline.set_completer_delims(" \t\n")
    readline.set_completer(Completer(session).complete)
    if "libedit" in (readline.__doc__ or ""):
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    return path
