"""Structural rules of the state backend, read with python-hcl2."""

from __future__ import annotations

from pathlib import Path

import pytest
from stereo_spot_deploy.testing.hcl import TerraformDir, load_dir

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def setup() -> TerraformDir:
    return load_dir(PROJECT)


def test_state_bucket_is_versioned_encrypted_private_and_kept(setup):
    versioning = setup.resource("aws_s3_bucket_versioning", "state")
    assert versioning["versioning_configuration"][0]["status"] == "Enabled"
    sse = setup.resource("aws_s3_bucket_server_side_encryption_configuration", "state")
    default = sse["rule"][0]["apply_server_side_encryption_by_default"][0]
    assert default == {"sse_algorithm": "aws:kms", "kms_master_key_id": "${aws_kms_key.state.arn}"}
    block = setup.resource("aws_s3_bucket_public_access_block", "state")
    assert all(block[k] is True for k in ("block_public_acls", "block_public_policy",
                                          "ignore_public_acls", "restrict_public_buckets"))
    bucket = setup.resource("aws_s3_bucket", "state")
    assert bucket["lifecycle"][0]["prevent_destroy"] is True
    assert setup.resource("aws_kms_key", "state")["enable_key_rotation"] is True


def test_lock_table_has_the_key_terraform_locks_with(setup):
    table = setup.resource("aws_dynamodb_table", "locks")
    assert table["hash_key"] == "LockID"
    assert table["attribute"] == [{"name": "LockID", "type": "S"}]
    assert table["billing_mode"] == "PAY_PER_REQUEST"


def test_backend_config_output_names_everything_the_s3_backend_needs(setup):
    config = setup.outputs["backend_config"]["value"]
    for key in ("bucket", "key", "region", "dynamodb_table", "kms_key_id", "encrypt"):
        assert f"{key} " in config, key
    assert setup.default("state_key") == "aws-infra/terraform.tfstate"


def test_aws_infra_reads_this_backend(setup):
    infra = load_dir(PROJECT.parent / "aws-infra")
    assert infra.terraform[0]["backend"] == [{"s3": {}}]
    assert setup.providers[0]["aws"]["default_tags"][0]["tags"]["project"] == "stereo-spot"
