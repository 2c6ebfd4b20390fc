"""SegmentHeartbeatStore on SQLite: one row per segment, replaced by each beat."""

from __future__ import annotations

import builtins

from shared_types.models import SegmentHeartbeat

from local_adapters.db import Database
from local_adapters.segment_rows import SegmentRows


class SqliteSegmentHeartbeatStore:
    """The latest beat per (job_id, segment_index), kept only while the
    segment has a status row."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._rows = SegmentRows(db, "segment_heartbeats")

    def beat(self, heartbeat: SegmentHeartbeat) -> None:
        """Replace the segment's beat (one short write; ignored without a status row)."""
        with self._db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO segment_heartbeats (job_id, segment_index, doc)"
                " SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM segment_status"
                " WHERE job_id = ? AND segment_index = ?)",
                (heartbeat.job_id, heartbeat.segment_index, heartbeat.model_dump_json(),
                 heartbeat.job_id, heartbeat.segment_index))

    def list(self, job_id: str) -> builtins.list[SegmentHeartbeat]:
        """The job's beats by segment_index."""
        return [SegmentHeartbeat.model_validate_json(r[0]) for r in self._rows.of_job(job_id)]

    def delete_job(self, job_id: str) -> None:
        """Forget the job's beats."""
        self._rows.delete_job(job_id)
