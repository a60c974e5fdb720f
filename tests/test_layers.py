"""HTTP on top: only routers, FastAPI dependencies, the HTTP package itself and composition import app.http.

A use case, repository, schema or table that imports it has let HTTP leak down (a reply built in a use
case, an If-Match parsed in a store): it returns a result or raises a domain error instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"
COMPOSITION = {"main.py", "deps.py"}
ROUTER_NAMES = {"router.py", "routes.py", "deps.py", "dependencies.py"}
ROUTER_FOLDERS = {"api", "routes"}


def http_imports(source: str) -> list[str]:
    """The app.http modules a module's source imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [name for name in names if name == "app.http" or name.startswith("app.http.")][:1]
    return found


def may_import_http(path: Path) -> bool:
    relative = path.relative_to(APP)
    parts = relative.parts
    return (
        parts[0] == "http"
        or (len(parts) == 1 and parts[0] in COMPOSITION)
        or path.name in ROUTER_NAMES
        or any(part in ROUTER_FOLDERS for part in parts[:-1])
    )


def test_the_check_catches_an_import_of_http():
    assert http_imports("from app.http.responses import Reply") == ["app.http.responses"]
    assert http_imports("import app.http.etags") == ["app.http.etags"]
    assert http_imports("from app import http") == ["app.http"]
    assert http_imports("from app.platform.errors import NotFound") == []
    assert not may_import_http(APP / "encounters" / "store" / "aggregate.py")
    assert may_import_http(APP / "encounters" / "routes" / "rounds.py")
    assert may_import_http(APP / "http" / "command.py")


def test_only_routers_dependencies_and_composition_import_http():
    leaks = {
        str(path.relative_to(APP)): http_imports(path.read_text())
        for path in sorted(APP.rglob("*.py"))
        if not may_import_http(path) and http_imports(path.read_text())
    }
    assert leaks == {}
