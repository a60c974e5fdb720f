"""The resolver is a pure core: it imports only the standard library and its own modules (STYLE.md)."""

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = "app.resolver"
PACKAGE_DIR = Path(__file__).resolve().parents[2] / "app" / "resolver"
BANNED_STDLIB = {"random"}  # dice are injected; a global random would make rounds unreplayable


def module_name(path: Path) -> str:
    """app/resolver/dice.py -> app.resolver.dice; app/resolver/__init__.py -> app.resolver."""
    parts = path.relative_to(PACKAGE_DIR).with_suffix("").parts
    return ".".join((PACKAGE, *parts[:-1])) if parts[-1] == "__init__" else ".".join((PACKAGE, *parts))


def imported_modules(source: str, importer: str, is_package: bool = False) -> list[str]:
    """Every module `source` imports, anywhere in it, with relative imports resolved to absolute names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.append(node.module)
                continue
            # `from . import x` in a package's __init__ starts from the package itself, elsewhere from its parent
            anchor = importer.split(".") if is_package else importer.split(".")[:-1]
            base = anchor[: len(anchor) - (node.level - 1)]
            if node.module:
                found.append(".".join((*base, node.module)))
            else:
                found.extend(".".join((*base, alias.name)) for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in (
            "__import__", "import_module"
        ):
            found.append("<dynamic import>")  # cannot be judged statically, so it is refused
    return found


def is_allowed(module: str) -> bool:
    if module == PACKAGE or module.startswith(PACKAGE + "."):
        return True
    top = module.split(".")[0]
    return top in sys.stdlib_module_names and top not in BANNED_STDLIB


def resolver_files() -> list[Path]:
    return sorted(PACKAGE_DIR.rglob("*.py"))


def test_the_walk_sees_the_whole_package():
    names = {module_name(path) for path in resolver_files()}
    assert {"app.resolver", "app.resolver.round", "app.resolver.dice", "app.resolver.validate"} <= names


@pytest.mark.parametrize("path", resolver_files(), ids=lambda path: path.name)
def test_module_imports_only_the_standard_library_and_its_own_package(path):
    imports = imported_modules(path.read_text(), module_name(path), is_package=path.name == "__init__.py")
    assert [module for module in imports if not is_allowed(module)] == []


@pytest.mark.parametrize(
    ("source", "importer", "expected"),
    [
        ("import fastapi", "app.resolver.round", ["fastapi"]),
        ("from sqlalchemy.orm import Session", "app.resolver.round", ["sqlalchemy.orm"]),
        ("from .. import config", "app.resolver.round", ["app.config"]),
        ("from ..encounters.models import X", "app.resolver.round", ["app.encounters.models"]),
        ("def f():\n    import pydantic", "app.resolver.round", ["pydantic"]),
        ("import random", "app.resolver.dice", ["random"]),
        ("import importlib\nimportlib.import_module('x')", "app.resolver.round", ["<dynamic import>"]),
    ],
)
def test_the_checker_catches_what_it_must(source, importer, expected):
    """Guards against a vacuous purity test: each of these must be reported."""
    assert [m for m in imported_modules(source, importer) if not is_allowed(m)] == expected


@pytest.mark.parametrize(
    ("source", "importer", "is_package", "expected"),
    [
        ("from .dice import SeededDice", "app.resolver.round", False, ["app.resolver.dice"]),
        ("from . import bounds", "app.resolver.validate", False, ["app.resolver.bounds"]),
        ("from .round import resolve_round", "app.resolver", True, ["app.resolver.round"]),
        ("from collections.abc import Mapping", "app.resolver.round", False, ["collections.abc"]),
    ],
)
def test_relative_imports_resolve_inside_the_package(source, importer, is_package, expected):
    assert imported_modules(source, importer, is_package) == expected
    assert all(is_allowed(module) for module in expected)
