"""Reliability suite fixtures: a fast in-process CLI and the figures report."""

from __future__ import annotations

import json
import os

import pytest
import typer.main
import typer.testing

import campaign.cli.context
from campaign.db.database import Database
from tests.reliability import support


@pytest.fixture
def fast_cli(monkeypatch):
    """Build the Click command tree once: typer rebuilds it on every CliRunner.invoke,
    which is 75% of an in-process run and would dominate thousands of fuzz examples."""
    from campaign.cli.app import app

    command = typer.main.get_command(app)
    monkeypatch.setattr(typer.testing, "_get_command", lambda _app: command)
    # One opened database per URL for the whole test, as a long-lived process would
    # hold it: opening (engine, connection, revision check) is the rest of the cost.
    opened: dict[str | None, Database] = {}

    def database(db: str | None = None) -> Database:
        if db not in opened:
            opened[db] = Database(db)
        return opened[db]

    monkeypatch.setattr(campaign.cli.context, "Database", database)
    yield command
    for db in opened.values():
        db.close()


def pytest_runtest_logreport(report):
    if "tests/reliability/" in report.nodeid.replace("\\", "/"):
        slot = support.FIGURES.setdefault("suite", {}).setdefault("all", {"seconds": 0.0, "tests": 0})
        slot["seconds"] += report.duration
        slot["tests"] += report.when == "call"


def pytest_sessionfinish(session, exitstatus):
    target = os.environ.get("CAMPAIGN_RELIABILITY_FIGURES")
    if target and support.FIGURES:
        with open(target, "w", encoding="utf-8") as out:
            json.dump(support.FIGURES, out, indent=1, sort_keys=True, ensure_ascii=False)
