"""``submit_job`` on the real local backend refuses a source its data folder
clearly has no room for, before it creates a job or copies a byte; the final
download onto a full disk leaves nothing that looks finished."""

import pytest
from local_adapters import build_backend
from shared_types.errors import DiskFullError
from shared_types.keys import final_key
from shared_types.models import ConversionParams, JobStatus, JobUpdate, OutputMode
from shared_types.settings import BackendSettings
from shared_types.testing.disk import entries, fill, small_disk

from local_stack.submission import fetch_result, snapshot, submit_job


def test_a_source_three_times_larger_than_the_free_space_is_refused_before_its_job(tmp_path):
    # on a small disk of its own: a copy that went ahead anyway could never fill the machine's
    with small_disk(tmp_path / "disk", 8 * 1024 * 1024) as disk:
        backend = build_backend(BackendSettings(data_dir=disk / "data"))
        film = tmp_path / "film.mp4"
        film.write_bytes(b"\1" * 4 * 1024 * 1024)  # fits once, not three times

        with pytest.raises(DiskFullError, match=r"Not enough free disk space for converting "
                           rf"this 4\.0 MB video: it needs about 12\.0 MB free in {disk}/data"):
            submit_job(backend, film, mode=OutputMode.SBS, params=ConversionParams())

        assert all(not backend.jobs.list_by_status(status).items for status in JobStatus)
        assert entries(disk / "data" / "tmp") == []


def test_a_download_onto_a_full_disk_leaves_no_file_that_looks_finished(tmp_path):
    backend = build_backend(BackendSettings(data_dir=tmp_path / "data"))
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"\1" * 100_000)
    job = submit_job(backend, clip, mode=OutputMode.SBS, params=ConversionParams())
    backend.output_storage.put_bytes(final_key(job.job_id), b"3d" * 512 * 1024)  # 1 MiB
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED))

    with small_disk(tmp_path / "out", 1024 * 1024) as out:
        fill(out, leave_bytes=64 * 1024)
        with pytest.raises(DiskFullError, match=f"The disk is full: no space was left in {out} "):
            fetch_result(backend, snapshot(backend, job.job_id), out / "film-3d.mp4")
        assert entries(out) == []  # neither the output nor its .part


def test_the_room_conversions_in_progress_may_still_need_counts_against_a_new_source(tmp_path):
    with small_disk(tmp_path / "disk", 8 * 1024 * 1024) as disk:
        backend = build_backend(BackendSettings(data_dir=disk / "data"))
        first, second = tmp_path / "first.mp4", tmp_path / "second.mp4"
        first.write_bytes(b"\1" * 2 * 1024 * 1024)
        second.write_bytes(b"\2" * 1024 * 1024)
        running = submit_job(backend, first, mode=OutputMode.SBS, params=ConversionParams())

        # alone, the second fits three times over the ~6 MB left; beside the first,
        # which may still write 3 x 2 MB less the 2 MB of its source, it does not
        with pytest.raises(DiskFullError, match=r"converting this 1\.0 MB video beside the "
                           r"conversions in progress \(they may still write 4\.0 MB\)"):
            submit_job(backend, second, mode=OutputMode.SBS, params=ConversionParams())

        backend.jobs.update(running.job_id, JobUpdate(status=JobStatus.COMPLETED))
        submit_job(backend, second, mode=OutputMode.SBS, params=ConversionParams())
