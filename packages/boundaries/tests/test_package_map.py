"""docs/ARCHITECTURE.md's package map and the README's layout table say what
the pyproject files declare: a dependency added or dropped in one place and
not the other fails here."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BEGIN, END = "<!-- package-map: begin -->", "<!-- package-map: end -->"
Map = dict[str, tuple[set[str], dict[str, set[str]]]]


def _ours(requirements: list[str]) -> set[str]:
    names = (re.split(r"[<>=\[ ;]", r, maxsplit=1)[0] for r in requirements)
    return {n.removeprefix("stereo-spot-") for n in names if n.startswith("stereo-spot-")}


def declared() -> Map:
    """Each package folder's own dependencies and extras (ours only)."""
    found: Map = {}
    for pyproject in sorted((ROOT / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        extras = {name: _ours(reqs)
                  for name, reqs in project.get("optional-dependencies", {}).items()}
        found[pyproject.parent.name] = (_ours(project.get("dependencies", [])),
                                        {k: v for k, v in extras.items() if v})
    return found


def documented(text: str) -> Map:
    """The package-map table of docs/ARCHITECTURE.md, read back."""
    body = text.split(BEGIN, 1)[1].split(END, 1)[0]
    found: Map = {}
    for line in body.strip().splitlines()[2:]:
        package, deps, extras = (cell.strip() for cell in line.strip("|").split("|"))
        needs = set() if deps == "—" else {d.strip() for d in deps.split(",")}
        optional: dict[str, set[str]] = {}
        if extras != "—":
            for group in extras.split(";"):
                name, names = group.split(":")
                optional[name.strip()] = {n.strip() for n in names.split(",")}
        found[package] = (needs, optional)
    return found


def test_the_package_map_is_what_the_pyprojects_declare():
    doc = documented((ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    assert doc == declared()


def test_negative_control_a_dependency_missing_from_the_map_is_caught():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    dropped = text.replace("| media-worker | shared-types, media, ",
                           "| media-worker | shared-types, ", 1)
    assert dropped != text
    assert documented(dropped) != declared()


@pytest.mark.parametrize("package", sorted(declared()))
def test_the_readme_layout_table_names_every_package(package):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"`packages/{package}`" in readme
