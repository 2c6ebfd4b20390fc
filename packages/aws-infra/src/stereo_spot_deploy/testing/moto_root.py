"""The Terraform root every moto test applies: the AWS provider pointed at a
moto server, and the real data-plane module configured for it.

Tests append their own blocks (roles, outputs) to ``moto_root(url, workdir)``, applied
on the server ``MOTO_SERVER`` starts (moto patched by ``moto_patches``). The
data plane is applied with its deployed defaults but two values:
``cors_allowed_origins`` (required; deployed, it is the ALB's URL, which does
not exist here) and ``enforce_tls`` (below). docs/TESTING.md lists every
difference and why.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

INFRA = Path(__file__).resolve().parents[3]
REGION = "us-east-1"
# argv prefix of the moto server every Terraform test applies to (-H/-p follow).
MOTO_SERVER = [sys.executable, "-m", "stereo_spot_deploy.testing.moto_deploy_server"]

_TEMPLATE = """
terraform {{
  required_providers {{
    aws = {{ source = "hashicorp/aws", version = "~> 5.100" }}
  }}
}}
provider "aws" {{
  region                      = "{region}"
  access_key                  = "testing"
  secret_key                  = "testing"
  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_requesting_account_id  = true
  s3_use_path_style           = true
  endpoints {{
    s3       = "{url}"
    sqs      = "{url}"
    dynamodb = "{url}"
    sts      = "{url}"
    iam      = "{url}"
  }}
}}
module "data_plane" {{
  source               = "{data_plane}"
  cors_allowed_origins = ["http://127.0.0.1:8000"]
  # moto serves plain HTTP and applies a bucket policy's Deny without reading
  # its aws:SecureTransport condition: the TLS-only policy would refuse all.
  enforce_tls = false
}}
output "data_plane" {{
  value = module.data_plane
}}
"""


def moto_root(url: str, workdir: Path) -> str:
    """HCL for a root module in ``workdir`` that applies the data plane to the moto
    server at ``url``. The module is sourced by a relative path, so Terraform uses
    it in place (an absolute one is copied, away from the data_plane.json it reads)."""
    data_plane = os.path.relpath(INFRA / "modules" / "data-plane", workdir)
    return _TEMPLATE.format(url=url, region=REGION, data_plane=data_plane)
