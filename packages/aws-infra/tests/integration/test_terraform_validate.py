"""`terraform fmt -check` and `terraform validate` on the root module and each
module, with the AWS provider installed offline from TF_PLUGIN_DIR."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stereo_spot_deploy.testing.tools import copy_config, find_terraform

PROJECT = Path(__file__).resolve().parents[2]


def test_terraform_files_are_formatted(tmp_path):
    terraform = find_terraform(os.environ, tmp_path)
    done = terraform.run(PROJECT, "fmt", "-check", "-recursive", "-diff")
    assert done.returncode == 0, f"run `npx nx run aws-infra:fmt`:\n{done.stdout}"


@pytest.mark.parametrize("subdir", [".", "modules/data-plane", "modules/compute"])
def test_configuration_validates(tmp_path, subdir):
    terraform = find_terraform(os.environ, tmp_path)
    # A copy, so init's .terraform never lands in the source tree.
    workdir = copy_config(PROJECT, tmp_path / "aws-infra") / subdir
    terraform.init_offline(workdir)
    done = terraform.run(workdir, "validate")
    assert done.returncode == 0, done.stdout + done.stderr


def test_validate_rejects_an_unknown_inference_backend(tmp_path):
    terraform = find_terraform(os.environ, tmp_path)
    workdir = copy_config(PROJECT, tmp_path / "aws-infra")
    (workdir / "bad.auto.tfvars").write_text(
        'inference_backend = "gpu-box"\n'
        'inference_source_repository = "https://git.example.com/ops/stereo-spot.git"\n')
    (workdir / "backend_override.tf").write_text('terraform {\n  backend "local" {}\n}\n')
    terraform.init_offline(workdir, backend=True)
    done = terraform.run(workdir, "plan", "-refresh=false", "-lock=false")
    assert done.returncode != 0
    assert "inference_backend must be" in done.stdout + done.stderr
