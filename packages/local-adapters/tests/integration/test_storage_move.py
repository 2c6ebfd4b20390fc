"""``put_file(move=True)`` on a local folder: a file on the bucket's filesystem
is renamed in (no copy of a converted film), one elsewhere is copied and
removed, and a move that fails leaves the file where it was."""

from __future__ import annotations

import errno
import os

import pytest
from shared_types.errors import DiskFullError

from local_adapters.storage import FilesystemStorage

KEY = "jobs/3d7c1a9e-0000-4000-8000-000000000001/final.mp4"


def test_a_file_on_the_buckets_filesystem_is_renamed_in_not_copied(backend, tmp_path):
    storage: FilesystemStorage = backend.output_storage
    moved, copied = tmp_path / "moved.mp4", tmp_path / "copied.mp4"
    moved.write_bytes(b"3d" * 1000)
    copied.write_bytes(b"3d" * 1000)
    inode = moved.stat().st_ino
    storage.put_file(KEY, moved, move=True)
    assert storage.path_of(KEY).stat().st_ino == inode  # the same file, no copy
    storage.put_file(KEY + ".2", copied)
    assert storage.path_of(KEY + ".2").stat().st_ino != copied.stat().st_ino  # the control
    assert not moved.exists()


def test_a_file_on_another_filesystem_is_copied_and_removed(backend, tmp_path, monkeypatch):
    storage: FilesystemStorage = backend.output_storage
    src = tmp_path / "elsewhere.mp4"
    src.write_bytes(b"film")
    real_replace = os.replace

    def cross_device(a, b):
        if os.fspath(a) == os.fspath(src):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_replace(a, b)

    monkeypatch.setattr(os, "replace", cross_device)
    info = storage.put_file(KEY, src, move=True)
    assert info.size == 4 and storage.get_bytes(KEY) == b"film"
    assert not src.exists()
    assert list(storage.tmp_dir.iterdir()) == []  # no temp file left behind


def test_a_move_that_fails_leaves_the_file_where_it_was(backend, tmp_path, monkeypatch):
    storage: FilesystemStorage = backend.output_storage
    src = tmp_path / "film.mp4"
    src.write_bytes(b"film")

    def full(*args, **kwargs):
        raise DiskFullError("the disk is full")

    monkeypatch.setattr(storage, "adopt_file", full)
    with pytest.raises(DiskFullError):
        storage.put_file(KEY, src, move=True)
    assert src.read_bytes() == b"film"
    assert not storage.exists(KEY)
    assert list(storage.tmp_dir.iterdir()) == []
