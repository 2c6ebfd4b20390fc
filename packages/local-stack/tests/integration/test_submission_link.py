"""``submit_job(link_dir=...)`` on the real local backend stores the user's file
as a hard link where the data folder shares its filesystem (a film is neither
copied nor written out again), never writes into it, and copies elsewhere."""

import os

from local_adapters import build_backend
from shared_types.cancel import free_job_files
from shared_types.keys import source_key
from shared_types.models import ConversionParams, OutputMode
from shared_types.settings import BackendSettings

from local_stack.submission import submit_job


def _submit(tmp_path, film):
    backend = build_backend(BackendSettings(data_dir=tmp_path / "data"))
    job = submit_job(backend, film, mode=OutputMode.SBS, params=ConversionParams(),
                     link_dir=tmp_path / "data" / "tmp")
    return backend, job, backend.input_storage.path_of(source_key(job.job_id))


def test_a_source_on_the_data_folders_filesystem_is_stored_as_a_link(tmp_path):
    film = tmp_path / "film.mp4"
    film.write_bytes(b"film" * 10_000)
    backend, job, stored = _submit(tmp_path, film)
    assert os.path.samefile(stored, film)  # no copy
    assert backend.input_storage.get_bytes(source_key(job.job_id)) == film.read_bytes()
    assert os.listdir(tmp_path / "data" / "tmp") == []  # the link moved in, none left
    free_job_files(backend, job.job_id, keep_poster=False)  # the job's files go...
    assert film.read_bytes() == b"film" * 10_000  # ...the user's stays, untouched


def test_where_a_link_is_refused_the_source_is_copied(tmp_path, monkeypatch):
    film = tmp_path / "film.mp4"
    film.write_bytes(b"film" * 10_000)

    real_link = os.link

    def other_filesystem(src, dst, *args, **kwargs):
        if os.fspath(src) == os.fspath(film):
            raise OSError(18, "Invalid cross-device link")
        return real_link(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "link", other_filesystem)
    backend, job, stored = _submit(tmp_path, film)
    assert not os.path.samefile(stored, film)  # a copy (the control)
    assert stored.read_bytes() == film.read_bytes()
    assert film.exists()


def _completed(tmp_path, final_file):
    from shared_types.keys import final_key
    from shared_types.models import JobStatus, JobUpdate

    from local_stack.submission import snapshot

    film = tmp_path / "film.mp4"
    film.write_bytes(b"film")
    backend, job, _ = _submit(tmp_path, film)
    backend.output_storage.put_file(final_key(job.job_id), final_file, move=True)
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED))
    stored = backend.output_storage.path_of(final_key(job.job_id))
    return backend, snapshot(backend, job.job_id), stored


def test_the_final_video_is_handed_out_as_a_link_when_it_has_a_new_files_mode(tmp_path):
    from local_stack.submission import fetch_result

    made = tmp_path / "joined.mp4"
    made.write_bytes(b"3d" * 10_000)  # made like a worker makes it: the umask's mode
    backend, snap, stored = _completed(tmp_path, made)
    out = fetch_result(backend, snap, tmp_path / "out" / "film-3d.mp4")
    assert os.path.samefile(out, stored)  # not copied out again
    assert out.read_bytes() == b"3d" * 10_000
    assert [p.name for p in out.parent.iterdir()] == ["film-3d.mp4"]  # no partial left


def test_a_private_stored_file_is_copied_out_with_a_new_files_mode(tmp_path):
    from local_stack.submission import fetch_result

    made = tmp_path / "joined.mp4"
    made.write_bytes(b"3d" * 10_000)
    made.chmod(0o600)  # as the store's own temp files are (the control)
    backend, snap, stored = _completed(tmp_path, made)
    out = fetch_result(backend, snap, tmp_path / "out" / "film-3d.mp4")
    assert not os.path.samefile(out, stored)
    assert out.read_bytes() == b"3d" * 10_000
    assert out.stat().st_mode & 0o777 != 0o600
