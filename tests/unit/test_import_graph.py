"""The layers, checked from the source: cli -> services -> core/projection/db/ledger,
and no arrow back up; core pure; no module too long to read in one sitting.

Every module under campaign/ is parsed with `ast` (nothing is imported), and every
import counts, also one made lazily inside a function: a lazy import is still an edge.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "campaign"
# Measured as `ruff format` writes the code (one argument per line once a signature is
# over 120 columns): the same size of module the earlier compact style kept within 500.
MAX_LINES = 650

# Core reads no file, opens no connection and knows no framework: the caller passes in
# what it needs (campaign.seeds loads the rule tables; services own the database).
CORE_FORBIDDEN = (
    "sqlalchemy",
    "typer",
    "rich",
    "click",
    "os",
    "pathlib",
    "io",
    "tomllib",
    "importlib",
    "subprocess",
    "socket",
    "sqlite3",
    "psycopg",
    "psycopg2",
    "shutil",
    "tempfile",
)
CORE_FORBIDDEN_NAMES = ("open", "__import__")  # the builtins that reach the file system / load modules
CORE_MAY_IMPORT = ("campaign.core", "campaign.errors")

# Lower layers never reach up to the ones that call them.
UPWARD = {
    "campaign.core": ("campaign.services", "campaign.cli", "campaign.web"),
    "campaign.projection": ("campaign.services", "campaign.cli", "campaign.web"),
    "campaign.services": ("campaign.cli", "campaign.web"),
    "campaign.db": ("campaign.services", "campaign.cli", "campaign.web"),
    "campaign.ledger": ("campaign.services", "campaign.cli", "campaign.web"),
    "campaign.chain": ("campaign.services", "campaign.cli", "campaign.web"),
}

# The projection decides what the ledger proves: it reads nothing installed beside it
# (docs/rules.md "Derived stats": an op carries the values it was decided with). No seed
# loader, no file: what a module may not import, and the calls that read a file.
PROJECTION_FORBIDDEN = ("campaign.seeds", "tomllib", "importlib", "pathlib", "io", "os", "shutil", "sqlite3")
FILE_READS = ("open", "__import__", "read_text", "read_bytes", "files", "load", "loads")
# Replay's modules, and all they import (lazily too), never reach a seed loader; of them
# only the message catalog reads a file (the words of a refusal, never its outcome).
REPLAY_ROOTS = ("campaign.projection.replay", "campaign.projection.ops")
REPLAY_MAY_READ = ("campaign.i18n",)

# The CLI goes through services: it never touches the ledger or the ORM models itself.
CLI_FORBIDDEN = ("campaign.ledger", "campaign.db.models", "sqlalchemy")

# Modules allowed past MAX_LINES, each with the reason.
LONG_EXEMPT: dict[str, str] = {
    "campaign/proofcheck.py": "a player runs this one file alone: it carries every line it prints in both languages",
    "campaign/fair_check.py": "a player copies this one file next to proofcheck.py: the rules come with it",
}
LONG_EXEMPT_DIRS: dict[str, str] = {}


@dataclass(frozen=True)
class Module:
    name: str  # campaign.core.fright
    path: Path
    relative: str  # campaign/core/fright.py
    source: str

    @property
    def lines(self) -> int:
        return len(self.source.splitlines())

    @cached_property
    def tree(self) -> ast.Module:
        """Parsed when a test first asks, not while collecting: collection runs in every worker."""
        return ast.parse(self.source, filename=str(self.path))

    def imports(self) -> list[tuple[str, int]]:
        """(imported module, line) for every import statement, relative ones resolved."""
        found = []
        package = self.name if self.path.name == "__init__.py" else self.name.rpartition(".")[0]
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                found.extend((alias.name, node.lineno) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                found.append((target, node.lineno))
                # `from campaign import ledger` imports the module campaign.ledger
                found.extend((f"{target}.{alias.name}", node.lineno) for alias in node.names)
        return found


def _modules() -> list[Module]:
    modules = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).as_posix()
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules.append(Module(".".join(parts), path, relative, path.read_text(encoding="utf-8")))
    return modules


MODULES = _modules()


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _in_layer(prefix: str) -> list[Module]:
    return [m for m in MODULES if _within(m.name, prefix)]


def test_the_walk_sees_every_layer():
    names = {m.name for m in MODULES}
    for expected in (
        "campaign.core.fright",
        "campaign.projection.ops",
        "campaign.services.checks.action_checks",
        "campaign.cli.app",
        "campaign.seeds",
    ):
        assert expected in names
    assert len(_in_layer("campaign.core")) >= 20


@pytest.mark.parametrize("module", _in_layer("campaign.core"), ids=lambda m: m.name)
def test_core_imports_only_core_and_no_io(module):
    bad = []
    for target, line in module.imports():
        top = target.split(".")[0]
        if top == "campaign":
            if target != "campaign" and not any(_within(target, ok) for ok in CORE_MAY_IMPORT):
                bad.append(f"line {line}: imports {target}")
        elif top in CORE_FORBIDDEN:
            bad.append(f"line {line}: imports {target}")
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Name) and node.id in CORE_FORBIDDEN_NAMES:
            bad.append(f"line {node.lineno}: uses {node.id}")
    assert not bad, f"{module.relative}: " + "; ".join(bad)


@pytest.mark.parametrize("layer", sorted(UPWARD))
def test_no_upward_edge(layer):
    bad = [
        f"{m.relative} line {line}: imports {target}"
        for m in _in_layer(layer)
        for target, line in m.imports()
        if any(_within(target, upper) for upper in UPWARD[layer])
    ]
    assert not bad, "\n".join(bad)


def test_cli_does_not_touch_ledger_internals():
    bad = [
        f"{m.relative} line {line}: imports {target}"
        for m in _in_layer("campaign.cli")
        for target, line in m.imports()
        if any(_within(target, internal) for internal in CLI_FORBIDDEN)
        or target.startswith("campaign.db.models")  # models, models_state ...
    ]
    assert not bad, "\n".join(bad)


def test_no_module_is_too_long():
    too_long = [
        f"{m.relative}: {m.lines} lines"
        for m in MODULES
        if m.lines > MAX_LINES
        and m.relative not in LONG_EXEMPT
        and not any(m.relative.startswith(d) for d in LONG_EXEMPT_DIRS)
    ]
    assert not too_long, "\n".join(too_long)


def test_every_exemption_is_still_needed():
    """An exemption for a file that is gone or short again would hide the next long one."""
    by_path = {m.relative: m for m in MODULES}
    stale = [path for path in LONG_EXEMPT if path not in by_path or by_path[path].lines <= MAX_LINES]
    assert not stale, f"drop these from LONG_EXEMPT: {stale}"


def _file_reads(module: Module) -> list[str]:
    """Calls that read a file: open(...), __import__, x.read_text(), resources.files(),
    tomllib.load(...) and the like, by the name called."""
    found = []
    for node in ast.walk(module.tree):
        if not isinstance(node, ast.Call):
            continue
        called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if called in FILE_READS:
            found.append(f"line {node.lineno}: calls {called}")
    return found


@pytest.mark.parametrize("module", _in_layer("campaign.projection"), ids=lambda m: m.name)
def test_the_projection_reads_no_seed_and_no_file(module):
    bad = [
        f"line {line}: imports {target}"
        for target, line in module.imports()
        if any(_within(target, forbidden) for forbidden in PROJECTION_FORBIDDEN)
    ]
    assert not bad + _file_reads(module), f"{module.relative}: " + "; ".join(bad + _file_reads(module))


def _resolved(target: str, names: set[str]) -> str | None:
    """The module an import names (`from campaign.x import f` names campaign.x)."""
    while target and target not in names:
        target = target.rpartition(".")[0]
    return target or None


def _reached(roots: tuple[str, ...], modules: list[Module]) -> dict[str, Module]:
    by_name = {m.name: m for m in modules}
    reached: dict[str, Module] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in reached or name not in by_name:
            continue
        reached[name] = by_name[name]
        todo += [t for t in (_resolved(target, set(by_name)) for target, _ in by_name[name].imports()) if t]
    return reached


def test_replay_reaches_no_seed_loader_and_reads_no_file(modules: list[Module] | None = None):
    reached = _reached(REPLAY_ROOTS, MODULES if modules is None else modules)
    assert set(REPLAY_ROOTS) <= set(reached)
    assert "campaign.seeds" not in reached, sorted(reached)
    reads = {name: _file_reads(module) for name, module in reached.items() if name not in REPLAY_MAY_READ}
    assert not any(reads.values()), {name: found for name, found in reads.items() if found}


# --- the checker itself: each rule catches what it is meant to -------------------------------


def _fake(name: str, source: str) -> Module:
    path = Path("/nowhere") / (name.replace(".", "/") + ".py")
    return Module(name, path, name.replace(".", "/") + ".py", source)


def test_checker_resolves_relative_and_lazy_imports():
    module = _fake("campaign.core.x", "from . import tables\ndef f():\n    from ..services.checks import fright\n")
    targets = {target for target, _ in module.imports()}
    assert {
        "campaign.core",
        "campaign.core.tables",
        "campaign.services.checks",
        "campaign.services.checks.fright",
    } <= targets


def test_checker_refuses_io_in_core():
    with pytest.raises(AssertionError, match="imports pathlib"):
        test_core_imports_only_core_and_no_io(_fake("campaign.core.x", "from pathlib import Path\n"))
    with pytest.raises(AssertionError, match="uses open"):
        test_core_imports_only_core_and_no_io(_fake("campaign.core.x", "def f(p):\n    return open(p).read()\n"))
    with pytest.raises(AssertionError, match="imports campaign.seeds"):
        test_core_imports_only_core_and_no_io(_fake("campaign.core.x", "def f():\n    from campaign import seeds\n"))
    test_core_imports_only_core_and_no_io(_fake("campaign.core.x", "from campaign.errors import DataError\n"))


def test_checker_refuses_seeds_and_file_reads_in_the_projection():
    for source, reason in (
        ("from campaign.seeds import stat_names_for\n", "imports campaign.seeds"),
        ("def f():\n    from campaign import seeds\n", "imports campaign.seeds"),
        ("import tomllib\n", "imports tomllib"),
        ("from importlib.resources import files\n", "imports importlib.resources"),
        ("from pathlib import Path\n", "imports pathlib"),
        ("def f(p):\n    return open(p).read()\n", "calls open"),
        ("def f(p):\n    return p.read_text(encoding='utf-8')\n", "calls read_text"),
        ("def f(toml, handle):\n    return toml.load(handle)\n", "calls load"),
    ):
        with pytest.raises(AssertionError, match=reason):
            test_the_projection_reads_no_seed_and_no_file(_fake("campaign.projection.x", source))


def test_checker_follows_replay_into_what_it_imports():
    """A seed loader two imports away, lazily, is still reached."""
    modules = [
        _fake("campaign.projection.replay", "from campaign.projection.ops import parse_op\n"),
        _fake("campaign.projection.ops", "def f():\n    from campaign.helper import names\n"),
        _fake("campaign.helper", "def names():\n    from campaign.seeds import stat_names_for\n"),
        _fake("campaign.seeds", "def stat_names_for(r):\n    return open(r)\n"),
    ]
    with pytest.raises(AssertionError, match="campaign.seeds"):
        test_replay_reaches_no_seed_loader_and_reads_no_file(modules)
    modules[2] = _fake("campaign.helper", "def names(p):\n    return p.read_text()\n")
    with pytest.raises(AssertionError, match="calls read_text"):
        test_replay_reaches_no_seed_loader_and_reads_no_file(modules)
