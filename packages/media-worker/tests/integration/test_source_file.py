"""Where a preview reads its source: the stored file itself on the local
backend (a film is not copied for a 10 s clip), a presigned URL on S3
(``test_clip_range_reads.py``), a checked download elsewhere; and a whole
conversion's copy of it: a hard link on the local backend."""

from __future__ import annotations

import pytest
from shared_types.keys import source_key
from shared_types.testing.memory import MemoryStorage

from media_worker.errors import SourceReplacedError
from media_worker.source_file import locate_source, source_file, stored_path


def test_a_local_source_is_read_where_it_lies(local_backend, tmp_path):
    storage = local_backend.input_storage
    info = storage.put_bytes(source_key("job-1"), b"film" * 1000)
    dest = tmp_path / "copy.mp4"
    where = locate_source(storage, info, dest)
    assert not where.is_url and where.target == str(stored_path(storage, info.key))
    assert where.ffmpeg_input()[-2:] == ["-i", where.target]
    assert not dest.exists()  # nothing copied
    assert source_file(storage, info, dest) == dest and dest.read_bytes() == b"film" * 1000


def test_other_storages_download_and_a_replaced_object_is_refused(tmp_path):
    storage = MemoryStorage("input")
    info = storage.put_bytes(source_key("job-1"), b"first")
    assert stored_path(storage, info.key) is None
    dest = tmp_path / "copy.mp4"
    # memory:// is no URL ffmpeg reads: downloaded
    assert locate_source(storage, info, dest).target == str(dest)
    assert dest.read_bytes() == b"first"
    storage.put_bytes(source_key("job-1"), b"second upload")
    with pytest.raises(SourceReplacedError):
        source_file(storage, info, tmp_path / "again.mp4")


def test_a_whole_conversion_links_a_local_source_instead_of_copying_it(local_backend, tmp_path):
    storage = local_backend.input_storage
    info = storage.put_bytes(source_key("job-2"), b"film" * 1000)
    dest = tmp_path / "source.mp4"
    assert source_file(storage, info, dest) == dest
    assert dest.samefile(stored_path(storage, info.key))  # no copy: the same file
    storage.put_bytes(source_key("job-2"), b"a new upload")  # replaced by rename
    assert dest.read_bytes() == b"film" * 1000  # the link keeps the upload it read


def test_where_no_link_can_be_made_the_source_is_copied(local_backend, tmp_path, monkeypatch):
    """The control: another filesystem (EXDEV) or no permission to link."""
    storage = local_backend.input_storage
    info = storage.put_bytes(source_key("job-3"), b"film" * 1000)

    def refuse(*_):
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr("media_worker.source_file.os.link", refuse)
    dest = tmp_path / "source.mp4"
    assert source_file(storage, info, dest) == dest
    assert not dest.samefile(stored_path(storage, info.key))
    assert dest.read_bytes() == b"film" * 1000


def test_a_local_source_replaced_before_it_is_read_is_refused(local_backend, tmp_path):
    storage = local_backend.input_storage
    info = storage.put_bytes(source_key("job-4"), b"first")
    storage.put_bytes(source_key("job-4"), b"second upload")
    with pytest.raises(SourceReplacedError):
        source_file(storage, info, tmp_path / "source.mp4")


def test_reassembly_reads_a_local_object_through_a_link_and_elsewhere_downloads(
        local_backend, tmp_path, monkeypatch):
    from media_worker.source_file import stored_copy

    key = "jobs/job-1/segments/r1/0.mp4"
    storage = local_backend.output_storage
    storage.put_bytes(key, b"3d segment")
    linked = stored_copy(storage, key, tmp_path / "linked.mp4")
    assert linked.read_bytes() == b"3d segment"
    assert linked.stat().st_ino == stored_path(storage, key).stat().st_ino  # no copy
    memory = MemoryStorage("output")
    memory.put_bytes(key, b"3d segment")
    assert stored_copy(memory, key, tmp_path / "got.mp4").read_bytes() == b"3d segment"

    def refused(*args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr("os.link", refused)  # a refused link (the control): a copy
    copied = stored_copy(storage, key, tmp_path / "copied.mp4")
    assert copied.read_bytes() == b"3d segment"
    assert copied.stat().st_ino != stored_path(storage, key).stat().st_ino
