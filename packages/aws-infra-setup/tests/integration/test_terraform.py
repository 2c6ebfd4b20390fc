"""fmt, validate and checkov on the state backend project."""

from __future__ import annotations

import os
import re
from pathlib import Path

from stereo_spot_deploy.testing.tools import REPO_ROOT, copy_config, find_terraform, run_checkov

PROJECT = Path(__file__).resolve().parents[2]


def test_formatted_and_valid(tmp_path):
    terraform = find_terraform(os.environ, tmp_path)
    fmt = terraform.run(PROJECT, "fmt", "-check", "-diff")
    assert fmt.returncode == 0, f"run `npx nx run aws-infra-setup:fmt`:\n{fmt.stdout}"
    workdir = copy_config(PROJECT, tmp_path / "setup")
    terraform.init_offline(workdir)
    done = terraform.run(workdir, "validate")
    assert done.returncode == 0, done.stdout + done.stderr


def test_checkov_passes_and_skips_are_documented():
    report = run_checkov(PROJECT, os.environ)
    assert report["results"]["failed_checks"] == []
    security = (REPO_ROOT / "docs" / "SECURITY.md").read_text(encoding="utf-8")
    skipped = {c["check_id"] for c in report["results"]["skipped_checks"]}
    assert skipped
    for check_id in skipped:
        assert re.search(rf"\b{check_id}\b", security), f"{check_id} missing from SECURITY.md"
