"""docs/architecture.md names modules and functions; each must exist, so the page a
newcomer reads first cannot drift from the code it draws."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGE_ROW = re.compile(r"^\| `(\w+)` \| [^|]+ \| (.+) \|$", re.M)


def _dotted_names() -> set[str]:
    """`services.checks.rolls.roll`, `campaign.projection.replay`, `core.dice.evaluate`..."""
    found = set(re.findall(r"`((?:campaign\.)?(?:services|core|web|ledger|projection)\.[\w.]+)`", DOC))
    return {name if name.startswith("campaign.") else "campaign." + name for name in found}


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 1, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def test_every_dotted_name_in_the_page_exists():
    names = _dotted_names()
    assert len(names) >= 10, names
    missing = sorted(name for name in names if not _resolves(name))
    assert not missing, missing


def test_every_file_in_the_page_exists():
    paths = set(re.findall(r"`((?:cli|web|core|db|static|services)/[\w/]+\.(?:py|js))`", DOC))
    assert len(paths) >= 8, paths
    bases = (ROOT / "campaign", ROOT / "campaign" / "web")
    missing = sorted(p for p in paths if not any((base / p).exists() for base in bases))
    assert not missing, missing


def test_the_package_table_lists_every_services_package_and_its_files():
    services = ROOT / "campaign" / "services"
    packages = {p.name for p in services.iterdir() if (p / "__init__.py").exists()}
    rows = dict(PACKAGE_ROW.findall(DOC))
    assert set(rows) == packages
    for package, examples in rows.items():
        for name in re.findall(r"`(\w+\.py)`", examples):
            assert (services / package / name).exists(), f"{package}/{name}"
