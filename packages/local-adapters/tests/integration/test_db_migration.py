"""A data folder written by an older version opens and keeps its rows."""

import sqlite3

from shared_types.models import SegmentState

from local_adapters.db import Database
from local_adapters.segments import SqliteSegmentStatusStore

OLD_SEGMENT_STATUS = """
CREATE TABLE segment_status (
    job_id TEXT NOT NULL, segment_index INTEGER NOT NULL, state TEXT NOT NULL,
    attempts INTEGER NOT NULL, last_error TEXT, updated_at REAL NOT NULL,
    PRIMARY KEY (job_id, segment_index));
INSERT INTO segment_status VALUES ('job-a', 0, 'complete', 2, NULL, 1.0);
"""


def test_old_segment_status_rows_become_run_0_and_a_new_run_starts_afresh(tmp_path):
    path = tmp_path / "state.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD_SEGMENT_STATUS)
    store = SqliteSegmentStatusStore(Database(path))

    old = store.get("job-a", 0)
    assert (old.state, old.attempts, old.run) == (SegmentState.COMPLETE, 2, 0)
    fresh = store.mark_pending("job-a", 0, run=1)
    assert (fresh.state, fresh.attempts, fresh.run) == (SegmentState.PENDING, 1, 1)
