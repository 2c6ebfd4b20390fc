"""Submit a file to the pipeline and follow its job to a final state.

Works on any Backend (local or AWS): it only creates the job, puts the source
under its canonical key (the storage's object-created event starts chunking)
and reads the stores; the workers do the rest.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path

from media_worker.source_file import link_stored
from shared_types.comfort_reports import COMFORT_SUFFIX, comfort_key
from shared_types.disk_room import require_room_for_source
from shared_types.errors import DiskFullError, TransientError
from shared_types.eta_history import MachineRates
from shared_types.failure import disk_full_as
from shared_types.job_failure import fail_job_for
from shared_types.job_progress import JobSnapshot, read_progress
from shared_types.keys import final_key, source_key
from shared_types.models import (
    Container,
    ConversionParams,
    Job,
    JobStatus,
    OutputMode,
    new_job_id,
)
from shared_types.ports import Backend
from shared_types.transitions import create_job

from local_stack.errors import ConversionFailedError, StackTimeoutError

log = logging.getLogger(__name__)

UPLOAD_STAGE = "upload"


def submit_job(
    backend: Backend,
    source: Path,
    *,
    mode: OutputMode,
    params: ConversionParams,
    title: str | None = None,
    container: Container = Container.MP4,
    link_dir: Path | None = None,
    job_id: str | None = None,
) -> Job:
    """Create a job (``job_id``, else a new id) and upload ``source`` as its
    canonical source object.

    ``link_dir``, a folder on a local store's filesystem (its ``{data_dir}/tmp``),
    lets the stored source be a hard link to ``source`` where the two share a
    filesystem: a film is neither copied nor written out again before its
    conversion can start. The pipeline never writes into a stored object (it
    replaces by rename), so ``source`` is only read; deleting the job removes
    only the link. Elsewhere (another filesystem, links refused, S3) it is
    copied or uploaded.
    Refuses a source the local storage clearly has no room for before creating
    anything (``shared_types.disk_room``). Raises FileNotFoundError when
    ``source`` is missing, DiskFullError (no room, or the disk filled while the
    source was copied in: the job is then failed with that reason, so that it
    does not wait for an upload that will not come); store errors propagate.
    """
    size = source.stat().st_size
    require_room_for_source(backend, size)
    job = Job(job_id=job_id or new_job_id(), mode=mode, params=params, container=container,
              title=(title or source.name)[:200], source_size_bytes=size)
    create_job(backend.jobs, job)
    try:
        _put_source(backend, source_key(job.job_id), source, link_dir)
    except DiskFullError as exc:
        try:
            fail_job_for(backend.jobs, job.job_id, UPLOAD_STAGE, exc)
        except TransientError:  # the store is on the full disk too: the janitor's
            log.warning("job_id=%s not marked failed: the store cannot write either "
                        "(the janitor fails it as upload_missing)", job.job_id, exc_info=True)
        raise
    log.info("job_id=%s submitted %s (%d bytes, mode %s)", job.job_id, source, size, mode)
    return job


def _put_source(backend: Backend, key: str, source: Path, link_dir: Path | None) -> None:
    """``source`` stored under ``key``: as a hard link moved into the store where
    ``link_dir`` allows one, else as a copy."""
    storage = backend.input_storage
    if link_dir is not None:
        link = link_dir / f"source-{secrets.token_hex(8)}"
        try:
            os.link(source, link)
        except OSError:
            pass  # another filesystem, no such folder, links refused: a copy
        else:
            try:
                storage.put_file(key, link, content_type="video/mp4", move=True)
                return
            except DiskFullError:
                raise
            except OSError:  # the store could not take it as it is (a read-only file)
                log.info("%s: stored as a copy (the store refused its link)", source)
            finally:
                link.unlink(missing_ok=True)
    storage.put_file(key, source, content_type="video/mp4")


def snapshot(backend: Backend, job_id: str, rates: MachineRates | None = None) -> JobSnapshot:
    """Read a job's progress (``shared_types.job_progress``, the web UI's too;
    ``rates``: this machine's history). Raises ConversionFailedError when the
    job does not exist."""
    job = backend.jobs.get(job_id)
    if job is None:
        raise ConversionFailedError(f"job {job_id} disappeared")
    return read_progress(backend, job, now=time.time(), rates=rates)


def near_end(snap: JobSnapshot) -> bool:
    """True once every segment has settled (reassembly is next or running): the
    moment when the job can end within a fraction of a second."""
    if snap.status == JobStatus.REASSEMBLING or snap.is_final:
        return True
    total = snap.segments_total
    return total is not None and total > 0 and (
        snap.segments_done + snap.segments_failed >= total)


def wait_for_job(
    backend: Backend,
    job_id: str,
    *,
    poll_s: float = 0.25,
    busy_poll_s: float | None = None,
    timeout_s: float = 3600.0,
    on_snapshot: Callable[[JobSnapshot], None] | None = None,
    tick: Callable[[], None] | None = None,
    rates: MachineRates | None = None,
) -> JobSnapshot:
    """Poll until the job is completed or failed and return its last snapshot.

    Polls every ``busy_poll_s`` (default ``poll_s``) while segments remain and
    every ``poll_s`` once they have all settled, so the end of the job is seen
    quickly without reading the job 20 times a second for its whole run
    (each read costs CPU the conversion could use). A change of the job's
    status that the backend tells of (``Backend.job_changes``: the local
    one's doorbell) ends a wait at once: the job's last steps (reassembling,
    then completed or failed) are seen when they happen, not up to a poll
    later. ``tick`` runs between polls (the CLI supervises its workers there).
    Raises StackTimeoutError after ``timeout_s``.
    """
    deadline = time.monotonic() + timeout_s
    with backend.job_changes.listen() as changes:  # before the first read: nothing missed
        while True:
            snap = snapshot(backend, job_id, rates)
            if on_snapshot:
                on_snapshot(snap)
            if snap.is_final:
                return snap
            if time.monotonic() > deadline:
                raise StackTimeoutError(
                    f"job {job_id} still {snap.status.value} after {timeout_s:.0f}s"
                )
            if tick:
                tick()
            changes.wait(poll_s if near_end(snap) else max(poll_s, busy_poll_s or poll_s))


def fetch_result(backend: Backend, snap: JobSnapshot, output: Path) -> Path:
    """Download a completed job's final video to ``output``: to a temp file
    beside it, renamed into place once whole, so a download cut short (a full
    disk, Ctrl-C) never leaves a file that looks finished.

    Raises ConversionFailedError with the job's reason when it failed,
    DiskFullError naming ``output``'s folder when it fills up.
    """
    if snap.status != JobStatus.COMPLETED:
        reason = snap.error.message if snap.error else "no reason recorded"
        stage = f" during {snap.error.stage}" if snap.error else ""
        raise ConversionFailedError(f"conversion failed{stage}: {reason}")
    output.parent.mkdir(parents=True, exist_ok=True)
    job = backend.jobs.get(snap.job_id)
    key = job.final_key if job and job.final_key else final_key(snap.job_id)
    # a name of its own, made like the output would be (the umask's mode, not mkstemp's 0600)
    partial = output.with_name(f".{output.name}.{secrets.token_hex(4)}.part")
    with disk_full_as(output.parent, doing=f"writing {output.name}"):
        partial.touch(exist_ok=False)
        try:
            if not _linked(backend.output_storage, key, partial):
                backend.output_storage.get_file(key, partial)
            os.replace(partial, output)
        finally:
            partial.unlink(missing_ok=True)
        _fetch_comfort_report(backend, key, output)
    return output


def _fetch_comfort_report(backend: Backend, key: str, output: Path) -> Path | None:
    """The job's comfort report, when it has one, to ``<output>.comfort.json``."""
    if not backend.output_storage.exists(comfort_key(key)):
        return None
    target = output.with_name(output.name + COMFORT_SUFFIX)
    partial = target.with_name(f".{target.name}.part")
    partial.write_bytes(backend.output_storage.get_bytes(comfort_key(key)))
    os.replace(partial, target)
    return target


def _linked(storage, key: str, partial: Path) -> bool:
    """Replace the empty ``partial`` with a hard link to ``key``'s stored file, when
    the storage is a local folder on its filesystem and the file has the mode a
    new file gets here (a film is not copied out again at the end of its job;
    a stored object is only ever replaced by rename, so the link keeps this
    version). False, with ``partial`` left as it was, anywhere else."""
    linked = partial.with_name(partial.name + ".link")
    if link_stored(storage, key, linked) is None:
        return False
    if stat.S_IMODE(linked.stat().st_mode) != stat.S_IMODE(partial.stat().st_mode):
        linked.unlink()  # a private copy (the store's own temp file): copied instead
        return False
    os.replace(linked, partial)
    return True
