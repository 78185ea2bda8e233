"""Start-up is the budget (DESIGN.md): what a command must not load, and the shortcut that
keeps it so (lazy command modules)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from campaign.cli import app as app_module
from campaign.cli.app import COMMANDS, app

# Never needed by a roll or a JSON listing on an up-to-date database.
HEAVY = (
    "alembic",
    "rich.console",
    "rich.table",
    "campaign.db.models_state",
    "campaign.cli.check",
    "campaign.cli.scenario",
    "campaign.cli.demo",
    "campaign.services.recording",
)

PROBE = r"""
import json, sys
from campaign.cli.app import main
try:
    main()
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _modules(tmp_path, *args: str) -> set[str]:
    """The modules a fresh interpreter has loaded after `campaign --db DB ARGS` on an
    up-to-date database (made in this process: only the probe needs to be fresh)."""
    from tests.cli.conftest import Cli

    db = str(tmp_path / "startup.db")
    Cli(db).run("init", "Probe")
    result = subprocess.run([sys.executable, "-c", PROBE, "--db", db, *args], capture_output=True, text=True)
    report = json.loads(result.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), result.stderr
    return set(report["modules"])


@pytest.mark.parametrize("args", [("roll", "3D6"), ("history", "--limit", "20", "--json")])
def test_a_command_loads_only_what_it_needs(tmp_path, args):
    loaded = _modules(tmp_path, *args)
    assert not [name for name in HEAVY if name in loaded]


def test_every_command_module_registers_exactly_its_names():
    loaded = {}
    for name in COMMANDS:
        loaded.update(app_module._load(name))
    assert list(loaded) == list(COMMANDS)  # nothing registered that COMMANDS does not name, nothing missing


def test_help_lists_every_command_in_order():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    positions = [result.stdout.find(f"│ {name} ") for name in COMMANDS]
    assert all(position > 0 for position in positions) and positions == sorted(positions), result.stdout


def test_unknown_commands_still_get_suggestions():
    result = CliRunner().invoke(app, ["histroy"])
    assert result.exit_code == 2 and "history" in result.output
