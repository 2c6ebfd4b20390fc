"""ObjectStorage contract: put/get (bytes and files), head, exists, list, delete, presign.

Whether a presigned URL really works over HTTP is implementation-specific and
tested beside each implementation.
"""

from __future__ import annotations

import os

import pytest

from shared_types.errors import ObjectNotFoundError
from shared_types.models import now
from shared_types.upload_policy import decode_policy, size_range


def test_put_bytes_then_get_bytes_round_trips(object_storage):
    info = object_storage.put_bytes("jobs/job-a/final.mp4", b"\x00video\xff")
    assert (info.key, info.size) == ("jobs/job-a/final.mp4", 7)
    assert object_storage.get_bytes("jobs/job-a/final.mp4") == b"\x00video\xff"


def test_put_file_then_get_file_streams_a_large_object(object_storage, tmp_path):
    data = os.urandom(3 * 1024 * 1024 + 17)
    src, dst = tmp_path / "src.bin", tmp_path / "dst.bin"
    src.write_bytes(data)
    info = object_storage.put_file("input/job-a/source.mp4", src, content_type="video/mp4")
    assert info.size == len(data)
    got = object_storage.get_file("input/job-a/source.mp4", dst)
    assert got.size == len(data)
    assert dst.read_bytes() == data


def test_a_moved_file_is_stored_and_gone_from_its_path(object_storage, tmp_path):
    data = os.urandom(1024 * 1024 + 5)
    src, kept, dst = tmp_path / "moved.bin", tmp_path / "kept.bin", tmp_path / "dst.bin"
    src.write_bytes(data)
    kept.write_bytes(data)
    info = object_storage.put_file("jobs/job-a/final.mp4", src, move=True)
    object_storage.put_file("jobs/job-a/copy.mp4", kept)  # the default keeps it (control)
    assert info.size == len(data)
    assert not src.exists() and kept.read_bytes() == data
    object_storage.get_file("jobs/job-a/final.mp4", dst)
    assert dst.read_bytes() == data


def test_overwrite_replaces_the_content(object_storage):
    object_storage.put_bytes("k/a.bin", b"first")
    object_storage.put_bytes("k/a.bin", b"second!")
    assert object_storage.get_bytes("k/a.bin") == b"second!"
    assert object_storage.head("k/a.bin").size == 7


def test_head_and_exists_describe_an_object(object_storage):
    put = object_storage.put_bytes("k/a.bin", b"12345")
    head = object_storage.head("k/a.bin")
    assert (head.key, head.size) == ("k/a.bin", 5)
    assert head.etag == put.etag
    assert object_storage.exists("k/a.bin") is True


def test_missing_objects(object_storage, tmp_path):
    assert object_storage.head("k/none.bin") is None
    assert object_storage.exists("k/none.bin") is False
    with pytest.raises(ObjectNotFoundError):
        object_storage.get_bytes("k/none.bin")
    with pytest.raises(ObjectNotFoundError):
        object_storage.get_file("k/none.bin", tmp_path / "out")


def test_delete_is_idempotent(object_storage):
    object_storage.put_bytes("k/a.bin", b"x")
    object_storage.delete("k/a.bin")
    object_storage.delete("k/a.bin")
    assert object_storage.exists("k/a.bin") is False


def test_list_returns_keys_under_a_prefix_in_order(object_storage):
    keys = ["jobs/j1/segments/10.mp4", "jobs/j1/segments/2.mp4", "jobs/j1/final.mp4",
            "jobs/j10/final.mp4", "jobs/j2/segments/0.mp4"]
    for key in keys:
        object_storage.put_bytes(key, key.encode())
    listed = list(object_storage.list("jobs/j1/"))
    assert [o.key for o in listed] == sorted(k for k in keys if k.startswith("jobs/j1/"))
    assert [o.size for o in listed] == [len(o.key) for o in listed]
    assert [o.key for o in object_storage.list("jobs/j1/seg")] == [
        "jobs/j1/segments/10.mp4", "jobs/j1/segments/2.mp4"]
    assert list(object_storage.list("nothing/")) == []


def test_presign_put_describes_an_expiring_upload(object_storage):
    req = object_storage.presign_put("input/job-a/source.mp4", expires_s=600,
                                     max_bytes=1000, content_type="video/mp4")
    assert req.url and req.method in ("PUT", "POST")
    assert now() < req.expires_at <= now() + 601
    assert req.max_bytes == 1000


def test_presign_post_caps_the_size_in_its_signed_policy(object_storage):
    req = object_storage.presign_post("input/job-a/source.mp4", max_bytes=1000, expires_s=600,
                                      content_type="video/mp4",
                                      success_redirect="http://app.test/jobs/job-a")
    assert req.method == "POST" and req.url
    assert req.fields["key"] == "input/job-a/source.mp4"
    assert req.fields["Content-Type"] == "video/mp4"
    assert now() < req.expires_at <= now() + 601 and req.max_bytes == 1000
    policy = decode_policy(req.fields["policy"])
    assert size_range(policy) == (1, 1000)
    assert {"success_action_redirect": "http://app.test/jobs/job-a"} in policy["conditions"]
    assert {"key": "input/job-a/source.mp4"} in policy["conditions"]


def test_presign_get_returns_a_distinct_url_per_download_name(object_storage):
    object_storage.put_bytes("jobs/job-a/final.mp4", b"x")
    plain = object_storage.presign_get("jobs/job-a/final.mp4", expires_s=600)
    named = object_storage.presign_get("jobs/job-a/final.mp4", expires_s=600,
                                       download_name="movie_LRF_Full_SBS.mp4")
    assert plain and named and plain != named


def test_mark_expirable_counts_the_objects_under_the_prefix_only(object_storage):
    for key in ("segments/job-a/00000_00002_sbs.mp4", "segments/job-a/00001_00002_sbs.mp4",
                "segments/job-b/00000_00001_sbs.mp4"):
        object_storage.put_bytes(key, b"x")
    assert object_storage.mark_expirable("segments/job-a/") == 2
    assert object_storage.mark_expirable("segments/job-c/") == 0
    assert object_storage.unmark_expirable("segments/job-a/") == 2
    # marking expires nothing at once: the retention age counts from the mark
    assert object_storage.exists("segments/job-a/00000_00002_sbs.mp4")


def test_uri_names_the_object(object_storage):
    uri = object_storage.uri("jobs/job-a/final.mp4")
    assert uri.endswith("jobs/job-a/final.mp4")


__all__ = [name for name in dir() if name.startswith("test_")]
