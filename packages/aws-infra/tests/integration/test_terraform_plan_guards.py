"""`terraform plan` of the root module (mocked AWS provider, `terraform test`)
refuses a web UI open to the internet without a login or without HTTPS, and a
CodeBuild source that is not the operator's https repository
(tftests/*.tftest.hcl). Each refusal sits beside a plan that passes (the
control): the guards can say yes."""

from __future__ import annotations

import os
from pathlib import Path

from stereo_spot_deploy.testing.tools import terraform_test

ROOT = Path(__file__).resolve().parents[2]


def test_plan_refuses_a_public_alb_without_auth_and_plans_the_safe_ones(tmp_path):
    done = terraform_test(ROOT, tmp_path, "tftests", os.environ)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "7 passed, 0 failed" in done.stdout
    for refused in ("a_public_alb_on_plain_http_is_refused_even_with_a_login",
                    "a_public_ipv6_alb_on_plain_http_is_refused",
                    "a_plain_http_source_repository_is_refused"):
        assert f"run \"{refused}\"... pass" in done.stdout
