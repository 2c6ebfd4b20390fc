"""`terraform plan` of the root module (mocked AWS provider, `terraform test`):
the listener signs people in with an identity provider only over HTTPS, and a
public ALB still needs some login (tftests_sign_in/*.tftest.hcl)."""

from __future__ import annotations

import os
from pathlib import Path

from stereo_spot_deploy.testing.tools import terraform_test

ROOT = Path(__file__).resolve().parents[2]


def test_plan_signs_people_in_over_https_only(tmp_path):
    done = terraform_test(ROOT, tmp_path, "tftests_sign_in", os.environ)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "3 passed, 0 failed" in done.stdout
