"""Which campaign a command acts on when --campaign is not given.

The choice is per user and per database (a file in the user config dir), so two GMs
sharing one PostgreSQL server do not switch each other's campaign.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def _selection_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("campaign", appauthor=False)) / "selected.json"


def selected_campaign(db_url: str) -> str | None:
    try:
        return json.loads(_selection_file().read_text(encoding="utf-8")).get(db_url)
    except (OSError, ValueError, AttributeError):
        return None


def select_campaign(db_url: str, name: str) -> None:
    path = _selection_file()
    try:
        choices = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(choices, dict):
            choices = {}
    except (OSError, ValueError):
        choices = {}
    choices[db_url] = name
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(choices, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, path)
