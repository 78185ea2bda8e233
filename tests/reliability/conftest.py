"""Reliability suite fixtures: a fast in-process CLI and the figures report."""

from __future__ import annotations

import json
import os

import pytest

from tests import inprocess
from tests.reliability import support


@pytest.fixture
def fast_cli():
    """Every in-process CliRunner run of the test on one command tree and one engine per
    database (tests/inprocess.py): building both anew per command would dominate
    thousands of fuzz examples."""
    with inprocess.reusing():
        yield


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
