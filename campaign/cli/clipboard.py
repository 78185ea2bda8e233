"""Putting text on the system clipboard with whatever tool the machine has (best effort)."""

from __future__ import annotations

import shutil
import subprocess

# (program, arguments), tried in order: macOS, Wayland, X11 (two tools), Windows/WSL.
TOOLS = (
    ("pbcopy", ()),
    ("wl-copy", ()),
    ("xclip", ("-selection", "clipboard")),
    ("xsel", ("--clipboard", "--input")),
    ("clip.exe", ()),
)


def copy_text(text: str) -> str | None:
    """The name of the tool that took the text, or None when none is installed or all fail."""
    for program, args in TOOLS:
        path = shutil.which(program)
        if path is None:
            continue
        try:
            subprocess.run(
                [path, *args],
                input=text.encode("utf-8"),
                check=True,
                timeout=5,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError):
            continue
        return program
    return None
