"""In-memory implementations of every port, for fast unit tests (thread-safe)."""

from __future__ import annotations

import builtins
import itertools
import threading
import time
import uuid
from collections.abc import Collection
from typing import Any

from shared_types.errors import (
    ConditionFailedError,
    JobNotFoundError,
    LeaseLostError,
)
from shared_types.job_updates import apply_job_update, condition_failure, job_sort_time
from shared_types.models import (
    IN_PROGRESS_STATUSES,
    Job,
    JobPage,
    JobStatus,
    JobUpdate,
    Lease,
    Message,
    QueueStats,
    SegmentCompletion,
    SegmentHeartbeat,
    SegmentState,
    SegmentStatus,
)
from shared_types.ports import Backend
from shared_types.testing.memory_storage import MemoryStorage


class MemoryJobStore:
    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def create(self, job: Job) -> None:
        with self._lock:
            if job.job_id in self._jobs:
                raise ConditionFailedError(f"job {job.job_id} exists")
            self._jobs[job.job_id] = job.model_copy(deep=True)

    def get(self, job_id: str) -> Job | None:
        job = self._jobs.get(job_id)
        return job.model_copy(deep=True) if job else None

    def update(self, job_id: str, changes: JobUpdate, *,
               expected_status: Collection[JobStatus] | None = None,
               expected_run: int | None = None) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                raise JobNotFoundError(job_id)
            if failure := condition_failure(job, expected_status, expected_run):
                raise failure
            new = apply_job_update(job, changes)
            self._jobs[job_id] = new
            return new.model_copy(deep=True)

    def list_by_status(self, status: JobStatus, *, limit: int = 50,
                       cursor: str | None = None) -> JobPage:
        jobs = sorted((j for j in self._jobs.values() if j.status == status),
                      key=lambda j: (job_sort_time(j), j.job_id), reverse=True)
        start = int(cursor) if cursor else 0
        page = jobs[start:start + limit]
        nxt = str(start + limit) if start + limit < len(jobs) else None
        return JobPage(items=[j.model_copy(deep=True) for j in page], next_cursor=nxt)

    def list_in_progress(self, *, limit: int = 50) -> list[Job]:
        jobs = [j for j in self._jobs.values() if j.status in IN_PROGRESS_STATUSES]
        jobs.sort(key=lambda j: (j.created_at, j.job_id), reverse=True)
        return [j.model_copy(deep=True) for j in jobs[:limit]]

    def delete(self, job_id: str) -> None:
        with self._lock:
            self._jobs.pop(job_id, None)


