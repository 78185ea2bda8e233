"""`--as NAME` wherever it is typed: before the command (a global option) or after it.

At the table the actor is an afterthought ("roll 3D6<=12 --char 鈴音 ... oh, --as Aki"),
and in the shell a line has no place before the command at all. So the command line is
read once for `--as`: found after the command, it moves before it, where the root
callback takes it. No command has an option of its own called `--as`; `--` ends the
search (what follows is the command's own words).
"""

from __future__ import annotations

from collections.abc import Sequence

from campaign.errors import BadInput

# The root's options that take a value: their value is never the command's name.
_VALUED = frozenset({"--db", "--campaign", "-c", "--as", "--seed"})


def command_index(args: Sequence[str]) -> int | None:
    """Where the command's name is in `args` (after the global options), or None."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return i + 1 if i + 1 < len(args) else None
        if not arg.startswith("-") or arg == "-":
            return i
        i += 2 if arg in _VALUED else 1
    return None


def split_actor(args: Sequence[str]) -> tuple[str | None, list[str]]:
    """(the name given with a `--as` after the command or None, the args without it)."""
    args = list(args)
    start = command_index(args)
    if start is None:
        return None, args
    found: str | None = None
    rest = args[: start + 1]
    i = start + 1
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        if arg == "--as" or arg.startswith("--as="):
            if arg == "--as":
                if i + 1 >= len(args):
                    raise BadInput("--as needs a name: --as NAME")
                value, i = args[i + 1], i + 2
            else:
                value, i = arg[len("--as=") :], i + 1
            if found is not None and found != value:
                raise BadInput(f"--as is given twice ({found!r} and {value!r})")
            found = value
            continue
        rest.append(arg)
        i += 1
    return found, rest


def hoist_actor(args: Sequence[str]) -> list[str]:
    """The command line with a `--as` typed after the command moved before it; refused
    when it contradicts a `--as` given before the command."""
    found, rest = split_actor(args)
    if found is None:
        return rest
    start = command_index(rest) or 0
    before = rest[:start]
    for i, arg in enumerate(before):
        given = (
            before[i + 1]
            if arg == "--as" and i + 1 < len(before)
            else (arg[len("--as=") :] if arg.startswith("--as=") else None)
        )
        if given is not None and given != found:
            raise BadInput(f"--as is given twice ({given!r} and {found!r})")
    return ["--as", found, *rest]
