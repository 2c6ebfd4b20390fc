"""mypy.ini checks every package's src, and it fails a file with a type error.

The negative controls run mypy with the repository's own config on a small
file written for the test: a plain type error, and a misspelled keyword to a
pydantic model (what the pydantic plugin adds); a well-typed file passes, so a
failure is the error's and not the config's.
"""

from __future__ import annotations

import configparser
import textwrap
from pathlib import Path

import pytest

from stereo_spot_boundaries.checkers import MYPY_CONFIG, REPO_ROOT, type_check

WELL_TYPED = textwrap.dedent("""
    from pydantic import BaseModel


    class Segment(BaseModel):
        index: int


    def first(segments: list[Segment]) -> int:
        return segments[0].index
""")


def write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(source)
    return path


def test_the_config_checks_every_packages_src():
    config = configparser.ConfigParser()
    config.read(MYPY_CONFIG)
    assert config["mypy"]["files"] == "packages/*/src"
    assert "pydantic.mypy" in config["mypy"]["plugins"]
    checked = set(REPO_ROOT.glob(config["mypy"]["files"]))
    packages = {p.parent for p in REPO_ROOT.glob("packages/*/pyproject.toml")
                if (p.parent / "src").is_dir()}
    assert {p.parent for p in checked} == packages


def test_a_well_typed_file_passes(tmp_path):
    done = type_check([write(tmp_path, "fine.py", WELL_TYPED)])
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(("source", "code"), [
    (WELL_TYPED + '\n\ncount: int = first([]) + "1"\n', "operator"),
    (WELL_TYPED + "\n\nSegment(indx=1)\n", "call-arg"),
])
def test_a_type_error_fails_the_check(tmp_path, source, code):
    path = write(tmp_path, "broken.py", source)
    done = type_check([path])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "broken.py:" in done.stdout and f"[{code}]" in done.stdout, done.stdout
