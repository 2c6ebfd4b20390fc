"""Find and run terraform (offline, with a local provider mirror) and checkov.

Used by the tests of aws-infra and aws-infra-setup. A missing tool is a skip
with a clear reason on a workstation and a failure in CI (``CI=true``), so a
broken CI image can never pass by skipping.
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


def find_terraform(env: Mapping[str, str], tmp_dir: Path) -> Terraform:
    """The terraform binary and offline plugin dir (``TF_PLUGIN_DIR`` overrides
    /opt/tf-plugins), or skip/fail when either is missing."""
    binary = shutil.which("terraform") or "/usr/local/bin/terraform"
    plugin_dir = Path(env.get("TF_PLUGIN_DIR") or DEFAULT_PLUGIN_DIR)
    if not Path(binary).is_file():
        skip_or_fail("terraform is not installed", env)
    if not (plugin_dir / "registry.terraform.io" / "hashicorp" / "aws").is_dir():
        skip_or_fail(
            f"no offline hashicorp/aws provider under {plugin_dir} (set TF_PLUGIN_DIR)", env)
    cli_config = tmp_dir / "terraformrc"
    cli_config.write_text("", encoding="utf-8")
    return Terraform(Path(binary), plugin_dir, cli_config)


def copy_config(source: Path, dest: Path) -> Path:
    """Copy a Terraform project's .tf files and modules (no .terraform, no state)."""
    def ignore(_dir: str, names: list[str]) -> set[str]:
        return {n for n in names if n.startswith((".terraform", "terraform.tfstate"))
                or n in {"src", "tests", "docker", "tools", "backend.hcl"}}
    shutil.copytree(source, dest, ignore=ignore)
    return dest


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
