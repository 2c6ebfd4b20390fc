"""The SQL every per-segment table keyed by (job_id, segment_index) shares:
read a job's rows in segment order, forget one row, forget a job's rows."""

from __future__ import annotations

import sqlite3

from local_adapters.db import Database


class SegmentRows:
    """One per-segment table (``table`` is one of ours, never user input)."""

    def __init__(self, db: Database, table: str, columns: str = "doc") -> None:
        self._db, self._table, self._columns = db, table, columns

    def of_job(self, job_id: str) -> list[sqlite3.Row]:
        """The job's rows (``columns``), ordered by segment_index."""
        return self._db.read(
            f"SELECT {self._columns} FROM {self._table} WHERE job_id = ?"
            " ORDER BY segment_index", (job_id,))

    def delete(self, job_id: str, segment_index: int) -> None:
        """Forget one row; no error if absent."""
        with self._db.write() as conn:
            conn.execute(f"DELETE FROM {self._table} WHERE job_id = ? AND segment_index = ?",
                         (job_id, segment_index))

    def delete_job(self, job_id: str) -> None:
        """Forget every row of a job."""
        with self._db.write() as conn:
            conn.execute(f"DELETE FROM {self._table} WHERE job_id = ?", (job_id,))
