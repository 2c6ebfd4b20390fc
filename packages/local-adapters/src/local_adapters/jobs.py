"""JobStore on SQLite: conditional updates in one short write transaction."""

from __future__ import annotations

import base64
import json
from collections.abc import Collection

from shared_types.errors import ConditionFailedError, JobNotFoundError
from shared_types.job_updates import apply_job_update, condition_failure, job_sort_time
from shared_types.models import IN_PROGRESS_STATUSES, Job, JobPage, JobStatus, JobUpdate

from local_adapters.db import Database
from local_adapters.job_changes import RungJobChanges


def _encode_cursor(job: Job) -> str:
    raw = json.dumps([job_sort_time(job), job.job_id]).encode()
    return base64.urlsafe_b64encode(raw).decode()


def _decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        sort_time, job_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return float(sort_time), str(job_id)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"invalid page cursor {cursor!r}") from exc


class SqliteJobStore:
    """Jobs as JSON documents, indexed by (status, newest-first sort time).
    With ``changes``, each committed status change rings its waiters."""

    def __init__(self, db: Database, changes: RungJobChanges | None = None) -> None:
        self._db = db
        self._changes = changes

    def _tell_waiters(self) -> None:
        if self._changes is not None:
            self._changes.ring()

    def create(self, job: Job) -> None:
        """Insert a new job. Raises ConditionFailedError if the id exists."""
        with self._db.write() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO jobs (job_id, status, created_at, sort_time, doc)"
                " VALUES (?, ?, ?, ?, ?)",
                (job.job_id, job.status.value, job.created_at, job_sort_time(job),
                 job.model_dump_json()),
            )
            if cur.rowcount == 0:
                raise ConditionFailedError(f"job {job.job_id} already exists")
        self._tell_waiters()

    def get(self, job_id: str) -> Job | None:
        """The job, or None."""
        rows = self._db.read("SELECT doc FROM jobs WHERE job_id = ?", (job_id,))
        return Job.model_validate_json(rows[0][0]) if rows else None

    def update(self, job_id: str, changes: JobUpdate, *,
               expected_status: Collection[JobStatus] | None = None,
               expected_run: int | None = None) -> Job:
        """Apply ``changes`` atomically, only from ``expected_status`` and in
        ``expected_run`` when given.

        Raises JobNotFoundError, or ConditionFailedError when a condition did not match.
        """
        with self._db.write() as conn:
            row = conn.execute("SELECT doc FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
            if row is None:
                raise JobNotFoundError(f"no job {job_id}")
            job = Job.model_validate_json(row[0])
            if failure := condition_failure(job, expected_status, expected_run):
                raise failure
            new = apply_job_update(job, changes)
            conn.execute(
                "UPDATE jobs SET status = ?, sort_time = ?, doc = ? WHERE job_id = ?",
                (new.status.value, job_sort_time(new), new.model_dump_json(), job_id),
            )
        if new.status != job.status:
            self._tell_waiters()
        return new

    def list_by_status(self, status: JobStatus, *, limit: int = 50,
                       cursor: str | None = None) -> JobPage:
        """Jobs in one status, newest first, with an opaque keyset cursor.

        Raises ValueError for a cursor this store did not produce.
        """
        sql = "SELECT doc FROM jobs WHERE status = ?"
        params: list = [JobStatus(status).value]
        if cursor:
            sort_time, job_id = _decode_cursor(cursor)
            sql += " AND (sort_time < ? OR (sort_time = ? AND job_id < ?))"
            params += [sort_time, sort_time, job_id]
        sql += " ORDER BY sort_time DESC, job_id DESC LIMIT ?"
        params.append(limit + 1)
        jobs = [Job.model_validate_json(r[0]) for r in self._db.read(sql, tuple(params))]
        page = jobs[:limit]
        nxt = _encode_cursor(page[-1]) if len(jobs) > limit and page else None
        return JobPage(items=page, next_cursor=nxt)

    def list_in_progress(self, *, limit: int = 50) -> list[Job]:
        """Jobs in any in-progress status, newest created first."""
        marks = ",".join("?" * len(IN_PROGRESS_STATUSES))
        rows = self._db.read(
            f"SELECT doc FROM jobs WHERE status IN ({marks})"
            " ORDER BY created_at DESC, job_id DESC LIMIT ?",
            (*(s.value for s in IN_PROGRESS_STATUSES), limit),
        )
        return [Job.model_validate_json(r[0]) for r in rows]

    def delete(self, job_id: str) -> None:
        """Remove the job; no error if it does not exist."""
        with self._db.write() as conn:
            gone = conn.execute("DELETE FROM jobs WHERE job_id = ?", (job_id,)).rowcount
        if gone:
            self._tell_waiters()
