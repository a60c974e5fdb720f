"""The Docker image runs the resolver and the odds simulation compiled with mypyc
(scripts/compile-resolver). Compiled code is not the same program: mypyc refuses some Python and
checks types at run time. So the resolver's own tests, every golden vector and the simulation's tests
run again here, against a compiled copy of the code, in a subprocess. `make run` serves the same build
(scripts/compiled-app), whose jobs are pickled to the odds processes: the runner's tests run compiled too."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITES = ["tests/resolver", "tests/odds/test_simulate.py", "tests/odds/test_arena.py", "tests/odds/test_runner.py"]
SERVED = """
import asyncio, pickle, sys
sys.path.insert(0, "var/compiled")  # what `uvicorn --app-dir var/compiled` does
import app.config, app.odds.tally as tally, app.resolver
from app.odds.runner import OddsRunner
from app.resolver import Combatant
job = tally.OddsJob(tuple(Combatant(c, 15, 16, 2, "long_sword") for c in "abc"), ("x", "y", "y"), {}, 1, 7, 30)
assert pickle.loads(pickle.dumps(job)) == job
runner = OddsRunner(1, max_pending=300)  # a spawned process: the job and its tally cross by pickle
try:
    assert asyncio.run(runner.play(job, 300)) == tally.play_chunk(job, 0, 300)
finally:
    runner.close()
print(app.resolver.COMPILED, tally.__file__, app.config.DEFAULT_SQLITE_PATH)
"""


CAN_BUILD = shutil.which("cc") is not None and (Path(sysconfig.get_paths()["include"]) / "Python.h").exists()


@pytest.mark.slow
@pytest.mark.skipif(not CAN_BUILD, reason="no C compiler or no Python headers here: mypyc cannot build")
def test_the_compiled_resolver_passes_the_resolver_suites(tmp_path):
    ignore = shutil.ignore_patterns("__pycache__", "*.so", ".pytest_cache")
    for folder in ("app", "tests", "scripts"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    env = {**os.environ, "PYTHON": sys.executable}
    # Built as `make run` builds it (one compile: its extensions are then put beside the copy's sources too)
    subprocess.run(["bash", "scripts/compiled-app", "var/compiled"], cwd=tmp_path, env=env, check=True)
    served = subprocess.run([sys.executable, "-c", SERVED], cwd=tmp_path, capture_output=True, text=True)
    assert served.returncode == 0, served.stderr[-3000:]
    compiled_flag, tally_file, sqlite_path = served.stdout.split()
    assert compiled_flag == "True" and tally_file.endswith(".so"), served.stdout
    assert sqlite_path == str(tmp_path.resolve() / "var" / "combat.db"), "the served copy's paths are the tree's"
    shutil.copytree(tmp_path / "var/compiled/.extensions", tmp_path, dirs_exist_ok=True)

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
