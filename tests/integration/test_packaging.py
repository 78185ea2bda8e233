"""The wheel installs into a fresh venv and works from another directory.

Proves migrations/ and seeds/ ship inside the package, not just in the checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds a wheel and installs it into a fresh venv

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_works_from_another_directory(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    wheel = next(dist.glob("campaign-*.whl"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=False)
    pip = env_dir / "bin" / "pip"
    subprocess.run([str(pip), "install", "--quiet", str(wheel)], check=True, capture_output=True, timeout=600)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAMPAIGN")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    exe = str(env_dir / "bin" / "campaign")

    def run(*a):
        return subprocess.run(
            [exe, "--db", "X.db", *a], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120
        )

    created = run("init", "T", "--json")
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)["name"] == "T"
    assert (elsewhere / "X.db").exists()
    rolled = run("roll", "3D6<=12", "--dice", "1,1,2", "--json")
    assert rolled.returncode == 0, rolled.stderr
    assert json.loads(rolled.stdout)["outcome"] == "critical_success"
    seeds = subprocess.run(
        [
            str(env_dir / "bin" / "python"),
            "-c",
            "from campaign.seeds import load_tables, default_seed_dir; "
            "print(default_seed_dir()); print(sorted(load_tables()))",
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert seeds.returncode == 0, seeds.stderr
    seed_dir, tables = seeds.stdout.splitlines()
    assert str(env_dir) in seed_dir  # loaded from inside the installed package
    assert tables == str(sorted(["CRT", "FEAR", "FMB", "GFMB", "HCRT", "MFMB", "REACT", "YFMB", "YSCRT", "YSFMB"]))
    import zipfile

    assert "campaign/locale/ja/LC_MESSAGES/campaign.mo" in zipfile.ZipFile(wheel).namelist()  # the catalog ships
    japanese = run("--lang", "ja", "roll", "3D6<=12", "--dice", "1,1,2")
    assert japanese.returncode == 0 and "→ クリティカル (差分 +8)" in japanese.stdout, japanese.stderr
    refs = run("ref", "list", "--json")  # seeds/ref/ ships too
    assert refs.returncode == 0, refs.stderr
    assert len(json.loads(refs.stdout)) == 12
