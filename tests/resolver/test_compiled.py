"""The Docker image runs the resolver and the odds simulation compiled with mypyc
(scripts/compile-resolver). Compiled code is not the same program: mypyc refuses some Python and
checks types at run time. So the resolver's own tests, every golden vector and the simulation's tests
run again here, against a compiled copy of the code, in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITES = ["tests/resolver", "tests/odds/test_simulate.py", "tests/odds/test_arena.py"]


CAN_BUILD = shutil.which("cc") is not None and (Path(sysconfig.get_paths()["include"]) / "Python.h").exists()


@pytest.mark.slow
@pytest.mark.skipif(not CAN_BUILD, reason="no C compiler or no Python headers here: mypyc cannot build")
def test_the_compiled_resolver_passes_the_resolver_suites(tmp_path):
    ignore = shutil.ignore_patterns("__pycache__", "*.so", ".pytest_cache")
    for folder in ("app", "tests"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    env = {**os.environ, "PYTHON": sys.executable}
    subprocess.run(["bash", str(ROOT / "scripts/compile-resolver"), str(tmp_path)], env=env, check=True)

    compiled = subprocess.run(
        [sys.executable, "-c", "import app.resolver, app.odds.simulate as s; print(app.resolver.COMPILED, s.__file__)"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    ).stdout.split()
    assert compiled[0] == "True" and not compiled[1].endswith(".py"), compiled

    suites = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--deselect",
         "tests/resolver/test_compiled.py", *SUITES],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert suites.returncode == 0, suites.stdout[-4000:] + suites.stderr[-2000:]
