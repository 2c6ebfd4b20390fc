"""Per-segment records on SQLite: completions (idempotent) and processing status."""

from __future__ import annotations

import builtins

from shared_types.models import SegmentCompletion, SegmentState, SegmentStatus, now

from local_adapters.db import Database
from local_adapters.segment_rows import SegmentRows


class SqliteSegmentCompletionStore:
    """One row per (job_id, segment_index); the first completion of the newest run wins."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._rows = SegmentRows(db, "segment_completions")

    def put(self, completion: SegmentCompletion) -> bool:
        """Record a completion idempotently; True if it was new. A row of an
        older run is replaced; a completion of an older run than the row's is refused."""
        with self._db.write() as conn:
            cur = conn.execute(
                "INSERT INTO segment_completions (job_id, segment_index, doc) VALUES (?, ?, ?)"
                " ON CONFLICT (job_id, segment_index) DO UPDATE SET doc = excluded.doc"
                " WHERE COALESCE(json_extract(excluded.doc, '$.run'), 0)"
                "     > COALESCE(json_extract(segment_completions.doc, '$.run'), 0)",
                (completion.job_id, completion.segment_index, completion.model_dump_json()),
            )
            return cur.rowcount == 1

    def list(self, job_id: str) -> builtins.list[SegmentCompletion]:
        """All completions of a job, ordered by segment_index."""
        return [SegmentCompletion.model_validate_json(r[0]) for r in self._rows.of_job(job_id)]

    def count(self, job_id: str) -> int:
        """Number of distinct completed segments of a job."""
        rows = self._db.read(
            "SELECT COUNT(*) FROM segment_completions WHERE job_id = ?", (job_id,))
        return int(rows[0][0])

    def delete(self, job_id: str, segment_index: int) -> None:
        """Forget one completion; no error if absent."""
        self._rows.delete(job_id, segment_index)

    def delete_job(self, job_id: str) -> None:
        """Forget every completion of a job."""
        self._rows.delete_job(job_id)


_STATUS_COLUMNS = "job_id, segment_index, state, attempts, last_error, updated_at, run"


def _status(row) -> SegmentStatus:
    return SegmentStatus(job_id=row[0], segment_index=row[1], state=SegmentState(row[2]),
                         attempts=row[3], last_error=row[4], updated_at=row[5], run=row[6])


class SqliteSegmentStatusStore:
    """Segment-first status: a complete segment is never downgraded within a run;
    a newer run's mark starts the row afresh, an older run's changes nothing."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._rows = SegmentRows(db, "segment_status", _STATUS_COLUMNS)

    def _upsert(self, job_id: str, index: int, state: SegmentState, attempt: int,
                error: str | None, run: int) -> SegmentStatus:
        with self._db.write() as conn:
            row = conn.execute(
                "INSERT INTO segment_status (" + _STATUS_COLUMNS + ")"
                " VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (job_id, segment_index) DO UPDATE SET"
                "   state = excluded.state,"
                "   attempts = CASE WHEN excluded.run > segment_status.run THEN excluded.attempts"
                "              ELSE segment_status.attempts + excluded.attempts END,"
                "   last_error = excluded.last_error,"
                "   updated_at = excluded.updated_at,"
                "   run = excluded.run"
                " WHERE excluded.run > segment_status.run"
                "    OR (excluded.run = segment_status.run"
                "        AND (segment_status.state != 'complete' OR excluded.state = 'complete'))"
                " RETURNING " + _STATUS_COLUMNS,
                (job_id, index, state.value, attempt, error, now(), run),
            ).fetchone()
            if row is None:  # refused: already complete in this run, or a newer run's row
                row = conn.execute(
                    "SELECT " + _STATUS_COLUMNS + " FROM segment_status"
                    " WHERE job_id = ? AND segment_index = ?", (job_id, index)).fetchone()
            return _status(row)

    def mark_pending(self, job_id: str, segment_index: int, run: int = 0) -> SegmentStatus:
        """Record an attempt before any work; a complete segment stays complete."""
        return self._upsert(job_id, segment_index, SegmentState.PENDING, 1, None, run)

    def mark_complete(self, job_id: str, segment_index: int, run: int = 0) -> SegmentStatus:
        """Set state complete (clears last_error); creates the row if missing."""
        return self._upsert(job_id, segment_index, SegmentState.COMPLETE, 0, None, run)

    def mark_failed(self, job_id: str, segment_index: int, error: str,
                    run: int = 0) -> SegmentStatus:
        """Set state failed with a reason; a complete segment stays complete."""
        return self._upsert(job_id, segment_index, SegmentState.FAILED, 0, error, run)

    def get(self, job_id: str, segment_index: int) -> SegmentStatus | None:
        """The status row, or None."""
        rows = self._db.read(
            "SELECT " + _STATUS_COLUMNS + " FROM segment_status"
            " WHERE job_id = ? AND segment_index = ?", (job_id, segment_index))
        return _status(rows[0]) if rows else None

    def list(self, job_id: str) -> builtins.list[SegmentStatus]:
        """All status rows of a job, ordered by segment_index."""
        return [_status(r) for r in self._rows.of_job(job_id)]

    def delete(self, job_id: str, segment_index: int) -> None:
        """Forget one status row; no error if absent."""
        self._rows.delete(job_id, segment_index)

    def delete_job(self, job_id: str) -> None:
        """Forget every status row of a job."""
        self._rows.delete_job(job_id)
