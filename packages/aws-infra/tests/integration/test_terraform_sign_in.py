"""`terraform plan` of the root module (mocked AWS provider, `terraform test`):
the listener signs people in with an identity provider only over HTTPS, and a
public ALB still needs some login (tftests_sign_in/*.tftest.hcl)."""

from __future__ import annotations

import os
from pathlib import Path

from stereo_spot_deploy.testing.tools import copy_config, find_terraform

ROOT = Path(__file__).resolve().parents[2]


def test_plan_signs_people_in_over_https_only(tmp_path):
    terraform = find_terraform(os.environ, tmp_path)
    workdir = copy_config(ROOT, tmp_path / "root")
    terraform.init_offline(workdir)
    done = terraform.run(workdir, "test", "-test-directory=tftests_sign_in", timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "3 passed, 0 failed" in done.stdout
