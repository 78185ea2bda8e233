"""Hostile input: hypothesis-driven CLI runs, in-process, with a fixed seed.

Targets: dice expressions, names (SQL metacharacters, quotes, 10,000-character
strings, emoji, right-to-left text, NUL, bytes that are not UTF-8), numbers (huge,
negative, non-numeric), `--dice` lists and dates. Every run must exit 0, 1 or 2, say
something when it refuses, never print a traceback (catch_exceptions=False: an
unexpected exception fails the test), and a refused command (exit 1 or 2) must leave
the database exactly as it was (a full dump before and after).

2,000 examples per target on SQLite and 500 on PostgreSQL, plus, on both, a matrix of
every command of a target with every special value. The runs are in-process and share one
opened database per test (see conftest.fast_cli), which keeps 20,000+ runs to a minute
or two.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from campaign.cli.app import app
from tests.reliability import support

EXAMPLES = {"sqlite": 2000, "postgresql": 500}
GURPS, TWO_D6 = "fuzz", "二六"

SQL = [
    "'; DROP TABLE ledger; --",
    "Robert'); DROP TABLE characters;--",
    '" OR "1"="1',
    "' OR 1=1 --",
    "%",
    "_",
    "%_%",
    "\\",
    "\\'",
    "`x`",
    "$1",
    ":name",
    "?",
    "NULL",
    "null",
    "None",
    "0; DELETE FROM ledger",
    "1 UNION SELECT * FROM ledger",
]
QUOTES = ["'", '"', "''", '""', "「鈴音」", "‘x’", "“x”", '\\"', "'\"'\"'"]
SCRIPTS = [
    "鈴音",
    "すずね",
    "ｽｽﾞﾈ",
    "🎲",
    "👩‍👩‍👧‍👦",
    "🏳️‍🌈",
    "\u202eevil\u202c",
    "עברית",
    "مرحبا بك",
    "\u200f\u200e",
    "\u200b",
    "e\u0301",
    "\u00c5",
    "A\u030a",
    "Ω",
    "ﬃ",
    "\ufeff",
    "𝕏",
    "\U0010ffff",
    "ß",
    "İ",
]
CONTROL = [
    "",
    " ",
    "\t",
    "\n",
    "a\nb",
    "a\rb",
    "x\x00y",
    "\x00",
    "\x1b[31mred",
    "\x7f",
    "a\udcffb",
    "\udcff",
    "-",
    "--",
    "-x",
    "--help",
    "--json",
    "=",
]
LONG = ["a" * 200, "a" * 201, "x" * 10_000, "鈴" * 10_000, "🎲" * 10_000, "'" * 10_000, "\u202e" * 10_000]
SPECIAL_TEXT = SQL + QUOTES + SCRIPTS + CONTROL + LONG

NUMBERS = [
    "0",
    "-0",
    "+5",
    " 7 ",
    "1e3",
    "0x10",
    "1_000",
    "١٢",
    "１２",
    "NaN",
    "inf",
    "-inf",
    "",
    "--1",
    "5.0",
    "9" * 30,
    "-" + "9" * 30,
    "9" * 5000,
    str(2**31),
    str(2**31 - 1),
    str(-(2**31)),
    str(2**63),
    str(2**63 - 1),
    str(2**64),
    "2147483648",
    "-1",
    "12abc",
    "0b11",
    "٣",
]


def text_like(special: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(special),
        st.text(max_size=40),
        st.builds(lambda a, b: a + b, st.sampled_from(special), st.text(max_size=10)),
    )


names = text_like(SPECIAL_TEXT)
numbers = st.one_of(
    st.sampled_from(NUMBERS),
    st.integers().map(str),
    st.integers(-(2**70), 2**70).map(str),
    st.text(alphabet="0123456789-+ ._eE", max_size=12),
    st.text(max_size=8),
)

DICE_ALPHABET = "0123456789DdBbUuRrKkHhLlx+-*/()<>=!#[], ．ｄＤ０１２３＋－"
DICE_SPECIAL = [
    "3D6",
    "3D6<=11",
    "2D6+3",
    "1D100",
    "4D6KH3",
    "D66",
    "x3 2D6",
    "3B6>=4",
    "CRT",
    "FEAR+5",
    "FEAR+99",
    "1D0",
    "0D6",
    "1000D1000",
    "1001D6",
    "1D1001",
    "9" * 400 + "D6",
    "1D6+" + "9" * 900,
    "(((((1D6)))))",
    "(" * 300 + "1D6" + ")" * 300,
    "1D6/0",
    "1D6*0",
    "1D6-" * 200 + "1",
    "x100 1D6",
    "x101 1D6",
    "3D6<=",
    "<=11",
    "3D6 回避 " + "x" * 900,
    "１Ｄ６",
    "3d6<=１１",
    "D",
    "",
    " ",
    "+",
    "-1D6",
    "1D-6",
]
expressions = st.one_of(
    st.sampled_from(DICE_SPECIAL),
    st.text(alphabet=DICE_ALPHABET, max_size=30),
    st.builds(lambda a, b: a + b, st.sampled_from(DICE_SPECIAL), st.text(alphabet=DICE_ALPHABET, max_size=10)),
    st.sampled_from(SPECIAL_TEXT),
)

face = st.one_of(st.integers(-3, 8).map(str), st.integers().map(str), st.sampled_from(NUMBERS))
dice_lists = st.one_of(
    st.lists(st.integers(1, 6), min_size=0, max_size=8).map(lambda fs: ",".join(map(str, fs))),
    st.lists(face, min_size=0, max_size=8).map(",".join),
    st.lists(face, min_size=1, max_size=4).map(lambda fs: " , ".join(fs)),
    st.sampled_from(["", ",", ",,", "1,,2", "1;2;3", "1 2 3", "[1,2,3]", "１,２,３", "1," * 5000 + "1"]),
    text_like(SPECIAL_TEXT),
)

dates = st.one_of(
    st.dates().map(str),
    st.datetimes().map(lambda d: d.isoformat()),
    st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
    st.builds(
        lambda d, h: f"{d}T00:00:00{h}",
        st.sampled_from(["0001-01-01", "9999-12-31", "2026-11-29"]),
        st.sampled_from(["Z", "+14:00", "-12:00", "+23:59", "-23:59", "+01:00", "+24:00", ""]),
    ),
    st.sampled_from(
        [
            "2026-02-30",
            "2026-13-01",
            "0000-01-01",
            "10000-01-01",
            "2026-1-1",
            "20261129",
            "2026-W48-7",
            "2026-333",
            "today",
            "yesterday",
            "",
            " ",
            "2026-11-29T25:00",
            "2026-11-29 10:00",
            "2026-11-29T10:00:00.123456789Z",
            "９９９９-１２-３１",
            "٢٠٢٦-١١-٢٩",
        ]
    ),
    text_like(SPECIAL_TEXT),
)


class Fuzzer:
    """Runs the CLI in-process; checks exit code, message, traceback and the dump."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.runner = CliRunner()
        self.snapshot: str | None = None
        self.codes: Counter[int] = Counter()

    def __call__(self, *args: str, expect: tuple[int, ...] = (0, 1, 2)) -> int:
        if self.snapshot is None:
            self.snapshot = support.dump(self.url)
        result = self.runner.invoke(app, ["--db", self.url, *args], catch_exceptions=False)
        code = result.exit_code
        shown = f"campaign {' '.join(repr(a)[:80] for a in args)}"
        assert code in expect, f"{shown} exited {code}\n{result.output[-2000:]}"
        assert "Traceback" not in result.output, f"{shown}\n{result.output[-2000:]}"
        if code != 0:
            assert result.stderr.strip(), f"{shown} exited {code} without a message"
            assert support.dump(self.url) == self.snapshot, f"{shown} was refused (exit {code}) but changed it"
        else:
            self.snapshot = None  # it may have changed things; dump again before the next run
        self.codes[code] += 1
        return code

    def setup(self) -> None:
        for args in (
            ("init", TWO_D6, "--ruleset", "2d6-ja"),
            ("init", GURPS),
            ("-c", GURPS, "player", "add", "Aki"),
            (
                "-c",
                GURPS,
                "char",
                "add",
                "鈴音",
                "--player",
                "Aki",
                "--stat",
                "Will=11",
                "--stat",
                "IQ=11",
                "--stat",
                "HT=11",
                "--stat",
                "FP=11",
                "--stat",
                "HP=11",
                "--cp",
                "100",
            ),
            ("-c", GURPS, "char", "add", "刀矢", "--player", "Aki", "--stat", "Will=13", "--stat", "HT=12"),
            ("-c", TWO_D6, "player", "add", "Ren"),
            (
                "-c",
                TWO_D6,
                "char",
                "add",
                "灯",
                "--player",
                "Ren",
                "--stat",
                "心=3",
                "--stat",
                "技=2",
                "--stat",
                "体=4",
                "--stat",
                "感=2",
            ),
        ):
            assert self(*args) == 0, args


