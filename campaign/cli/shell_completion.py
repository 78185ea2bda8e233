"""Tab completion for `campaign shell`, read off the command tree itself.

Commands, verbs and options come from Click's own objects (list_commands, params), so
a new command completes without a line here. Values come from the database: a
parameter named for a character, player or table offers those names, read once per
command line through services.characters.names and reread after the next command runs (it may
have added or renamed one).
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from typer.core import TyperGroup

if TYPE_CHECKING:
    from typer import _click  # the Click that Typer vendors

    from campaign.cli.shell import Session
    from campaign.services.characters.names import Names

# Which parameters take which names: (noun or None for any, parameter name) -> kind.
_VALUE_KINDS = {
    (None, "char"): "characters",
    (None, "character"): "characters",
    (None, "summoner"): "characters",
    (None, "with_"): "characters",
    (None, "names"): "characters",
    (None, "player"): "players",
    (None, "table"): "tables",
    ("char", "name"): "characters",
    ("char", "old"): "characters",
    ("char", "a"): "characters",
    ("char", "b"): "characters",
    ("missing", "name"): "characters",
    ("scenario", "name"): "characters",
    ("player", "name"): "players",
    ("player", "old"): "players",
    ("table", "name"): "tables",
    ("use", "name"): "campaigns",
}


class Completer:
    def __init__(self, session: Session) -> None:
        self.session = session
        self._names: Names | None = None
        self._matches: list[str] = []

    # readline calls complete(text, 0), complete(text, 1) ... until it gets None.
    def complete(self, text: str, index: int) -> str | None:
        if index == 0:
            import readline

            try:
                # Python's readline appends nothing to a completed word: the space that
                # lets the next word start at once is added here.
                self._matches = [
                    word + " " for word in self.candidates(readline.get_line_buffer()[: readline.get_begidx()], text)
                ]
            except Exception:  # a completer must never raise into readline
                self._matches = []
        return self._matches[index] if index < len(self._matches) else None

    def candidates(self, before: str, text: str) -> list[str]:
        """What may follow the words in `before` and start with `text`."""
        try:
            words = shlex.split(before)
        except ValueError:
            words = before.split()
        root = self.session.root
        command: _click.Command = self.session.group
        noun: str | None = None
        rest = words
        if not words:
            options = [*self.session.group.list_commands(root), "as", "help", "exit"]
            return _starting(options, text)
        if words == ["as"]:  # who acts from now on: a player, or back to the GM
            return [_quoted(name) for name in _starting(["GM", *self.names("players")], text)]
        # Walk down the nouns and verbs typed so far.
        while isinstance(command, TyperGroup):  # a noun: walk to its verb
            position = _first_positional(command, rest)
            sub = command.get_command(root, rest[position]) if position is not None else None
            if sub is None or position is None:
                break
            noun = noun or rest[position]
            command, rest = sub, rest[position + 1 :]
        if rest and (option := _option(command, rest[-1])) is not None and _takes_value(option):
            return self._values(noun, option.name, text)
        if text.startswith("-"):
            opts = [
                opt
                for param in command.params
                if param.param_type_name == "option" and not getattr(param, "hidden", False)  # an Option's
                for opt in (*param.opts, *param.secondary_opts)
                if opt.startswith("--")
            ]
            return _starting([*opts, "--help"], text)
        if isinstance(command, TyperGroup):
            return _starting(command.list_commands(root), text)
        argument = _argument_at(command, rest)
        return self._values(noun, argument.name, text) if argument is not None else []

    def _values(self, noun: str | None, param: str, text: str) -> list[str]:
        kind = _VALUE_KINDS.get((noun, param)) or _VALUE_KINDS.get((None, param))
        if kind is None:
            return []
        return [_quoted(name) for name in _starting(self.names(kind), text.strip("'\""))]

    def names(self, kind: str) -> tuple[str, ...]:
        if kind == "tables":  # seed data: no database, read once
            from campaign.services.checks.tables import list_tables

            return tuple(row.command for row in list_tables())
        if self._names is None or self.session.names_stale:
            from campaign.services.characters.names import Names, names

            state = self.session.root.obj
            try:
                self._names = names(state.db, state.campaign)
            except Exception:  # no database yet, or it cannot be read: nothing to offer
                self._names = Names()
            self.session.names_stale = False
        found: tuple[str, ...] = getattr(self._names, kind)
        return found


def _starting(options: Any, text: str) -> list[str]:
    return [option for option in options if option.startswith(text)]


def _quoted(name: str) -> str:
    """Quoted only where the shell's own split (shlex) would cut it: 鈴音 stays as it is."""
    return shlex.quote(name) if any(c.isspace() or c in "'\"\\" for c in name) else name


def _option(command: _click.Command, word: str) -> _click.Parameter | None:
    return next(
        (
            param
            for param in command.params
            if param.param_type_name == "option" and word in (*param.opts, *param.secondary_opts)
        ),
        None,
    )


def _takes_value(option: _click.Parameter) -> bool:
    return not getattr(option, "is_flag", False) and not getattr(option, "count", False)


def _positionals(command: _click.Command, words: list[str]) -> list[str]:
    """The words that are not options or option values."""
    found, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word.startswith("-") and len(word) > 1:
            option = _option(command, word)
            skip = option is not None and _takes_value(option) and "=" not in word
            continue
        found.append(word)
    return found


def _first_positional(command: _click.Command, words: list[str]) -> int | None:
    skip = False
    for index, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word.startswith("-") and len(word) > 1:
            option = _option(command, word)
            skip = option is not None and _takes_value(option)
            continue
        return index
    return None


def _argument_at(command: _click.Command, words: list[str]) -> _click.Parameter | None:
    """The argument the next positional word fills (a variadic one takes every word after)."""
    count = len(_positionals(command, words))
    for argument in (param for param in command.params if param.param_type_name == "argument"):
        if argument.nargs == -1 or count == 0:
            return argument
        count -= 1
    return None
