"""The janitor: the sweep that leaves no job silently stuck.

Every non-terminal job status has an owner and a liveness proof
(``Job.updated_at``, refreshed by every step while it works); this pass
recovers a job whose proof is older than ``stuck_after_s`` by re-sending its
next piece of work (idempotent), and fails it with a reason once it has been
re-sent ``max_resends`` times. The table of states, owners and sweeps is
``shared_types.lifecycle.LIFECYCLE``: the pass sweeps each status it lists with
the handler of the :class:`Sweep` it names (docs/ARCHITECTURE.md, "Lifecycle").

- ``created`` + stale: the upload event was lost -> re-send it (a clip job's
  ClipMessage); no upload within ``upload_timeout_s`` of creation (or Retry)
  -> fail (``upload_missing``).
- ``awaiting_confirmation`` (held for a preview, ``shared_types.preview``): the
  person owns it. Stale with its source but no thumbnail strip -> re-send the
  source event (the strip's event was lost); no upload within
  ``upload_timeout_s`` -> fail (``upload_missing``); untouched (no upload, no
  preview) for ``hold_timeout_s`` -> fail (``preview_expired``: Retry converts it).
- ``chunking_in_progress`` + stale: the chunker died. A complete segment set
  ``0..n-1`` in storage -> set ``chunking_complete`` + trigger; otherwise
  re-send the source event, or fail when the source is gone.
- ``chunking_complete``: all completions but no trigger -> trigger (at once).
  Stale and triggered -> re-send the reassembly message (the trigger row was
  written but its send was lost). Stale with a ``failed`` segment or one out
  of attempts (and silent: no frame heartbeat) -> fail with its reason. Stale
  with segments nobody works on (no status row, or ``pending`` with attempts
  left, no segment activity --
  status change or frame heartbeat -- for ``stuck_after_s``) -> re-send their events.
- ``reassembling`` + stale: the reassembler died -> re-send the message.

Re-sends are skipped while the target queue has visible messages (the work may
simply wait in a backlog). Only conditional writes: any number of passes may
run at once. AWS calls (for the janitor's IAM role): DynamoDB Query on the jobs
table's ``status-created_at`` index, GetItem/UpdateItem on jobs, Query on the
segment completions and segment status tables (frame heartbeats live on the
segment status items), GetItem on the reassembly table;
S3 ListBucket and HeadObject on the input bucket; SQS GetQueueAttributes and
SendMessage on the chunking, video-worker and reassembly queues.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from pydantic import BaseModel, Field
from shared_types.errors import ConditionFailedError, JobNotFoundError, TransientError
from shared_types.keys import parse_segment_key, segment_prefix
from shared_types.lifecycle import Sweep, swept
from shared_types.models import Job, JobStatus, JobUpdate, SegmentState
from shared_types.ports import Backend, Queue
from shared_types.preview import has_source, resend_chunking
from shared_types.reassembly_trigger import is_ready_for_reassembly, trigger_reassembly_if_ready
from shared_types.resend import (
    incomplete_segments,
    resend_reassembly,
    resend_segments,
    resend_source,
)
from shared_types.runs import run_completions, run_statuses
from shared_types.segment_retention import fail_and_release
from shared_types.transitions import finish_chunking, record

log = logging.getLogger(__name__)

DEFAULT_MAX_RESENDS = 5
DEFAULT_UPLOAD_TIMEOUT_S = 24 * 3600.0
DEFAULT_HOLD_TIMEOUT_S = 7 * 24 * 3600.0


class JanitorReport(BaseModel):
    """What one pass repaired, by job id."""

    chunking_recovered: list[str] = Field(default_factory=list)
    chunking_resent: list[str] = Field(default_factory=list)
    segments_resent: list[str] = Field(default_factory=list)
    reassembly_triggered: list[str] = Field(default_factory=list)
    reassembly_resent: list[str] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class SweepPolicy:
    stuck_after_s: float
    max_segment_attempts: int
    max_resends: int = DEFAULT_MAX_RESENDS
    upload_timeout_s: float = DEFAULT_UPLOAD_TIMEOUT_S
    hold_timeout_s: float = DEFAULT_HOLD_TIMEOUT_S


def run_janitor_pass(
    backend: Backend,
    *,
    stuck_after_s: float,
    max_segment_attempts: int,
    max_resends: int = DEFAULT_MAX_RESENDS,
    upload_timeout_s: float = DEFAULT_UPLOAD_TIMEOUT_S,
    hold_timeout_s: float = DEFAULT_HOLD_TIMEOUT_S,
    now: float | None = None,
) -> JanitorReport:
    """Sweep every job in every non-terminal status once; returns what was done.

    A transient error while repairing one job is logged and the pass goes on
    (the job is still stale next pass); errors listing jobs propagate.
    """
    sweep = _Sweep(backend, SweepPolicy(stuck_after_s, max_segment_attempts, max_resends,
                                        upload_timeout_s, hold_timeout_s),
                   time.time() if now is None else now)
    for status, kind in swept():  # every status the lifecycle table sweeps, and how
        for job in _jobs_in(backend, status):
            try:
                sweep.by_kind(kind)(job)
            except (ConditionFailedError, JobNotFoundError):
                log.info("job_id=%s janitor: job moved on meanwhile; left alone", job.job_id)
            except TransientError:  # one unreachable queue must not stop the whole pass
                log.warning("job_id=%s janitor: repair failed; next pass retries", job.job_id,
                            exc_info=True)
    return sweep.report


def _jobs_in(backend: Backend, status: JobStatus) -> Iterator[Job]:
    cursor = None
    while True:
        page = backend.jobs.list_by_status(status, limit=100, cursor=cursor)
        yield from page.items
        cursor = page.next_cursor
        if not cursor:
            return


def complete_segment_set(backend: Backend, job: Job) -> int | None:
    """``n`` when the input bucket holds exactly the segments ``0..n-1`` of the
    job's current chunking run (all keys agreeing on ``n``), else None."""
    storage = backend.input_storage
    found = [p for info in storage.list(segment_prefix(job.job_id))
             if (p := parse_segment_key(storage.bucket, info.key)) is not None
             and p.run == job.run]
    totals = {p.total_segments for p in found}
    if len(totals) != 1:
        return None
    total = totals.pop()
    return total if {p.segment_index for p in found} == set(range(total)) else None


