"""Ports: what the pipeline needs from a backend, as Protocols.

Implementations: ``local_adapters`` (SQLite + filesystem), ``aws_adapters``
(DynamoDB, SQS, S3) and ``shared_types.testing.memory`` (in-memory fakes).
Each port has one contract suite in ``shared_types.testing.contracts``.
Every method may raise TransientStoreError when the backend is unreachable.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Collection, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from shared_types.data_plane import DATA_PLANE
from shared_types.job_changes import UNANNOUNCED
from shared_types.models import (
    Job,
    JobPage,
    JobStatus,
    JobUpdate,
    Lease,
    Message,
    ObjectInfo,
    PresignedRequest,
    QueueStats,
    SegmentCompletion,
    SegmentHeartbeat,
    SegmentStatus,
    UploadedPart,
)


class JobStore(Protocol):
    def create(self, job: Job) -> None:
        """Insert a new job. Raises ConditionFailedError if the id exists."""

    def get(self, job_id: str) -> Job | None:
        """The job, or None."""

    def update(
        self,
        job_id: str,
        changes: JobUpdate,
        *,
        expected_status: Collection[JobStatus] | None = None,
        expected_run: int | None = None,
    ) -> Job:
        """Apply ``changes`` atomically and return the new job.

        With ``expected_status`` the write happens only if the current status is
        one of them; with ``expected_run`` only if ``Job.run`` equals it (a
        chunker's claim and every write of its run). Raises JobNotFoundError, or
        ConditionFailedError when a condition did not match.
        """

    def list_by_status(
        self, status: JobStatus, *, limit: int = 50, cursor: str | None = None
    ) -> JobPage:
        """Jobs in one status, newest first (by completed_at for completed jobs,
        created_at otherwise), with an opaque cursor for the next page."""

    def list_in_progress(self, *, limit: int = 50) -> list[Job]:
        """Jobs in any in-progress status, merged, newest created first."""

    def delete(self, job_id: str) -> None:
        """Remove the job; no error if it does not exist."""


class ChangeWaiter(Protocol):
    def wait(self, timeout_s: float) -> bool:
        """Sleep until a job's status may have changed or ``timeout_s`` passed;
        True when told of a change. A hint only: the caller reads the job again."""

    async def wait_async(self, timeout_s: float) -> bool:
        """``wait`` for a coroutine: the event loop runs meanwhile."""


class JobChanges(Protocol):
    def listen(self) -> AbstractContextManager[ChangeWaiter]:
        """A waiter told of every job status change made (by any process) while
        the block runs, including changes made before its first ``wait``: open
        it before the first read, so that nothing between a read and the wait
        is missed."""


class SegmentCompletionStore(Protocol):
    def put(self, completion: SegmentCompletion) -> bool:
        """Record a completion idempotently; True if it was new. One row per
        segment: a stored completion of an older ``run`` is replaced; a put of an
        older run than the stored one is refused (False), so a late write of a
        stale run never hides the current run's completion."""

    def list(self, job_id: str) -> list[SegmentCompletion]:
        """All completions of a job, ordered by segment_index."""

    def count(self, job_id: str) -> int:
        """Number of distinct completed segments of a job."""

    def delete(self, job_id: str, segment_index: int) -> None:
        """Forget one completion (Retry, when its output object is gone); no error if absent."""

    def delete_job(self, job_id: str) -> None:
        """Forget every completion of a job."""


class SegmentStatusStore(Protocol):
    """One row per segment, speaking for one chunking run (``run``, Job.run): a
    mark of a newer run replaces the row as if it were absent (attempts start
    again); a mark of an older run than the row's changes nothing and returns
    the row (its ``run`` tells the caller it is stale)."""

    def mark_pending(self, job_id: str, segment_index: int, run: int = 0) -> SegmentStatus:
        """Record an attempt before any work: attempts + 1, state pending.
        A complete segment stays complete (returned unchanged)."""

    def mark_complete(self, job_id: str, segment_index: int, run: int = 0) -> SegmentStatus:
        """Set state complete (clears last_error); creates the row if missing."""

    def mark_failed(self, job_id: str, segment_index: int, error: str,
                    run: int = 0) -> SegmentStatus:
        """Set state failed with a reason; a complete segment stays complete."""

    def get(self, job_id: str, segment_index: int) -> SegmentStatus | None:
        """The status row, or None."""

    def list(self, job_id: str) -> list[SegmentStatus]:
        """All status rows of a job, ordered by segment_index."""

    def delete(self, job_id: str, segment_index: int) -> None:
        """Forget one status row (Retry, when its converted segment is gone), so
        a complete segment can be converted again; no error if absent."""

    def delete_job(self, job_id: str) -> None:
        """Forget every status row of a job."""


class SegmentHeartbeatStore(Protocol):
    def beat(self, heartbeat: SegmentHeartbeat) -> None:
        """Record a worker's progress on a segment, replacing its previous beat.
        Ignored when the segment has no status row (its job was deleted)."""

    def list(self, job_id: str) -> list[SegmentHeartbeat]:
        """The latest beat of every segment of a job that has one, by segment_index."""

    def delete_job(self, job_id: str) -> None:
        """Forget every heartbeat of a job."""


class ReassemblyLock(Protocol):
    def trigger(self, job_id: str, epoch: int = 0) -> bool:
        """Record that reassembly of the job's ``epoch`` (``Job.epoch``, bumped by
        Retry) was decided; True only for the one caller that recorded it. A later
        epoch can be triggered again; the lease and its fencing token are untouched."""

    def is_triggered(self, job_id: str) -> bool:
        """True once trigger() succeeded for some epoch."""

    def take_lease(self, job_id: str, owner: str, lease_s: float) -> Lease | None:
        """Claim reassembly of a job for ``lease_s`` seconds.

        Succeeds when nobody holds an unexpired lease and the job is not done
        (creating the row if needed). Each success gets a larger fencing token.
        Returns None when another owner holds it or reassembly is done.
        """

    def renew(self, lease: Lease, lease_s: float) -> Lease:
        """Extend a held lease. Raises LeaseLostError if it was retaken or done."""

    def complete(self, lease: Lease) -> None:
        """Mark reassembly done. Raises LeaseLostError unless ``lease`` is still
        the current one (fencing: a stale holder cannot complete)."""

    def is_done(self, job_id: str) -> bool:
        """True after complete()."""

    def reset(self, job_id: str) -> None:
        """Delete the row (only when the job itself is deleted: Retry bumps the epoch)."""


class Queue(Protocol):
    name: str

    def send(self, body: str, *, delay_s: float = 0) -> str:
        """Enqueue a message; returns its message id."""

    def receive(
        self, *, max_messages: int = 1, wait_s: float = 0, visibility_s: float = 30,
        stop: threading.Event | None = None,
    ) -> list[Message]:
        """Lease up to ``max_messages``; each stays invisible to others for
        ``visibility_s``. Waits up to ``wait_s`` for one (long polling), or
        until ``stop`` is set, where the backend can end its wait early (a
        draining consumer need not sit out a long wait; SQS's own long poll
        cannot be cut short, so it only stops between polls).
        A message received more than the queue's max receive count moves to its
        dead-letter queue instead of being returned."""

    def extend(self, message: Message, visibility_s: float) -> None:
        """Keep a leased message invisible for ``visibility_s`` more seconds (a
        heartbeat). Raises LeaseLostError if the lease already passed to another
        consumer (where the backend can tell)."""

    def delete(self, message: Message) -> None:
        """Acknowledge a message. A stale receipt never deletes another
        consumer's lease."""

    def release(self, message: Message) -> None:
        """Make a leased message visible again now (used when draining)."""

    def dead_letter(self, message: Message, reason: str) -> None:
        """Move a message to the dead-letter queue now, recording why."""

    def dead_letters(self, *, limit: int = 100) -> list[Message]:
        """Peek at dead-lettered messages without consuming them."""

    def redrive(self, *, limit: int | None = None) -> int:
        """Move dead-lettered messages back to this queue; returns how many."""

    def stats(self) -> QueueStats:
        """Approximate visible / in-flight / dead-letter counts."""


class ObjectStorage(Protocol):
    bucket: str

    def put_file(self, key: str, path: Path, *, content_type: str | None = None,
                 move: bool = False) -> ObjectInfo:
        """Upload a file, streaming (multipart when large). With ``move`` the file
        is handed over: gone from ``path`` once stored (a local folder renames
        it in, no copy), still there when storing failed. Raises InvalidKeyError."""

    def put_bytes(self, key: str, data: bytes, *, content_type: str | None = None) -> ObjectInfo:
        """Upload small content from memory."""

    def get_file(self, key: str, path: Path) -> ObjectInfo:
        """Download to ``path``, streaming. Raises ObjectNotFoundError."""

    def get_bytes(self, key: str) -> bytes:
        """Read small content into memory. Raises ObjectNotFoundError."""

    def head(self, key: str) -> ObjectInfo | None:
        """Metadata of an object, or None."""

    def exists(self, key: str) -> bool:
        """True when the object exists."""

    def delete(self, key: str) -> None:
        """Remove an object; no error if absent."""

    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        """Objects under a prefix, in key order."""

    def presign_put(
        self,
        key: str,
        *,
        expires_s: int = 3600,
        max_bytes: int | None = None,
        content_type: str | None = None,
    ) -> PresignedRequest:
        """A URL a browser can upload one object to, without credentials."""

    def presign_post(
        self,
        key: str,
        *,
        max_bytes: int,
        expires_s: int = 3600,
        content_type: str | None = None,
        success_redirect: str | None = None,
    ) -> PresignedRequest:
        """A form a browser can POST one object with (``fields``, then the file
        as the last field, ``file``), without credentials. Its signed policy
        (shared_types.upload_policy) has a ``content-length-range`` of
        1..``max_bytes``: the storage itself refuses a larger file. With
        ``success_redirect`` the storage answers a successful upload with a
        303 to that URL (plus ``bucket``, ``key`` and ``etag`` query
        parameters). Raises InvalidKeyError."""

    def presign_get(
        self, key: str, *, expires_s: int = 3600, download_name: str | None = None
    ) -> str:
        """A URL to read an object (Range requests work); with ``download_name``
        the response asks the browser to save it under that name."""

    def uri(self, key: str) -> str:
        """A URI naming the object (``s3://bucket/key`` or ``file://...``)."""

    def mark_expirable(self, prefix: str) -> int:
        """Let the bucket's retention rule expire every object now under
        ``prefix`` (a job's segments, once the job has ended): S3 tags each
        object for the bucket's lifecycle rule; the local backend deletes them
        once the mark is older than its retention age. Objects written later
        are not marked. Returns how many objects were marked."""

    def unmark_expirable(self, prefix: str) -> int:
        """Undo :meth:`mark_expirable` for the objects still under ``prefix``
        (a retried job needs its segments again). Returns how many."""

    # Multipart uploads (S3's protocol; the local backend follows it): a browser
    # PUTs each part to its own presigned URL; the object appears on complete.

    def start_multipart(self, key: str, *, max_bytes: int | None = None,
                        content_type: str | None = None) -> str:
        """Open a multipart upload to ``key``; returns its upload id.
        Raises InvalidKeyError."""

    def presign_part(self, key: str, upload_id: str, part_number: int, *,
                     expires_s: int = 3600, content_length: int | None = None) -> str:
        """A URL a browser can PUT one part to, without credentials; with
        ``content_length`` the storage takes a part of exactly that many bytes.
        Raises UploadNotFoundError (where the backend can tell), ValueError
        for a part number outside 1..10000."""

    def open_uploads(self, key: str) -> builtins.list[str]:
        """The ids of the multipart uploads to ``key`` neither completed nor
        aborted (oldest first)."""

    def list_parts(self, key: str, upload_id: str) -> builtins.list[UploadedPart]:
        """The parts received so far, by part number (what a resumed upload
        need not send again). Raises UploadNotFoundError."""

    def complete_multipart(self, key: str, upload_id: str, *,
                           max_bytes: int | None = None) -> ObjectInfo:
        """Join the received parts into the object (raising its object-created
        event). Raises UploadNotFoundError; InvalidUploadError for a missing or
        short part; UploadTooLargeError over ``max_bytes`` (the upload is then
        aborted and its parts freed)."""

    def abort_multipart(self, key: str, upload_id: str) -> None:
        """Drop an upload and free its parts; no error if it is already gone."""


# chunking, video-worker, segment-output, reassembly: data_plane.json defines them
QUEUE_NAMES = tuple(DATA_PLANE.queues)


@dataclass(frozen=True)
class Backend:
    """Every port the pipeline uses, wired for one backend."""

    jobs: JobStore
    completions: SegmentCompletionStore
    segment_status: SegmentStatusStore
    reassembly: ReassemblyLock
    chunking_queue: Queue
    video_queue: Queue
    segment_output_queue: Queue
    reassembly_queue: Queue
    input_storage: ObjectStorage
    output_storage: ObjectStorage
    heartbeats: SegmentHeartbeatStore
    # a backend that cannot tell of changes (DynamoDB: no push) leaves its
    # waiters to look again after their timeout
    job_changes: JobChanges = UNANNOUNCED

    def queue(self, name: str) -> Queue:
        """A queue by its name in QUEUE_NAMES."""
        return {
            "chunking": self.chunking_queue,
            "video-worker": self.video_queue,
            "segment-output": self.segment_output_queue,
            "reassembly": self.reassembly_queue,
        }[name]
