"""Find and run terraform (offline, with a local provider mirror) and checkov.

Used by the tests of aws-infra and aws-infra-setup. terraform and its offline
provider come with the machine image, not with this repository, so where
either is absent the Terraform tests skip with a clear reason (DESIGN.md),
in CI too. checkov is installed by the ``aws-infra:install-checkov`` target, so
a missing checkov is a skip on a workstation and a failure in CI (``CI=true``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

DEFAULT_PLUGIN_DIR = Path("/opt/tf-plugins")
REPO_ROOT = Path(__file__).resolve().parents[5]
CHECKOV = REPO_ROOT / ".venv-checkov" / "bin" / "checkov"


def skip_or_fail(reason: str, env: Mapping[str, str]) -> None:
    """Skip the calling test, or fail it when running in CI."""
    if env.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"{reason} (required in CI)")
    pytest.skip(reason)


@dataclass(frozen=True)
class Terraform:
    """A terraform binary that installs providers only from ``plugin_dir``."""

    binary: Path
    plugin_dir: Path
    cli_config: Path

    def env(self) -> dict[str, str]:
        """Environment for terraform: no network mirror, no CLI config warnings."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
        env.update(TF_IN_AUTOMATION="1", TF_INPUT="0", TF_CLI_CONFIG_FILE=str(self.cli_config))
        return env

    def run(self, workdir: Path, *args: str, timeout: float = 240) -> subprocess.CompletedProcess:
        """Run ``terraform args`` in ``workdir``; returns the finished process."""
        return subprocess.run(
            [str(self.binary), *args, "-no-color"], cwd=workdir, env=self.env(),
            capture_output=True, text=True, timeout=timeout, check=False,
        )

    def init_offline(self, workdir: Path, *, backend: bool = False) -> None:
        """``terraform init`` from the plugin dir (``-backend=false`` unless
        ``backend``); fails the test on error."""
        done = self.run(workdir, "init", f"-backend={str(backend).lower()}",
                        f"-plugin-dir={self.plugin_dir}")
        assert done.returncode == 0, done.stdout + done.stderr


def _has_aws_provider(plugin_dir: Path) -> bool:
    return (plugin_dir / "registry.terraform.io" / "hashicorp" / "aws").is_dir()


def _find_plugin_dir() -> Path:
    """/opt/tf-plugins, else any folder directly under /opt holding the provider
    (the machine image decides where its offline mirror lives)."""
    if _has_aws_provider(DEFAULT_PLUGIN_DIR):
        return DEFAULT_PLUGIN_DIR
    found = sorted(p for p in Path("/opt").glob("*") if _has_aws_provider(p))
    return found[0] if found else DEFAULT_PLUGIN_DIR


def find_terraform(env: Mapping[str, str], tmp_dir: Path) -> Terraform:
    """The terraform binary and offline plugin dir (``TF_PLUGIN_DIR`` overrides
    /opt/tf-plugins), or skip with the reason when either is missing."""
    binary = shutil.which("terraform") or "/usr/local/bin/terraform"
    plugin_dir = Path(env.get("TF_PLUGIN_DIR") or _find_plugin_dir())
    if not Path(binary).is_file():
        pytest.skip("terraform is not installed (it comes with the machine image)")
    if not _has_aws_provider(plugin_dir):
        pytest.skip(f"no offline hashicorp/aws provider under {plugin_dir} (set TF_PLUGIN_DIR)")
    cli_config = tmp_dir / "terraformrc"
    cli_config.write_text("", encoding="utf-8")
    return Terraform(Path(binary), plugin_dir, cli_config)


# modules/data-plane reads the data plane's one definition from shared-types
DATA_PLANE_JSON = Path("shared-types/src/shared_types/data_plane.json")


def copy_config(source: Path, dest: Path) -> Path:
    """Copy a Terraform project's .tf files and modules (no .terraform, no state),
    and the data-plane definition beside it at the relative path its modules read."""
    def ignore(_dir: str, names: list[str]) -> set[str]:
        return {n for n in names if n.startswith((".terraform", "terraform.tfstate"))
                or n in {"src", "tests", "docker", "tools", "backend.hcl"}}
    shutil.copytree(source, dest, ignore=ignore)
    if (source / "modules" / "data-plane").is_dir():
        (dest.parent / DATA_PLANE_JSON).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source.parent / DATA_PLANE_JSON, dest.parent / DATA_PLANE_JSON)
    return dest


def terraform_test(root: Path, tmp_dir: Path, directory: str,
                   env: Mapping[str, str]) -> subprocess.CompletedProcess:
    """``terraform test -test-directory=directory`` on a copy of the root module
    ``root`` (offline provider, mocked AWS); skips where terraform is absent."""
    terraform = find_terraform(env, tmp_dir)
    workdir = copy_config(root, tmp_dir / "root")
    terraform.init_offline(workdir)
    return terraform.run(workdir, "test", f"-test-directory={directory}", timeout=300)


def run_checkov(directory: Path, env: Mapping[str, str]) -> dict:
    """checkov's JSON summary for one directory of Terraform (skips/fails if absent)."""
    if not CHECKOV.is_file():
        skip_or_fail(f"checkov is not installed at {CHECKOV}: "
                     "run `npx nx run aws-infra:install-checkov`", env)
    done = subprocess.run(
        [str(CHECKOV), "--skip-download", "--framework", "terraform", "-d", str(directory),
         "-o", "json"],
        capture_output=True, text=True, timeout=240, check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    return report[0] if isinstance(report, list) else report
