"""The harness relay takes a presigned POST form as S3 does: the SigV4 signature
of its policy and every policy condition (moto checks neither), then stores it
on moto with the signer's credentials."""

import boto3
import pytest
import requests
from aws_adapters.s3_storage import S3ObjectStorage
from aws_adapters.testing.moto_server import FAKE_CREDENTIALS, run_moto_server
from botocore.config import Config

from stereo_spot_deploy.testing.presign_relay import presign_relay, via_relay

KEY = "input/job-1/source.mp4"


@pytest.fixture(scope="module")
def relayed():
    with run_moto_server() as url:
        s3 = boto3.client(
            "s3", endpoint_url=url, region_name="us-east-1",
            aws_access_key_id=FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
            config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
        s3.create_bucket(Bucket="inbox")
        with presign_relay(url, {"web-ui": FAKE_CREDENTIALS}) as relay:
            yield S3ObjectStorage("inbox", client=s3), relay


def _post(relay, req, data, fields=None):
    return requests.post(via_relay(req.url, relay).split("?")[0],
                         data=fields or req.fields, files={"file": ("a.mp4", data)}, timeout=30)


def test_a_form_within_its_cap_is_stored(relayed):
    storage, relay = relayed
    req = storage.presign_post(KEY, max_bytes=10, content_type="video/mp4")
    assert _post(relay, req, b"0123456789").status_code == 204
    assert storage.get_bytes(KEY) == b"0123456789"


def test_a_file_over_the_cap_is_refused_as_s3_refuses_it(relayed):
    storage, relay = relayed
    req = storage.presign_post("input/job-2/source.mp4", max_bytes=10)
    resp = _post(relay, req, b"01234567890")
    assert resp.status_code == 400 and "EntityTooLarge" in resp.text
    assert not storage.exists("input/job-2/source.mp4")


@pytest.mark.parametrize("tamper", [
    lambda f: {**f, "key": "input/job-9/source.mp4"},
    lambda f: {**f, "x-amz-signature": "0" * 64},
])
def test_a_tampered_form_is_forbidden(relayed, tamper):
    storage, relay = relayed
    req = storage.presign_post("input/job-3/source.mp4", max_bytes=10)
    assert _post(relay, req, b"x", tamper(dict(req.fields))).status_code == 403
    assert not storage.exists("input/job-3/source.mp4")