class _PerSegmentRows:
    """Rows keyed by (job id, segment index), deleted one or a job's at a time."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, int], Any] = {}
        self._lock = threading.Lock()

    def delete(self, job_id: str, segment_index: int) -> None:
        with self._lock:
            self._rows.pop((job_id, segment_index), None)

    def delete_job(self, job_id: str) -> None:
        with self._lock:
            for key in [k for k in self._rows if k[0] == job_id]:
                del self._rows[key]


class MemorySegmentCompletionStore(_PerSegmentRows):

    def put(self, completion: SegmentCompletion) -> bool:
        with self._lock:
            key = (completion.job_id, completion.segment_index)
            if key in self._rows and self._rows[key].run >= completion.run:
                return False
            self._rows[key] = completion.model_copy()
            return True

    def list(self, job_id: str) -> builtins.list[SegmentCompletion]:
        rows = [c for (j, _), c in self._rows.items() if j == job_id]
        return sorted(rows, key=lambda c: c.segment_index)

    def count(self, job_id: str) -> int:
        return sum(1 for (j, _) in self._rows if j == job_id)


class MemorySegmentStatusStore(_PerSegmentRows):

    def _set(self, job_id: str, index: int, state: SegmentState, run: int, *,
             attempt: bool = False, error: str | None = None) -> SegmentStatus:
        with self._lock:
            old = self._rows.get((job_id, index))
            if old and old.run > run:
                return old.model_copy()
            if old and old.run < run:
                old = None  # a row of an older run: this run starts afresh
            if old and old.state == SegmentState.COMPLETE and state != SegmentState.COMPLETE:
                return old.model_copy()
            attempts = (old.attempts if old else 0) + (1 if attempt else 0)
            row = SegmentStatus(job_id=job_id, segment_index=index, state=state,
                                attempts=attempts, last_error=error, run=run)
            self._rows[(job_id, index)] = row
            return row.model_copy()

    def mark_pending(self, job_id: str, segment_index: int, run: int = 0) -> SegmentStatus:
        return self._set(job_id, segment_index, SegmentState.PENDING, run, attempt=True)

    def mark_complete(self, job_id: str, segment_index: int, run: int = 0) -> SegmentStatus:
        return self._set(job_id, segment_index, SegmentState.COMPLETE, run)

    def mark_failed(self, job_id: str, segment_index: int, error: str,
                    run: int = 0) -> SegmentStatus:
        return self._set(job_id, segment_index, SegmentState.FAILED, run, error=error)

    def get(self, job_id: str, segment_index: int) -> SegmentStatus | None:
        row = self._rows.get((job_id, segment_index))
        return row.model_copy() if row else None

    def list(self, job_id: str) -> builtins.list[SegmentStatus]:
        rows = [r for (j, _), r in self._rows.items() if j == job_id]
        return sorted(rows, key=lambda r: r.segment_index)


class MemorySegmentHeartbeatStore:
    """Heartbeats beside a MemorySegmentStatusStore (a beat needs a status row)."""

    def __init__(self, statuses: MemorySegmentStatusStore) -> None:
        self._statuses = statuses
        self._beats: dict[tuple[str, int], SegmentHeartbeat] = {}
        self._lock = threading.Lock()

    def beat(self, heartbeat: SegmentHeartbeat) -> None:
        if self._statuses.get(heartbeat.job_id, heartbeat.segment_index) is None:
            return
        with self._lock:
            self._beats[(heartbeat.job_id, heartbeat.segment_index)] = heartbeat

    def list(self, job_id: str) -> builtins.list[SegmentHeartbeat]:
        with self._lock:
            return [b for (j, _), b in sorted(self._beats.items()) if j == job_id]

    def delete_job(self, job_id: str) -> None:
        with self._lock:
            for key in [k for k in self._beats if k[0] == job_id]:
                del self._beats[key]


class MemoryReassemblyLock:
    def __init__(self, clock=time.time) -> None:
        self._rows: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._clock = clock

    @staticmethod
    def _new_row() -> dict:
        return {"token": 0, "owner": None, "expires_at": 0.0, "done": False, "epoch": None}

    def trigger(self, job_id: str, epoch: int = 0) -> bool:
        with self._lock:
            row = self._rows.setdefault(job_id, self._new_row())
            if row["epoch"] is not None and row["epoch"] >= epoch:
                return False
            row["epoch"] = epoch
            return True

    def is_triggered(self, job_id: str) -> bool:
        row = self._rows.get(job_id)
        return bool(row and row["epoch"] is not None)

    def take_lease(self, job_id: str, owner: str, lease_s: float) -> Lease | None:
        with self._lock:
            row = self._rows.setdefault(job_id, self._new_row())
            t = self._clock()
            if row["done"] or (row["owner"] is not None and row["expires_at"] > t):
                return None
            row.update(token=row["token"] + 1, owner=owner, expires_at=t + lease_s)
            return Lease(job_id=job_id, owner=owner, token=row["token"],
                         expires_at=row["expires_at"])

    def _check(self, lease: Lease) -> dict:
        row = self._rows.get(lease.job_id)
        if row is None or row["done"] or row["token"] != lease.token:
            raise LeaseLostError(f"reassembly lease of job {lease.job_id} was lost")
        return row

    def renew(self, lease: Lease, lease_s: float) -> Lease:
        with self._lock:
            row = self._check(lease)
            row["expires_at"] = self._clock() + lease_s
            return lease.model_copy(update={"expires_at": row["expires_at"]})

    def complete(self, lease: Lease) -> None:
        with self._lock:
            row = self._check(lease)
            row["done"] = True

    def is_done(self, job_id: str) -> bool:
        row = self._rows.get(job_id)
        return bool(row and row["done"])

    def reset(self, job_id: str) -> None:
        with self._lock:
            self._rows.pop(job_id, None)


class MemoryQueue:
    """A queue with leases, receive counting and a dead-letter list."""

    def __init__(self, name: str = "queue", *, max_receives: int = 3, clock=time.time) -> None:
        self.name = name
        self.max_receives = max_receives
        self._clock = clock
        self._cond = threading.Condition()
        # message_id -> dict(body, visible_at, receipt, receives)
        self._msgs: dict[str, dict] = {}
        self._dead: dict[str, dict] = {}
        self._seq = itertools.count()

    def send(self, body: str, *, delay_s: float = 0) -> str:
        mid = str(uuid.uuid4())
        with self._cond:
            self._msgs[mid] = {"body": body, "visible_at": self._clock() + delay_s,
                               "receipt": None, "receives": 0, "seq": next(self._seq)}
            self._cond.notify_all()
        return mid

    def receive(self, *, max_messages: int = 1, wait_s: float = 0,
                visibility_s: float = 30, stop: threading.Event | None = None) -> list[Message]:
        deadline = time.monotonic() + wait_s
        with self._cond:
            while True:
                out = self._lease(max_messages, visibility_s)
                remaining = deadline - time.monotonic()
                if out or remaining <= 0 or (stop is not None and stop.is_set()):
                    return out
                self._cond.wait(timeout=min(remaining, 0.05))

    def _lease(self, max_messages: int, visibility_s: float) -> list[Message]:
        t = self._clock()
        out: list[Message] = []
        for mid, m in sorted(self._msgs.items(), key=lambda kv: kv[1]["seq"]):
            if len(out) >= max_messages:
                break
            if m["visible_at"] > t:
                continue
            if m["receives"] >= self.max_receives:
                self._dead[mid] = self._msgs.pop(mid)
                continue
            m["receives"] += 1
            m["receipt"] = f"{mid}:{uuid.uuid4().hex}"
            m["visible_at"] = t + visibility_s
            out.append(Message(message_id=mid, body=m["body"], receipt=m["receipt"],
                               receive_count=m["receives"]))
        return out

    def _held(self, message: Message) -> dict | None:
        m = self._msgs.get(message.message_id)
        return m if m is not None and m["receipt"] == message.receipt else None

    def extend(self, message: Message, visibility_s: float) -> None:
        with self._cond:
            m = self._held(message)
            if m is None:
                raise LeaseLostError(f"message {message.message_id} lease lost")
            m["visible_at"] = self._clock() + visibility_s

    def delete(self, message: Message) -> None:
        with self._cond:
            if self._held(message) is not None:
                del self._msgs[message.message_id]

    def release(self, message: Message) -> None:
        with self._cond:
            m = self._held(message)
            if m is not None:
                m["visible_at"] = self._clock()
                self._cond.notify_all()

    def dead_letter(self, message: Message, reason: str) -> None:
        with self._cond:
            m = self._msgs.pop(message.message_id, None)
            if m is not None:
                m["reason"] = reason
                self._dead[message.message_id] = m

    def dead_letters(self, *, limit: int = 100) -> list[Message]:
        return [Message(message_id=mid, body=m["body"], receipt="", receive_count=m["receives"],
                        dead_reason=m.get("reason")) for mid, m in list(self._dead.items())[:limit]]

    def redrive(self, *, limit: int | None = None) -> int:
        with self._cond:
            ids = list(self._dead)[:limit] if limit is not None else list(self._dead)
            for mid in ids:
                m = self._dead.pop(mid)
                m.update(receives=0, receipt=None, visible_at=self._clock())
                self._msgs[mid] = m
            self._cond.notify_all()
            return len(ids)

    def stats(self) -> QueueStats:
        t = self._clock()
        visible = sum(1 for m in self._msgs.values() if m["visible_at"] <= t)
        return QueueStats(visible=visible, in_flight=len(self._msgs) - visible,
                          dead_letters=len(self._dead))


def memory_backend(*, max_receives: int = 3) -> Backend:
    """A whole backend in memory (no S3-event wiring: tests send events themselves)."""
    statuses = MemorySegmentStatusStore()
    return Backend(
        jobs=MemoryJobStore(),
        completions=MemorySegmentCompletionStore(),
        segment_status=statuses,
        heartbeats=MemorySegmentHeartbeatStore(statuses),
        reassembly=MemoryReassemblyLock(),
        chunking_queue=MemoryQueue("chunking", max_receives=max_receives),
        video_queue=MemoryQueue("video-worker", max_receives=max_receives),
        segment_output_queue=MemoryQueue("segment-output", max_receives=max_receives),
        reassembly_queue=MemoryQueue("reassembly", max_receives=max_receives),
        input_storage=MemoryStorage("input"),
        output_storage=MemoryStorage("output"),
    )
