"""ReassemblyLock on SQLite: a trigger row plus a fenced, expiring lease."""

from __future__ import annotations

from collections.abc import Callable

from shared_types.errors import LeaseLostError
from shared_types.models import Lease, now

from local_adapters.db import Database


class SqliteReassemblyLock:
    """One row per job: ``token`` grows with every successful take (fencing)."""

    def __init__(self, db: Database, *, clock: Callable[[], float] = now) -> None:
        self._db, self._clock = db, clock

    def trigger(self, job_id: str, epoch: int = 0) -> bool:
        """Record the trigger of ``epoch``; True only for the one caller that recorded it."""
        with self._db.write() as conn:
            cur = conn.execute(
                "INSERT INTO reassembly (job_id, triggered_epoch) VALUES (?, ?)"
                " ON CONFLICT (job_id) DO UPDATE SET triggered_epoch = excluded.triggered_epoch"
                " WHERE triggered_epoch IS NULL OR triggered_epoch < excluded.triggered_epoch",
                (job_id, epoch))
            return cur.rowcount == 1

    def is_triggered(self, job_id: str) -> bool:
        """True once trigger() succeeded for some epoch."""
        return bool(self._db.read(
            "SELECT 1 FROM reassembly WHERE job_id = ? AND triggered_epoch IS NOT NULL",
            (job_id,)))

    def take_lease(self, job_id: str, owner: str, lease_s: float) -> Lease | None:
        """Claim reassembly for ``lease_s`` s; None if held by someone or done."""
        with self._db.write() as conn:
            t = self._clock()
            conn.execute("INSERT OR IGNORE INTO reassembly (job_id) VALUES (?)", (job_id,))
            row = conn.execute(
                "UPDATE reassembly SET token = token + 1, owner = ?, expires_at = ?"
                " WHERE job_id = ? AND done = 0 AND (owner IS NULL OR expires_at <= ?)"
                " RETURNING token, expires_at",
                (owner, t + lease_s, job_id, t),
            ).fetchone()
        if row is None:
            return None
        return Lease(job_id=job_id, owner=owner, token=row[0], expires_at=row[1])

    def renew(self, lease: Lease, lease_s: float) -> Lease:
        """Extend a held lease. Raises LeaseLostError if it was retaken or done."""
        with self._db.write() as conn:
            row = conn.execute(
                "UPDATE reassembly SET expires_at = ? WHERE job_id = ? AND token = ? AND done = 0"
                " RETURNING expires_at",
                (self._clock() + lease_s, lease.job_id, lease.token),
            ).fetchone()
        if row is None:
            raise LeaseLostError(f"reassembly lease {lease.token} of job {lease.job_id} was lost")
        return lease.model_copy(update={"expires_at": row[0]})

    def complete(self, lease: Lease) -> None:
        """Mark reassembly done. Raises LeaseLostError unless ``lease`` is current."""
        with self._db.write() as conn:
            cur = conn.execute(
                "UPDATE reassembly SET done = 1 WHERE job_id = ? AND token = ? AND done = 0",
                (lease.job_id, lease.token),
            )
            if cur.rowcount == 0:
                raise LeaseLostError(
                    f"reassembly lease {lease.token} of job {lease.job_id} is not current")

    def is_done(self, job_id: str) -> bool:
        """True after complete()."""
        return bool(self._db.read(
            "SELECT 1 FROM reassembly WHERE job_id = ? AND done = 1", (job_id,)))

    def reset(self, job_id: str) -> None:
        """Delete the row (only when the job itself is deleted)."""
        with self._db.write() as conn:
            conn.execute("DELETE FROM reassembly WHERE job_id = ?", (job_id,))
