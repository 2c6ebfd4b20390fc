"""The Terraform root every moto test applies: the AWS provider pointed at a
moto server, and the real data-plane module configured for it.

Tests append their own blocks (roles, outputs) to ``moto_root(url)``; the
provider settings and the data plane's moto-only switches live here once.
"""

from __future__ import annotations

from pathlib import Path

INFRA = Path(__file__).resolve().parents[3]
REGION = "us-east-1"

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
  source                = "{infra}/modules/data-plane"
  cors_allowed_origins  = ["http://127.0.0.1:8000"]
  force_destroy_buckets = true
  # moto_server speaks plain HTTP and does not store RedriveAllowPolicy.
  enforce_tls          = false
  restrict_dlq_sources = false
}}
output "data_plane" {{
  value = module.data_plane
}}
"""


def moto_root(url: str) -> str:
    """HCL for a root module that applies the data plane to the moto server at ``url``."""
    return _TEMPLATE.format(url=url, region=REGION, infra=INFRA)
