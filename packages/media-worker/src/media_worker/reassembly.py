"""Reassembly: concatenate a job's converted segments into ``final.mp4``, once.

The segment list comes from the SegmentCompletions of the job's current
chunking run (never from listing storage, never another run's: ``shared_types.runs``).
A lease with a fencing token guards the work: a worker that lost it cannot mark
the job done. Any crash leaves the job recoverable by redelivery.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from pydantic import ValidationError
from shared_types import keys
from shared_types.cancel import discard_if_cancelled
from shared_types.comfort_reports import join_stored_reports
from shared_types.errors import ConditionFailedError, LeaseLostError, MalformedMessageError
from shared_types.failure import disk_full_as
from shared_types.keepalive import JobKeepAlive
from shared_types.models import (
    Job,
    JobStatus,
    Message,
    ReassemblyMessage,
    SegmentCompletion,
)
from shared_types.runs import run_completions
from shared_types.segment_retention import release_segments
from shared_types.transitions import REASSEMBLABLE, complete_job, start_reassembly

from media_worker.deps import MediaDeps, worker_identity
from media_worker.errors import FinalMissingError, ReassemblyBusyError, SegmentsMissingError
from media_worker.lease_keeper import LeaseKeeper
from media_worker.side_streams import CONTENT_TYPES, SideFiles, mux_final
from media_worker.source_file import stored_copy

log = logging.getLogger(__name__)

STAGE = "reassembly"
READY = REASSEMBLABLE


def parse_reassembly_message(message: Message) -> str:
    """The job id a reassembly message carries. Raises MalformedMessageError."""
    try:
        job_id = ReassemblyMessage.model_validate_json(message.body).job_id
    except ValidationError as exc:
        raise MalformedMessageError(f"not a reassembly message: {exc}") from exc
    if not keys.is_valid_job_id(job_id):
        raise MalformedMessageError(f"invalid job id {job_id!r} in reassembly message")
    return job_id


def handle_reassembly(job_id: str, deps: MediaDeps) -> bool:
    """Reassemble one job. Returns True when this call set the job ``completed``.
    Raises TransientError subclasses (segments missing, lease busy),
    LeaseLostError / ConditionFailedError (another worker or a sweep moved the
    job on), or permanent errors (ffmpeg failure, final missing)."""
    backend = deps.backend
    job = backend.jobs.get(job_id)
    if job is None or job.status.is_final:
        log.info("job_id=%s is %s; reassembly message acknowledged", job_id,
                 job.status if job else "gone")
        return False
    if job.status not in READY:
        # stale (e.g. sent before the job was retried): the trigger sends again when ready
        log.warning("job_id=%s is %s, not ready for reassembly; message dropped", job_id,
                    job.status)
        return False
    final = keys.final_key(job_id, job.container)
    if backend.reassembly.is_done(job_id):
        return _finish_done_job(deps, job, final)
    completions = _ordered_completions(deps, job)
    lease = backend.reassembly.take_lease(job_id, worker_identity(), deps.lease_s)
    if lease is None:
        if backend.reassembly.is_done(job_id):
            return _finish_done_job(deps, job, final)
        raise ReassemblyBusyError(f"job {job_id} is being reassembled by another worker")
    try:
        start_reassembly(backend.jobs, job_id)
    except ConditionFailedError:
        log.info("job_id=%s left reassembly meanwhile; nothing to do", job_id)
        return False
    keeper = LeaseKeeper(backend.reassembly, lease, deps.lease_s)
    try:
        dropped = _join(deps, job, completions, keeper, final)
    except LeaseLostError:
        raise
    except Exception:
        # the redelivered message retakes the lease at once (a full disk, a storage
        # hiccup) instead of finding it busy until it expires, attempt after attempt
        keeper.release()
        raise
    backend.reassembly.complete(keeper.lease)
    left_out = list(dict.fromkeys([*job.left_out, *dropped]))  # chunking's, then the mux's
    return _mark_completed(deps, job_id, final, left_out=left_out)


def _join(deps: MediaDeps, job: Job, completions: list[SegmentCompletion],
          keeper: LeaseKeeper, final: str) -> list[str]:
    """Download the segments, mux them with the side streams and store ``final``
    (nothing partial: the work folder is removed, the store writes atomically);
    returns what the job's container could not hold of them."""
    backend, job_id = deps.backend, job.job_id
    alive = JobKeepAlive(backend.jobs, job_id, JobStatus.REASSEMBLING, every_s=deps.keepalive_s)

    def tick() -> None:
        keeper.tick()
        alive.tick()
    with disk_full_as(deps.work_dir, doing="joining the segments"), \
            tempfile.TemporaryDirectory(dir=_work_dir(deps), prefix=f"join-{job_id}-") as tmp:
        work = Path(tmp)
        paths = []
        for c in completions:
            path = stored_copy(backend.output_storage, c.output_key,
                               work / f"{c.segment_index:05d}.mp4")
            paths.append(path)
            tick()
        side = SideFiles(_kept_aside(deps, keys.streams_key(job_id), work / "streams.mkv"),
                         _kept_aside(deps, keys.data_tracks_key(job_id), work / "data.mp4"))
        out = work / f"final.{job.container.value}"
        dropped = mux_final(deps.runner, paths, side, out, container=job.container,
                            mode=job.mode, timecode=job.source_timecode, on_tick=tick,
                            cross_eyed=job.params.cross_eyed)
        keeper.check()  # a stale holder stops here, before writing
        backend.output_storage.put_file(final, out, content_type=CONTENT_TYPES[job.container],
                                        move=True)
        log.info("job_id=%s final written: %s (%d segments)", job_id, final, len(paths))
        join_stored_reports(backend.output_storage, [c.output_key for c in completions], final)
    return dropped


def _work_dir(deps: MediaDeps) -> Path:
    deps.work_dir.mkdir(parents=True, exist_ok=True)
    return deps.work_dir


def _kept_aside(deps: MediaDeps, key: str, dest: Path) -> Path | None:
    """A side file chunking kept (``side_streams.keep_side_streams``), if it did."""
    if not deps.backend.input_storage.exists(key):
        return None
    stored_copy(deps.backend.input_storage, key, dest)
    return dest


def _ordered_completions(deps: MediaDeps, job: Job) -> list[SegmentCompletion]:
    total = job.total_segments or 0
    rows = {c.segment_index: c for c in run_completions(deps.backend, job)}
    missing = [i for i in range(total) if i not in rows]
    if total < 1 or missing:
        shown = ", ".join(map(str, missing[:10])) + ("..." if len(missing) > 10 else "")
        raise SegmentsMissingError(
            f"job {job.job_id}: {len(missing)} of {total} segments not complete yet ({shown})")
    return [rows[i] for i in range(total)]


def _finish_done_job(deps: MediaDeps, job: Job, final: str) -> bool:
    if not deps.backend.output_storage.exists(final):
        raise FinalMissingError(
            "The finished video is missing from storage; please convert it again.")
    log.info("job_id=%s reassembly already done; fixing the job status only", job.job_id)
    return _mark_completed(deps, job.job_id, final)


def _mark_completed(deps: MediaDeps, job_id: str, final: str,
                    left_out: list[str] | None = None) -> bool:
    try:
        complete_job(deps.backend.jobs, job_id, final_key=final, left_out=left_out)
    except ConditionFailedError:
        if not discard_if_cancelled(deps.backend, job_id):
            log.info("job_id=%s already ended; completion not written again", job_id)
        return False
    log.info("job_id=%s completed", job_id)
    release_segments(deps.backend, job_id)
    return True
