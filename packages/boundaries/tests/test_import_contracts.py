"""The layer contracts in .importlinter hold, and each breaks on a deliberate violation.

A violation is one module added to a copy of one of our packages in a
temporary folder; the copy shadows the real package (it goes first on the module
search path) and import-linter runs on the repository's own contracts file,
exactly as the ``boundaries:imports`` target runs it.
"""

from __future__ import annotations

import configparser
import shutil
from pathlib import Path

import pytest

from stereo_spot_boundaries.checkers import IMPORT_CONTRACTS, REPO_ROOT, lint_imports


def shadow(root: Path, package: str, modules: dict[str, str]) -> Path:
    """A copy of our ``package`` under ``root`` with ``modules`` (name -> source) added."""
    [source] = REPO_ROOT.glob(f"packages/*/src/{package}")
    shutil.copytree(source, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    for name, text in modules.items():
        (root / package / f"{name}.py").write_text(text)
    return root


def contracts() -> configparser.ConfigParser:
    parser = configparser.ConfigParser()
    parser.read(IMPORT_CONTRACTS)
    return parser


def test_the_repository_keeps_every_contract():
    done = lint_imports()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_every_package_of_ours_is_under_the_contracts():
    ours = {p.name for p in REPO_ROOT.glob("packages/*/src/*")
            if (p / "__init__.py").is_file()}
    roots = set(contracts()["importlinter"]["root_packages"].split())
    assert ours - {"stereo_spot_boundaries"} == roots


VIOLATIONS = {  # a module planted in a package of ours: what lint-imports must print
    "a worker importing the web UI": (
        "media_worker", "from web_ui import settings\n",
        ["Workers never import the web UI BROKEN", "media_worker.leak -> web_ui.settings"]),
    "boto3 outside the adapters": (
        "video_worker", "def client():\n    import boto3\n",
        ["Only the adapters import boto3", "video_worker.leak -> boto3"]),
    "contracts importing a service": (
        "shared_types", "import video_worker.settings\n",
        ["Contracts (shared_types) import nothing of ours BROKEN"]),
}


@pytest.mark.parametrize("violation", sorted(VIOLATIONS))
def test_a_violation_breaks_its_contract(tmp_path, violation):
    package, source, printed = VIOLATIONS[violation]
    path = shadow(tmp_path, package, {"leak": source})
    done = lint_imports(first_on_path=path)
    assert done.returncode == 1, done.stdout
    for line in printed:
        assert line in done.stdout


@pytest.mark.parametrize(("module", "broken"), [("bootstrap", False), ("routes_leak", True)])
def test_only_the_wiring_module_may_import_an_adapter(tmp_path, module, broken):
    path = shadow(tmp_path, "web_ui", {module: "from local_adapters import storage_app\n"})
    done = lint_imports(first_on_path=path)
    line = "Adapters are imported only by each service's wiring module BROKEN"
    assert (line in done.stdout) is broken, done.stdout
