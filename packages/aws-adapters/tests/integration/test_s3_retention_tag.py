"""Segments carry the tag both buckets' lifecycle rules expire by only once
their job has ended (mark_expirable), never from their upload."""

from __future__ import annotations

from pathlib import Path

import boto3

from aws_adapters.s3_storage import KEPT_TAG_VALUE, RETENTION_TAG_KEY, RETENTION_TAG_VALUE


def tags_of(bucket: str, key: str) -> dict[str, str]:
    tagging = boto3.client("s3", region_name="us-east-1").get_object_tagging(Bucket=bucket, Key=key)
    return {t["Key"]: t["Value"] for t in tagging["TagSet"]}


def test_an_uploaded_segment_carries_no_expiry_tag(backend, tmp_path):
    out = backend.output_storage
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"\x00" * 1024)
    out.put_file("jobs/job-1/segments/0.mp4", clip)
    out.put_bytes("jobs/job-1/segments/1.mp4", b"segment")
    assert tags_of(out.bucket, "jobs/job-1/segments/0.mp4") == {}
    assert tags_of(out.bucket, "jobs/job-1/segments/1.mp4") == {}


def test_marking_tags_the_job_segments_only_and_unmarking_removes_the_tag(backend, tmp_path):
    out = backend.output_storage
    for key in ("jobs/job-1/segments/0.mp4", "jobs/job-1/segments/1.mp4",
                "jobs/job-2/segments/0.mp4"):
        out.put_bytes(key, b"segment")
    out.put_file("jobs/job-1/final.mp4", Path(__file__))

    assert out.mark_expirable("jobs/job-1/segments/") == 2
    expirable = {RETENTION_TAG_KEY: RETENTION_TAG_VALUE}
    assert tags_of(out.bucket, "jobs/job-1/segments/0.mp4") == expirable
    assert tags_of(out.bucket, "jobs/job-1/segments/1.mp4") == expirable
    assert tags_of(out.bucket, "jobs/job-2/segments/0.mp4") == {}
    assert tags_of(out.bucket, "jobs/job-1/final.mp4") == {}

    assert out.unmark_expirable("jobs/job-1/segments/") == 2
    assert tags_of(out.bucket, "jobs/job-1/segments/0.mp4") == {RETENTION_TAG_KEY: KEPT_TAG_VALUE}
