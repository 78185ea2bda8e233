"""Option values without Pydantic on the common path.

Typer 0.29 converts every option value through a Pydantic TypeAdapter, built on first
use: importing Pydantic and building the adapters costs ~80 ms, more than everything
a `campaign roll` does besides importing its libraries. Our options are plain `str`,
`int`, `bool` and lists of those, so each parameter gets a small converter that
handles the values a user actually types (text, ASCII whole numbers) exactly as the
adapter would, and hands anything else (an error, `+5`, a Path, a choice) to Typer's
own adapter, built only then. Error messages therefore stay Typer's.
"""

from __future__ import annotations

from typing import Any

_PLAIN = (str, int)


def _is_text(value: Any) -> bool:
    if type(value) is not str:
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")  # lone surrogates (undecodable argv bytes): Typer's path
    except UnicodeEncodeError:
        return False
    return True


def _is_whole_number(value: Any) -> bool:
    if type(value) is not str:
        return False
    digits = value[1:] if value[:1] == "-" else value
    return 0 < len(digits) <= 18 and digits.isascii() and digits.isdigit()


class PlainParam:
    """The runtime converter Typer asks for (`coerce(value, param, ctx)`), for str/int/bool."""

    __slots__ = ("descriptor", "leaf", "many", "_fallback")

    def __init__(self, descriptor: Any, leaf: type, many: bool) -> None:
        self.descriptor = descriptor
        self.leaf = leaf
        self.many = many
        self._fallback = None

    def _one(self, value: Any) -> Any:
        leaf = self.leaf
        if leaf is str:
            return value if _is_text(value) else _FALLBACK
        if leaf is int:
            if type(value) is int:
                return value
            return int(value) if _is_whole_number(value) else _FALLBACK
        return value if type(value) is bool else _FALLBACK

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:
            return () if param.multiple or param.nargs == -1 else None
        if self.many:
            if isinstance(value, (list, tuple)):
                items = [self._one(item) for item in value]
                if _FALLBACK not in items:
                    return items
        else:
            converted = self._one(value)
            if converted is not _FALLBACK:
                return converted
        if self._fallback is None:
            from typer._coercion import build_runtime_param

            self._fallback = build_runtime_param(self.descriptor)
        return self._fallback.coerce(value, param=param, ctx=ctx)


_FALLBACK = object()


def _plain_shape(descriptor: Any) -> tuple[type, bool] | None:
    """(leaf type, is a list) when the parameter is a plain str/int/bool (list), else None."""
    info = descriptor.parameter_info
    if descriptor.file_annotation is not None or getattr(info, "parser", None) is not None:
        return None
    if descriptor.is_ranged or descriptor.is_choice or descriptor.is_path:
        return None
    annotation = descriptor.annotation
    many = False
    if descriptor.is_list:
        args = getattr(annotation, "__args__", ())
        if len(args) != 1:
            return None
        annotation, many = args[0], True
    if annotation in _PLAIN or annotation is bool:
        return annotation, many
    return None


def install() -> None:
    """Route Typer's parameters through PlainParam where their type allows.

    A hook on the parameter class rather than on our commands, because Typer creates
    each command's --help option itself, on first use, and converts its value too.
    Idempotent; if Typer's internals move, Typer simply keeps its own conversion.
    """
    try:
        from typer._coercion import build_runtime_param  # noqa: F401 (the fallback PlainParam uses)
        from typer.core import _TyperParameter
    except ImportError:  # pragma: no cover - a Typer without runtime params
        return
    original = getattr(_TyperParameter, "get_runtime_param", None)
    if original is None or getattr(original, "_campaign_plain", False):
        return

    def get_runtime_param(self):
        if getattr(self, "_runtime_param", None) is None:
            shape = _plain_shape(self.type_descriptor)
            if shape is not None:
                self._runtime_param = PlainParam(self.type_descriptor, *shape)
        return original(self)

    get_runtime_param._campaign_plain = True
    _TyperParameter.get_runtime_param = get_runtime_param
