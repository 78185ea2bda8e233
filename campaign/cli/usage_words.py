"""Click's usage errors (an unknown option, a missing argument, a value of the wrong
type) in the output's language.

Click and Typer write these in English, from facts the exception keeps: the option
typed, the parameter, the value that did not parse (Typer's pydantic error). The line
is rebuilt here from those facts through the catalog, so a Japanese reader sees
「エラー: オプション --bogus はありません」, not Click's sentence. An option is shown as
typed (`--to`), an argument by its name in the usage line (`EXPRESSION`); a message this
module does not know is shown as Click wrote it.
"""

from __future__ import annotations

import re
from typing import Any

from campaign.i18n import _

_EXTRA = re.compile(r"^Got unexpected extra arguments? \((?P<args>.*)\)$")
# A noun's unknown verb (`table x101 FEAR`): Click's sentence, with Typer's suggestion when
# it has one; the root group words its own (cli.app).
_NO_COMMAND = re.compile(r"^No such command (?P<name>'[^']*'|\"[^\"]*\")\.(?: Did you mean (?P<names>.+)\?)?$", re.S)
_WHOLE = ("int_parsing", "int_from_float", "int_type")
_NUMBER = ("float_parsing", "float_type")


def _name(exc: Any) -> str:
    """The parameter as the user sees it: an option's longest spelling, an argument's
    name as the usage line prints it (EXPRESSION)."""
    param = getattr(exc, "param", None)
    if param is None:
        hint = getattr(exc, "param_hint", None)
        return str(hint if isinstance(hint, str) else " / ".join(hint or ()))
    if getattr(param, "param_type_name", None) == "argument":
        return str(param.name).upper()
    opts = sorted(getattr(param, "opts", ()) or (), key=len, reverse=True)
    return opts[0] if opts else str(param.name)


def usage_message(exc: Any) -> str:
    """The message of Click's usage error `exc`, in the output's language; Click's own
    words should its exception not hold what this reads (another Typer version)."""
    try:
        return _message(exc)
    except (AttributeError, IndexError, KeyError, TypeError):
        return str(exc.format_message())


def _message(exc: Any) -> str:
    from typer._click import exceptions as click  # the Click that Typer vendors and raises

    if isinstance(exc, click.NoSuchOption):
        line = _("No such option: {option}").format(option=exc.option_name)
        if exc.possibilities:
            line = _("{message} (Possible options: {options})").format(
                message=line, options=", ".join(sorted(exc.possibilities))
            )
        return line
    if isinstance(exc, click.MissingParameter):
        param = getattr(exc, "param", None)
        if getattr(param, "param_type_name", None) == "argument":
            return _("Missing argument {name}").format(name=_name(exc))
        return _("Missing option {name!r}").format(name=_name(exc))
    if isinstance(exc, click.BadParameter):
        cause: Any = exc.__cause__  # Typer's pydantic ValidationError, when a type did not parse
        errors = cause.errors() if hasattr(cause, "errors") else []
        kind, value = (errors[0].get("type"), errors[0].get("input")) if errors else (None, None)
        if kind in _WHOLE:
            return _("{what}: {value!r} is not a whole number").format(what=_name(exc), value=value)
        if kind in _NUMBER:
            return _("{name}: {value!r} is not a number").format(name=_name(exc), value=value)
        return exc.format_message()
    if isinstance(exc, click.BadOptionUsage):
        if exc.message.startswith(f"Option {exc.option_name!r} requires"):
            return _("{option} needs a value").format(option=exc.option_name)
        if exc.message.startswith(f"Option {exc.option_name!r} does not take a value"):
            return _("{option} takes no value").format(option=exc.option_name)
        return exc.format_message()
    extra = _EXTRA.match(exc.format_message())
    if extra:
        return _("Got unexpected extra arguments ({args})").format(args=extra.group("args"))
    if exc.format_message() == "Missing command.":
        return _("Missing command.")
    unknown = _NO_COMMAND.match(exc.format_message())
    if unknown:
        import ast

        line = _("No such command {name!r}.").format(name=ast.literal_eval(unknown.group("name")))
        if unknown.group("names"):
            line = _("{message} Did you mean {names}?").format(message=line, names=unknown.group("names"))
        return line
    return str(exc.format_message())
