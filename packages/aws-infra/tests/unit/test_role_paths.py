"""The harness's one-shot rare paths, on in-process moto (no IAM here: the
deployment harness runs them under each role)."""

import boto3
import pytest

from stereo_spot_deploy.testing import role_paths

moto = pytest.importorskip("moto", reason="moto not installed")


@pytest.fixture
def s3(monkeypatch):
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "STEREO_SPOT_BACKEND": "aws", "STEREO_SPOT_AWS_REGION": "us-east-1"
                        }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("STEREO_SPOT_AWS_ENDPOINT_URL", raising=False)
    with moto.mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket="stereo-spot-input")
        yield client


def test_a_failed_upload_fails_its_first_part_and_leaves_no_upload_open(s3):
    report = role_paths.failed_upload("stereo-spot-input", "segments/j/big.mp4")
    assert report["failed"] is True and "injected" in report["error"]
    assert s3.list_multipart_uploads(Bucket="stereo-spot-input").get("Uploads", []) == []
    assert "Contents" not in s3.list_objects_v2(Bucket="stereo-spot-input")


def test_the_cli_prints_a_json_report_last(s3, capsys):
    assert role_paths.main(["failed-upload", "stereo-spot-input", "segments/j/big.mp4"]) == 0
    assert '"failed": true' in capsys.readouterr().out.strip().splitlines()[-1]
