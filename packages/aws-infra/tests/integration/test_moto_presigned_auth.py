"""The patched moto server authorises a presigned S3 URL as its signer while
it enforces IAM (stock moto answers 500): allowed key read, other key and
expired URL refused."""

from __future__ import annotations

import json

import boto3
import requests
from aws_adapters.testing.moto_server import fake_aws_credentials, run_moto_server
from botocore.config import Config

from stereo_spot_deploy.testing.deployment import enforce_iam
from stereo_spot_deploy.testing.moto_root import MOTO_SERVER, REGION


def _client(service: str, url: str, key: dict | None = None):
    creds = ({"aws_access_key_id": key["AccessKeyId"],
              "aws_secret_access_key": key["SecretAccessKey"]} if key else {})
    return boto3.client(service, endpoint_url=url, region_name=REGION,
                        config=Config(signature_version="s3v4"), **creds)


def test_a_presigned_get_is_authorised_as_its_signer():
    with fake_aws_credentials(), run_moto_server(command=MOTO_SERVER) as url:
        s3, iam = _client("s3", url), _client("iam", url)
        s3.create_bucket(Bucket="presign-test")
        s3.put_object(Bucket="presign-test", Key="allowed", Body=b"0123456789")
        s3.put_object(Bucket="presign-test", Key="other", Body=b"secret")
        iam.create_user(UserName="reader")
        iam.put_user_policy(UserName="reader", PolicyName="read", PolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Action": "s3:GetObject",
                 "Resource": "arn:aws:s3:::presign-test/allowed"}]}))
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        enforce_iam(url)
        reader = _client("s3", url, key)

        def get(name: str, expires: int = 300, **headers: str) -> requests.Response:
            signed = reader.generate_presigned_url(
                "get_object", Params={"Bucket": "presign-test", "Key": name}, ExpiresIn=expires)
            return requests.get(signed, headers=headers, timeout=30)

        ranged = get("allowed", Range="bytes=2-5")
        assert ranged.status_code == 206 and ranged.content == b"2345"
        assert get("other").status_code == 403  # the signer may not read it
        assert get("allowed", expires=0).status_code == 403  # expired
