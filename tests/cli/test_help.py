"""Every command explains itself with an example (a command without help is a bug)."""

from __future__ import annotations

import typer
import typer.main
from typer.testing import CliRunner

from campaign.cli.app import app


def _walk(command, path: tuple[str, ...] = ()):
    """Every command under `command`, through Click's group interface (the root builds its
    commands lazily, so only list_commands/get_command see them all)."""
    yield path, command
    if hasattr(command, "list_commands"):
        ctx = typer.Context(command)
        for name in command.list_commands(ctx):
            yield from _walk(command.get_command(ctx, name), path + (name,))


def test_every_command_has_help_with_an_example():
    root = typer.main.get_command(app)
    commands = list(_walk(root))
    assert len(commands) > 10
    for path, command in commands:
        result = CliRunner().invoke(app, [*path, "--help"])
        assert result.exit_code == 0, path
        assert "Example" in result.stdout, f"`campaign {' '.join(path)} --help` shows no example"


def test_every_leaf_command_takes_json():
    root = typer.main.get_command(app)
    for path, command in _walk(root):
        if hasattr(command, "list_commands") or path == ("demo",):
            continue
        options = {opt for param in command.params for opt in getattr(param, "opts", [])}
        assert "--json" in options, f"`campaign {' '.join(path)}` lacks --json"
