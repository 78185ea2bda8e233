"""The web page ships inside the wheel (templates and static files are package data),
and without the `web` extra `serve` says what to install instead of a traceback."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.cli.conftest import Cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # builds a wheel (python -m build: an isolated environment, hatchling installed)
def test_the_wheel_carries_templates_and_static_files(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    names = set(zipfile.ZipFile(next(dist.glob("campaign-*.whl"))).namelist())
    for name in (
        "templates/base.html",
        "templates/macros.html",
        "templates/history.html",
        "static/live.js",
        "static/sha256.js",
        "static/verify.js",
        "static/style.css",
        "templates/table.html",
        "templates/join.html",
        "static/table.js",
        "static/favicon.svg",
        "static/fair_check.js",
        "static/recompute.js",
        "static/receipts.js",
    ):
        assert f"campaign/web/{name}" in names, name
    metadata = next(name for name in names if name.endswith("METADATA"))
    text = zipfile.ZipFile(next(dist.glob("campaign-*.whl"))).read(metadata).decode()
    assert "Provides-Extra: web" in text and "starlette>=" in text and "uvicorn>=" in text


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_serve_without_the_web_extra_says_what_to_install(db_url):
    Cli(db_url).run("init", "卓")
    probe = "import sys; sys.modules['uvicorn'] = None; from campaign.cli.app import main; main()"
    result = subprocess.run(
        [sys.executable, "-c", probe, "--db", db_url, "serve", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == (
        "error: the web page needs the `web` extra (uvicorn is missing): pip install 'campaign[web]'"
    )
