"""The shell's line splitting: the words shlex gives, in time linear in the line.

shlex.split grows each word a character at a time (a 1.2 MB line took 23 s, 5 MB ran for
minutes); `split_line` must give exactly its words and errors, and split megabytes at
once. The timing bound is generous (seconds for what takes well under one): a quadratic
split of those lines takes a minute or more.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaign.cli.shell import split_line

CAMPAIGN_BIN = str(Path(sys.executable).with_name("campaign"))


def _shlex(line: str) -> list[str] | str:
    try:
        return shlex.split(line)
    except ValueError as exc:
        return f"ValueError: {exc}"


def _ours(line: str) -> list[str] | str:
    try:
        return split_line(line)
    except ValueError as exc:
        return f"ValueError: {exc}"


@pytest.mark.parametrize(
    "line",
    [
        "",
        "   ",
        "roll 3D6<=12 --char 鈴音",
        "a  b\tc\nd\re",
        "'' b",
        "a '' b",
        '""',
        "a'b c'd",
        'x"y z"w',
        r"a\ b",
        "a\\",
        "'unclosed",
        '"unclosed',
        '"a\\',
        r'"a\"b"',
        r'"a\\b"',
        r'"a\xb"',
        r"'a\b'",
        "\\\n",
        '"it\'s"',
        "'say \"hi\"'",
        r"\'",
        r"\"",
        "a#b #c",
        "鈴音='刀 矢'",
        '"\\\\"',
        '"\\',
        "\\",
    ],
)
def test_the_words_are_shlex_s(line):
    assert _ours(line) == _shlex(line)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab '\"\\\t\n#鈴 ")), max_size=30))
def test_any_line_splits_as_shlex_splits_it(line):
    assert _ours(line) == _shlex(line)


# Lines of 2 MB that stress each way through the splitter: one long word, many short ones,
# long quoted spans, every other character escaped.
HUGE = {
    "word": "x" * 2_000_000,
    "words": "ab " * 700_000,
    "single": "'" + "y " * 1_000_000 + "'",
    "double": '"' + 'z\\"' * 700_000 + '"',
    "escapes": "\\q" * 1_000_000,
}


EXPECTED = {
    "word": (1, 2_000_000),
    "words": (700_000, 1_400_000),
    "single": (1, 2_000_000),
    "double": (1, 1_400_000),
    "escapes": (1, 1_000_000),
}  # (words, characters in them)


@pytest.mark.slow
def test_lines_of_megabytes_split_in_bounded_time():
    """In a subprocess with a timeout: each takes under a second here, a quadratic split
    runs for minutes (shlex: 0.4 s for 100 kB, 5.8 s for 400 kB)."""
    script = textwrap.dedent("""
        import json
        from campaign.cli.shell import split_line
        from tests.cli.test_shell_split import HUGE
        print(json.dumps({kind: [len(words := split_line(line)), sum(map(len, words))]
                          for kind, line in HUGE.items()}))
    """)
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert {kind: tuple(counts) for kind, counts in json.loads(done.stdout).items()} == EXPECTED


@pytest.mark.slow
def test_the_shell_runs_a_line_of_megabytes(tmp_path):
    """End to end: a 2 MB line reaches its command (refused there, in one line) quickly."""
    db = tmp_path / "c.db"
    subprocess.run([CAMPAIGN_BIN, "--db", str(db), "init", "卓"], check=True, capture_output=True, timeout=120)
    line = "char show '" + "鈴" * 700_000 + "'\nchar list --json\n"
    done = subprocess.run(
        [CAMPAIGN_BIN, "--db", str(db), "shell"], input=line, capture_output=True, text=True, timeout=60
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == 0 and done.stdout.strip() == "[]", (done.returncode, done.stderr[:300])
    assert done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1