def _fuzz(db_url: str, target: str, strategy, run) -> None:
    backend = support.backend_of(db_url)
    fuzzer = Fuzzer(db_url)
    fuzzer.setup()
    tried = 0

    @settings(
        derandomize=True,
        max_examples=EXAMPLES[backend],
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
    @given(strategy)
    def examples(value) -> None:
        nonlocal tried
        tried += 1
        run(fuzzer, value)

    examples()
    support.record("fuzz", backend, **{f"{target}_inputs": tried, "inputs": tried, "runs": sum(fuzzer.codes.values())})
    support.record("fuzz_exits", backend, **{str(code): n for code, n in fuzzer.codes.items()})


# --------------------------------------------------------------------------- targets


def _dice_expression(f: Fuzzer, value) -> None:
    expression, manual = value
    f("-c", GURPS, "--seed", "7", "roll", expression, *(["--dice", manual] if manual is not None else []), "--json")
    f("-c", GURPS, "--seed", "7", "roll", "--char", "鈴音", "--", expression)


@pytest.mark.slow
def test_dice_expressions(db_url, fast_cli):
    _fuzz(db_url, "dice_expressions", st.tuples(expressions, st.none() | dice_lists), _dice_expression)


NAME_COMMANDS = [
    lambda n: ("init", n),
    lambda n: ("-c", GURPS, "player", "add", n),
    lambda n: ("-c", GURPS, "char", "add", n, "--player", "Aki", "--stat", "Will=10"),
    lambda n: ("-c", GURPS, "char", "add", n, "--npc", "--summoner", "鈴音"),
    lambda n: ("-c", GURPS, "char", "add", "X", "--player", n),
    lambda n: ("-c", GURPS, "char", "add", "Y", "--player", "Aki", "--stat", f"{n}=3"),
    lambda n: ("-c", GURPS, "char", "show", n, "--json"),
    lambda n: ("-c", GURPS, "char", "relate", n, "鈴音", "--note", n),
    lambda n: ("-c", n, "char", "list", "--json"),
    lambda n: ("-c", GURPS, "--as", n, "roll", "1D6", "--dice", "3"),
    lambda n: ("-c", GURPS, "roll", "1D6", "--reason", n, "--dice", "3"),
    lambda n: ("-c", GURPS, "history", "--char", n, "--player", n, "--csv"),
    lambda n: ("-c", GURPS, "trait", "add", "鈴音", n, "--cp", "-5", "--category", n),
    lambda n: ("-c", GURPS, "trait", "rename", "鈴音", n, n),
    lambda n: ("-c", GURPS, "trait", "remove", "鈴音", n, "--reason", n),
    lambda n: ("-c", GURPS, "fright", "鈴音", "--pick", n, "--reason", n, "--dice", "6,6,6,6,6,6,6,6,6"),
    lambda n: ("-c", GURPS, "fright", n, "--dice", "1,1,1"),
    lambda n: ("-c", GURPS, "condition", "clear", "鈴音", n),
    lambda n: ("-c", GURPS, "missing", "mark", n, "--reason", n),
    lambda n: ("-c", GURPS, "scenario", "start", n, "--with", n),
    lambda n: ("-c", GURPS, "scenario", "show", n),
    lambda n: ("-c", TWO_D6, "check", "ability", "灯", n, "--target", "7", "--dice", "3,4", "--occasion", n),
    lambda n: ("-c", TWO_D6, "check", "oppose", "--active", f"{n}:技", "--passive", "灯:体", "--dice", "1,2,3,4"),
    lambda n: ("-c", GURPS, "table", "roll", n, "--dice", "1,2,3"),
    lambda n: ("-c", GURPS, "settings", f"fright_cap={n}"),
    lambda n: ("use", n),
]


def _name(f: Fuzzer, value) -> None:
    index, name = value
    f(*NAME_COMMANDS[index](name))


@pytest.mark.slow
def test_names(db_url, fast_cli):
    _fuzz(db_url, "names", st.tuples(st.integers(0, len(NAME_COMMANDS) - 1), names), _name)


NUMBER_COMMANDS = [
    lambda n: ("-c", GURPS, "char", "add", f"N{n[:20]}", "--player", "Aki", "--cp", n),
    lambda n: ("-c", GURPS, "char", "set", "刀矢", "--stat", f"Will={n}"),
    lambda n: ("-c", GURPS, "char", "set", "刀矢", "--cp", n),
    lambda n: ("-c", GURPS, "history", "show", n, "--json"),
    lambda n: ("-c", GURPS, "history", "--limit", n, "--json"),
    lambda n: ("-c", GURPS, "history", "--scenario", n),
    lambda n: ("-c", GURPS, "history", "void", "--yes", n, "--reason", "fuzz"),
    lambda n: ("-c", GURPS, "missing", "mark", "刀矢", "--faces", n),
    lambda n: ("-c", GURPS, "missing", "faces", "刀矢", n),
    lambda n: ("-c", GURPS, "trait", "add", "刀矢", f"T{n[:30]}", "--cp", n),
    lambda n: ("-c", GURPS, "fright", "刀矢", "--mod", n, "--choice", n),
    lambda n: ("-c", GURPS, "table", "roll", "FEAR", "--mod", n),
    lambda n: ("-c", GURPS, "--seed", n, "roll", "3D6"),
    lambda n: ("-c", GURPS, "roll", f"1D6+{n}", "--dice", "1"),
    lambda n: ("-c", GURPS, "roll", f"{n}D6"),
    lambda n: ("-c", GURPS, "settings", f"fright_cap={n}"),
    lambda n: ("-c", TWO_D6, "check", "ability", "灯", "技", "--target", n, "--skill", n, "--mod", n),
    lambda n: ("-c", TWO_D6, "check", "ability", "灯", "技", "--target", "7", "--dice-mod", n),
    lambda n: ("-c", TWO_D6, "check", "danger", "灯", "--difficulty", n, "--mod", f"道具={n}"),
    lambda n: ("-c", TWO_D6, "check", "oppose", "--active", f"灯:技+{n}", "--passive", "灯:-", "--effect", n),
]


def _number(f: Fuzzer, value) -> None:
    index, number = value
    f(*NUMBER_COMMANDS[index](number))


@pytest.mark.slow
def test_numbers(db_url, fast_cli):
    _fuzz(db_url, "numbers", st.tuples(st.integers(0, len(NUMBER_COMMANDS) - 1), numbers), _number)


DICE_COMMANDS = [
    lambda d: ("-c", GURPS, "roll", "3D6", "--dice", d),
    lambda d: ("-c", GURPS, "roll", "3D6<=11", "--char", "鈴音", "--dice", d),
    lambda d: ("-c", GURPS, "roll", "x3 2D6", "--dice", d),
    lambda d: ("-c", GURPS, "roll", "D66", "--dice", d),
    lambda d: ("-c", GURPS, "roll", "CRT", "--dice", d),
    lambda d: ("-c", GURPS, "table", "roll", "FEAR+3", "--dice", d),
    lambda d: ("-c", GURPS, "fright", "鈴音", "--dice", d),
    lambda d: ("-c", GURPS, "fright", "刀矢", "--mod", "-10", "--dice", d),
    lambda d: ("-c", TWO_D6, "check", "ability", "灯", "技", "--target", "8", "--dice", d),
    lambda d: ("-c", TWO_D6, "check", "danger", "灯", "--difficulty", "8", "--dice", d),
    lambda d: ("-c", TWO_D6, "check", "oppose", "--active", "灯:技", "--passive", "灯:体", "--dice", d),
    lambda d: ("-c", GURPS, "scenario", "end", "--dice", f"刀矢={d}"),
]


def _dice_list(f: Fuzzer, value) -> None:
    index, dice = value
    f(*DICE_COMMANDS[index](dice))


@pytest.mark.slow
def test_dice_lists(db_url, fast_cli):
    _fuzz(db_url, "dice_lists", st.tuples(st.integers(0, len(DICE_COMMANDS) - 1), dice_lists), _dice_list)


def _date(f: Fuzzer, value) -> None:
    since, until = value
    args = ["-c", GURPS, "history", "--json"]
    if since is not None:
        args += ["--since", since]
    if until is not None:
        args += ["--until", until]
    code = f(*args, expect=(0, 2))  # a read: never "refused by a rule"
    assert code == 0 or (since, until) != (None, None)


@pytest.mark.slow
def test_dates(db_url, fast_cli):
    _fuzz(db_url, "dates", st.tuples(st.none() | dates, st.none() | dates), _date)


# --------------------------------------------------------------------------- the full matrix
# Hypothesis samples; the matrix runs every command of every target with every special
# value, so a PostgreSQL-only failure (NUL in a query, a 32-bit column) cannot hide in
# the smaller PostgreSQL sample.

NASTY_NAMES = [
    "x\x00y",
    "\x00",
    "a\udcffb",
    "x" * 10_000,
    "🎲" * 10_000,
    "'; DROP TABLE ledger; --",
    "%_%",
    "\u202eevil\u202c",
    "👩‍👩‍👧‍👦",
    "",
    " ",
    "a\nb",
    "-x",
    "\\'",
    "鈴音",
]
MATRIX = {
    "names": (NAME_COMMANDS, NASTY_NAMES),
    "numbers": (NUMBER_COMMANDS, NUMBERS),
    "dice_lists": (
        DICE_COMMANDS,
        [
            "",
            ",",
            "1,,2",
            "0",
            "7",
            "-1",
            "9" * 30,
            "1," * 5000 + "1",
            "x\x00y",
            "a\udcffb",
            "１,２,３",
            "6,6,6,6,6,6,6,6,6,6,6,6",
        ],
    ),
}


@pytest.mark.slow  # every command x every special value: ~20 s of CPU per backend
@pytest.mark.dialect
@pytest.mark.parametrize("target", sorted(MATRIX))
def test_every_command_with_every_special_value(db_url, fast_cli, target):
    commands, values = MATRIX[target]
    fuzzer = Fuzzer(db_url)
    fuzzer.setup()
    for command in commands:
        for value in values:
            fuzzer(*command(value))
    for expression in DICE_SPECIAL if target == "dice_lists" else []:
        fuzzer("-c", GURPS, "--seed", "3", "roll", expression)
    support.record("fuzz", support.backend_of(db_url), matrix_runs=sum(fuzzer.codes.values()))
