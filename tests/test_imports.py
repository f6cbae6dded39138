"""The import graph runs one way (docs/architecture.md): the game package never imports
``agents`` or torch, each folder of ``agents`` imports only folders below it, no module
imports another in a cycle (imports inside functions included), and an import inside a
function is only for a heavy optional library, with its reason on the line."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The layers, lowest first: a module may import its own layer's modules and those below.
LAYERS = [
    ("texas42_env",),
    ("agents.base", "agents.runs", "agents.moved"),
    ("agents.driver",),
    ("agents.search", "agents.nets", "agents.scale"),
    ("agents.baselines",),
    ("agents.bidding",),
    ("agents.shipped",),
    ("agents.arena",),
    ("agents.training",),
    ("agents.ui",),
    ("agents.cli", "agents.bench", "agents.hydra_apps", "agents"),
]
# heavy optional libraries a function may import when it first needs them (and the project's
# modules that import one of them at their top: the solver, the nets, training, the web app)
HEAVY = {"torch", "numba", "matplotlib", "tensorboard", "ray", "fastapi", "uvicorn"}
PACKAGES = ("texas42_env", "agents")


def layer_of(module: str) -> int:
    best, rank = None, -1
    for i, names in enumerate(LAYERS):
        for name in names:
            if module == name or module.startswith(name + "."):
                if len(name) > rank:
                    best, rank = i, len(name)
    if best is None:
        raise KeyError(module)
    return best


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(root: Path, path: Path):
    """(line, imported module, inside a function, the source line) of every import."""
    mod = module_name(root, path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    inner = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner.update(id(n) for n in ast.walk(node)
                         if isinstance(n, (ast.Import, ast.ImportFrom)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            if prefix == "__future__":
                continue
            # ``from pkg import sub`` imports the module pkg.sub when there is one
            targets = []
            for a in node.names:
                sub = f"{prefix}.{a.name}"
                if _is_module(root, sub):
                    targets.append(sub)
                else:
                    targets.append(prefix)
        else:
            continue
        for t in targets:
            yield node.lineno, t, id(node) in inner, lines[node.lineno - 1]


def _is_module(root: Path, name: str) -> bool:
    p = root.joinpath(*name.split("."))
    return p.with_suffix(".py").exists() or (p / "__init__.py").exists()


def violations(root: Path) -> list[str]:
    """Every breach of the rules above in the packages under ``root``."""
    out = []
    graph: dict[str, set[str]] = {}
    # a module is heavy when it imports a heavy library or a heavy module at its top
    top = {module_name(root, path): {t for _, t, f, _ in _imports(root, path) if not f}
           for pkg in PACKAGES for path in (root / pkg).rglob("*.py")}
    heavy_modules = {m for m, ts in top.items() if any(t.split(".")[0] in HEAVY for t in ts)}
    while True:
        more = {m for m, ts in top.items() if ts & heavy_modules} - heavy_modules
        if not more:
            break
        heavy_modules |= more
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            mod = module_name(root, path)
            rel = path.relative_to(root)
            graph.setdefault(mod, set())
            for line, target, in_function, source in _imports(root, path):
                top = target.split(".")[0]
                where = f"{rel}:{line}"
                heavy = top in HEAVY or target in heavy_modules
                if in_function and not heavy:
                    out.append(f"{where}: import of {target} inside a function (only heavy "
                               f"optional libraries: {', '.join(sorted(HEAVY))})")
                if in_function and heavy and "#" not in source:
                    out.append(f"{where}: lazy import of {target} without its reason on the line")
                if mod.split(".")[0] == "texas42_env" and top in ("agents", "torch"):
                    out.append(f"{where}: the game package imports {target}")
                if top not in PACKAGES:
                    continue
                if mod.startswith("agents.") and target == "agents":
                    out.append(f"{where}: {mod} imports the agents package itself (import "
                               f"the module that defines the name)")
                    continue
                try:
                    up = layer_of(target) > layer_of(mod)
                except KeyError:
                    out.append(f"{where}: {target} belongs to no layer of tests/test_imports.py")
                    continue
                if up:
                    out.append(f"{where}: upward import of {target} from {mod}")
                if target != mod:
                    graph[mod].add(target)
    out += [f"import cycle: {' -> '.join(c)}" for c in cycles(graph)]
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected set of modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp) + [sorted(comp)[0]])

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_runs_one_way():
    assert violations(ROOT) == []


def test_every_module_belongs_to_a_layer():
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            layer_of(module_name(ROOT, path))


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for pkg in ("texas42_env", "agents", "agents/arena", "agents/baselines", "agents/search"):
        (tmp_path / pkg).mkdir(parents=True, exist_ok=True)
        (tmp_path / pkg / "__init__.py").touch()
    return tmp_path


def test_the_check_catches_an_upward_import_from_the_game_package(tmp_path):
    root = _tree(tmp_path, {"texas42_env/core.py": "import numpy\n",
                            "texas42_env/env.py": "def f():\n    from agents.base import Agent\n",
                            "agents/base.py": "from texas42_env.core import x\n"})
    found = violations(root)
    assert any("texas42_env/env.py:2: the game package imports agents.base" in v for v in found)
    assert any("inside a function" in v for v in found)


def test_the_check_catches_torch_in_the_game_package(tmp_path):
    root = _tree(tmp_path, {"texas42_env/obs.py": "import torch\n"})
    assert violations(root) == ["texas42_env/obs.py:1: the game package imports torch"]


def test_the_check_catches_an_upward_import_between_folders(tmp_path):
    root = _tree(tmp_path, {"agents/baselines/h.py": "from agents.arena.duplicate import x\n",
                            "agents/arena/duplicate.py": "x = 1\n"})
    assert violations(root) == ["agents/baselines/h.py:1: upward import of "
                                "agents.arena.duplicate from agents.baselines.h"]


def test_the_check_catches_a_cycle_even_through_a_lazy_import(tmp_path):
    root = _tree(tmp_path, {
        "texas42_env/a.py": "from . import b\n",
        "texas42_env/b.py": "def f():\n    import torch  # heavy\n    from .a import x\n"})
    found = violations(root)
    assert "import cycle: texas42_env.a -> texas42_env.b -> texas42_env.a" in found


@pytest.mark.parametrize("line, ok", [("    import torch  # torch: only when asked\n", True),
                                      ("    import torch\n", False),
                                      ("    import json\n", False),
                                      ("    from agents.search.solver import x  # numba\n", True),
                                      ("    from agents.search.solver import x\n", False),
                                      ("    from agents.arena.ratings import x  # why\n", False)])
def test_lazy_imports_are_for_heavy_libraries_with_a_reason(tmp_path, line, ok):
    root = _tree(tmp_path, {"agents/arena/plot.py": "def f():\n" + line,
                            "agents/arena/ratings.py": "x = 1\n",
                            "agents/search/solver.py": "import numba\nx = 1\n"})
    assert (violations(root) == []) == ok


def test_importing_the_packages_loads_neither_torch_nor_numba():
    code = ("import sys, texas42_env, agents, agents.cli\n"
            "print(sorted(m for m in ('torch', 'numba') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_a_module_that_loads_a_heavy_one_at_its_top_is_heavy_too(tmp_path):
    root = _tree(tmp_path, {"agents/search/kernels.py": "import numba\n",
                            "agents/search/solver.py": "from agents.search.kernels import k\n",
                            "agents/arena/use.py": "def f():\n"
                                                   "    from agents.search.solver import s  # numba\n"})
    assert violations(root) == []


@pytest.mark.parametrize("old", sorted(__import__("agents.moved").moved.MOVED))
def test_a_moved_module_imports_by_its_old_name_and_says_the_new(old):
    """The old dotted name gives the new module itself, with a DeprecationWarning naming it
    (in a fresh interpreter: this one may have imported it already)."""
    from agents.moved import MOVED

    code = ("import importlib, warnings\n"
            "warnings.simplefilter('error')\n"
            f"try:\n    importlib.import_module({old!r})\n"
            "except DeprecationWarning as e:\n    print(e)\n"
            "warnings.simplefilter('ignore')\n"
            f"print(importlib.import_module({old!r}) is importlib.import_module("
            f"{MOVED[old]!r}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        f"{old} is now {MOVED[old]}: import that (the old name will go)", "True"]
