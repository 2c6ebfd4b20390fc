"""Converted segments carry the tag the output bucket's lifecycle rule expires by."""

from __future__ import annotations

from pathlib import Path

import boto3

from aws_adapters.s3_storage import SEGMENT_RETENTION_TAGGING


def tags_of(bucket: str, key: str) -> dict[str, str]:
    tagging = boto3.client("s3", region_name="us-east-1").get_object_tagging(Bucket=bucket, Key=key)
    return {t["Key"]: t["Value"] for t in tagging["TagSet"]}


def test_a_converted_segment_is_tagged_for_expiry_and_the_final_video_is_not(backend, tmp_path):
    out = backend.output_storage
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"\x00" * 1024)
    out.put_file("jobs/job-1/segments/0.mp4", clip)
    out.put_bytes("jobs/job-1/segments/1.mp4", b"segment")
    out.put_file("jobs/job-1/final.mp4", Path(clip))

    key, value = SEGMENT_RETENTION_TAGGING.split("=")
    assert tags_of(out.bucket, "jobs/job-1/segments/0.mp4") == {key: value}
    assert tags_of(out.bucket, "jobs/job-1/segments/1.mp4") == {key: value}
    assert tags_of(out.bucket, "jobs/job-1/final.mp4") == {}