@dataclass
class _Sweep:
    backend: Backend
    policy: SweepPolicy
    t: float
    report: JanitorReport = field(default_factory=JanitorReport)
    _busy: dict[str, bool] = field(default_factory=dict)

    def by_kind(self, kind: Sweep) -> Callable[[Job], None]:
        """The handler of one of the lifecycle table's sweeps (KeyError for
        ``Sweep.NONE``: a terminal status is never swept)."""
        return {
            Sweep.RESEND_UPLOAD: self._created,
            Sweep.EXPIRE_HOLD: self._held,
            Sweep.RECOVER_CHUNKING: self._chunking,
            Sweep.FINISH_SEGMENTS: self._chunked,
            Sweep.RESEND_REASSEMBLY: self._reassembling,
        }[kind]

    def _stale(self, job: Job) -> bool:
        return self.t - job.updated_at >= self.policy.stuck_after_s

    # -- one method per sweep --------------------------------------------------------
    def _created(self, job: Job) -> None:
        if not self._stale(job):
            return
        if has_source(self.backend, job):
            self._resend(job, "upload", self.backend.chunking_queue,
                         lambda: resend_chunking(self.backend, job),
                         self.report.chunking_resent)
        else:
            self._fail_if_never_uploaded(job)

    def _held(self, job: Job) -> None:
        days = self.policy.hold_timeout_s / 86400
        if self.t - job.updated_at >= self.policy.hold_timeout_s:
            self._fail(job, "preview_expired", "preview",
                       f"The video waited {days:g} days for \"Convert the whole video\"; "
                       "press Retry to convert it with the settings chosen last, or delete it.")
        elif not self._stale(job) or job.thumbnails is not None:
            return  # the strip is made: the person owns the job now
        elif has_source(self.backend, job):
            self._resend(job, "thumbnails", self.backend.chunking_queue,
                         lambda: resend_source(self.backend, job.job_id),
                         self.report.chunking_resent)
        else:
            self._fail_if_never_uploaded(job)

    def _fail_if_never_uploaded(self, job: Job) -> None:
        if self.t - job.updated_at >= self.policy.upload_timeout_s:  # created or retried
            self._fail(job, "upload_missing", "upload",
                       "No video was uploaded before the upload link expired; "
                       "please start a new conversion.")

    def _chunking(self, job: Job) -> None:
        if not self._stale(job):
            return
        backend, job_id = self.backend, job.job_id
        total = complete_segment_set(backend, job)
        if total is not None:
            finish_chunking(backend.jobs, job_id, run=job.run, total_segments=total)
            log.warning("job_id=%s janitor: chunking was stuck; inferred total_segments=%d",
                        job_id, total)
            self.report.chunking_recovered.append(job_id)
            if trigger_reassembly_if_ready(backend, job_id):
                self.report.reassembly_triggered.append(job_id)
        elif not has_source(backend, job):
            self._fail(job, "source_missing", "chunking",
                       "Chunking stopped and the uploaded video is gone; please upload it again.")
        else:
            self._resend(job, "chunking", backend.chunking_queue,
                         lambda: resend_chunking(backend, job), self.report.chunking_resent)

    def _chunked(self, job: Job) -> None:
        backend, job_id = self.backend, job.job_id
        if trigger_reassembly_if_ready(backend, job_id):
            log.warning("job_id=%s janitor: reassembly was not triggered; triggered now", job_id)
            self.report.reassembly_triggered.append(job_id)
            return
        if not self._stale(job):
            return
        if is_ready_for_reassembly(backend, job_id):
            # triggered, yet nobody started: the send after the trigger row was lost
            self._resend(job, "reassembly", backend.reassembly_queue,
                         lambda: resend_reassembly(backend, job_id),
                         self.report.reassembly_resent)
        elif not self._fail_if_segment_gave_up(job):
            self._resend_idle_segments(job)

    def _reassembling(self, job: Job) -> None:
        if self._stale(job):
            self._resend(job, "reassembly", self.backend.reassembly_queue,
                         lambda: resend_reassembly(self.backend, job.job_id),
                         self.report.reassembly_resent)

    # -- segments --------------------------------------------------------------------
    def _fail_if_segment_gave_up(self, job: Job) -> bool:
        done = {c.segment_index for c in run_completions(self.backend, job)}
        # a last attempt that outlasts stuck_after_s is alive while its frames beat
        beats: dict[int, float] = {}
        for beat in self.backend.heartbeats.list(job.job_id):
            beats[beat.segment_index] = max(beats.get(beat.segment_index, 0.0),
                                            beat.last_heartbeat)
        for status in run_statuses(self.backend, job):
            if status.segment_index in done or status.state == SegmentState.COMPLETE:
                continue
            moved = max(status.updated_at, beats.get(status.segment_index, 0.0))
            exhausted = (status.attempts >= self.policy.max_segment_attempts
                         and self.t - moved >= self.policy.stuck_after_s)
            if status.state == SegmentState.FAILED or exhausted:
                reason = status.last_error or "no answer from inference"
                self._fail(job, "segment_gave_up", "inference",
                           f"Segment {status.segment_index + 1} of {job.total_segments} could "
                           f"not be converted after {status.attempts} attempt(s): {reason}")
                return True
        return False

    def _resend_idle_segments(self, job: Job) -> None:
        rows = {s.segment_index: s for s in run_statuses(self.backend, job)}
        beats = self.backend.heartbeats.list(job.job_id)  # frames written by a live converter
        last_activity = max([job.updated_at, *(s.updated_at for s in rows.values()),
                             *(b.last_heartbeat for b in beats)])
        if self.t - last_activity < self.policy.stuck_after_s:
            return  # some segment of this job moved recently: its owner is alive
        idle = [i for i in incomplete_segments(self.backend, job)
                if i not in rows or (rows[i].state == SegmentState.PENDING
                                     and rows[i].attempts < self.policy.max_segment_attempts)]
        if idle:
            self._resend(job, "inference", self.backend.video_queue,
                         lambda: resend_segments(self.backend, job, idle),
                         self.report.segments_resent)

    # -- bounded re-send and failure -------------------------------------------------
    def _resend(self, job: Job, stage: str, queue: Queue, send: Callable[[], object],
                done: list[str]) -> None:
        if self._has_backlog(queue):
            log.info("job_id=%s janitor: %s queue has a backlog; not re-sending yet",
                     job.job_id, queue.name)
            return
        if job.resends >= self.policy.max_resends:
            self._fail(job, "stalled", stage,
                       f"The {stage} step stopped without finishing "
                       f"{_times(job.resends + 1)}; gave up. Press Retry to try again.")
            return
        # Count (and refresh the proof) before sending: a crash after the send costs one
        # extra re-send at most, never an unbounded one.
        record(self.backend.jobs, job.job_id, JobUpdate(resends=job.resends + 1),
               while_in=[job.status])
        send()
        log.warning("job_id=%s janitor: %s stalled; work re-sent (%d of %d)", job.job_id,
                    stage, job.resends + 1, self.policy.max_resends)
        done.append(job.job_id)

    def _has_backlog(self, queue: Queue) -> bool:
        if queue.name not in self._busy:
            self._busy[queue.name] = queue.stats().visible > 0
        return self._busy[queue.name]

    def _fail(self, job: Job, code: str, stage: str, message: str) -> None:
        if fail_and_release(self.backend, job.job_id, code=code, message=message, stage=stage):
            self.report.failed.append(job.job_id)


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"
