"""The local lifecycle rule: a marked prefix is deleted once its mark is older
than the retention age; unmarked or young marks keep their objects."""

import os
import time

from shared_types.settings import BackendSettings

from local_adapters import build_backend
from local_adapters.storage import FilesystemStorage

SEG = "segments/job-1/"


def _storage(settings, expire_after_s):
    from local_adapters.backend import make_signer

    return FilesystemStorage(settings.data_dir, "in", signer=make_signer(settings),
                             expire_after_s=expire_after_s)


def _age(storage, prefix, seconds):
    path = storage.expiry._path(prefix)
    old = time.time() - seconds
    os.utime(path, (old, old))


def test_a_young_mark_keeps_the_segments_and_an_old_one_expires_them(settings):
    storage = _storage(settings, expire_after_s=3600)
    storage.put_bytes(SEG + "00000_00002_sbs.mp4", b"a")
    storage.put_bytes(SEG + "00001_00002_sbs.mp4", b"b")
    storage.put_bytes("segments/job-2/00000_00001_sbs.mp4", b"c")
    assert storage.mark_expirable(SEG) == 2
    assert storage.exists(SEG + "00000_00002_sbs.mp4")

    _age(storage, SEG, 3601)
    storage.mark_expirable("segments/job-3/")  # any later mark sweeps what is due
    assert list(storage.list(SEG)) == []
    assert storage.exists("segments/job-2/00000_00001_sbs.mp4")
    assert storage.expiry.due() == []


def test_an_unmarked_prefix_is_never_swept(settings):
    storage = _storage(settings, expire_after_s=0)
    storage.put_bytes(SEG + "00000_00001_sbs.mp4", b"a")
    storage.expiry.mark(SEG)
    assert storage.unmark_expirable(SEG) == 1
    assert storage.expiry.sweep(storage) == 0
    assert storage.exists(SEG + "00000_00001_sbs.mp4")


def test_building_the_backend_sweeps_marks_that_came_due_while_nothing_ran(tmp_path):
    settings = BackendSettings(data_dir=tmp_path / "data", signing_secret="s",
                               segment_retention_s=60)
    backend = build_backend(settings)
    backend.output_storage.put_bytes("jobs/job-1/segments/0.mp4", b"x")
    backend.output_storage.mark_expirable("jobs/job-1/segments/")
    _age(backend.output_storage, "jobs/job-1/segments/", 61)
    again = build_backend(settings)
    assert not again.output_storage.exists("jobs/job-1/segments/0.mp4")
