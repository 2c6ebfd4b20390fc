"""The same lifecycle state machine with the SQLite ports (jobs, completions,
segment status, reassembly lock, queues) of the local backend under it."""

import dataclasses
from pathlib import Path

import pytest
from shared_types.models import JobStatus

from local_stack.testing.lifecycle_machine import (
    LOST_REASSEMBLY_TRIGGER,
    PipelineWithEnding,
    property_test,
    replay,
)
from local_stack.testing.pipeline_stand_ins import Clock, FlakyQueue, clocked_backend

local_adapters = pytest.importorskip("local_adapters")


class SqlitePipeline(PipelineWithEnding):
    def make_backend(self, clock: Clock):
        from local_adapters.db import Database
        from local_adapters.jobs import SqliteJobStore
        from local_adapters.queue import SqliteQueue
        from local_adapters.reassembly import SqliteReassemblyLock
        from local_adapters.segments import (
            SqliteSegmentCompletionStore,
            SqliteSegmentStatusStore,
        )

        db = Database(Path(self.tmp.name) / "state.sqlite3")

        def queue(name):
            return FlakyQueue(SqliteQueue(db, name, max_receives=5, clock=clock))

        return dataclasses.replace(
            clocked_backend(clock), jobs=SqliteJobStore(db),
            completions=SqliteSegmentCompletionStore(db),
            segment_status=SqliteSegmentStatusStore(db),
            reassembly=SqliteReassemblyLock(db, clock=clock),
            chunking_queue=queue("chunking"), video_queue=queue("video-worker"),
            segment_output_queue=queue("segment-output"), reassembly_queue=queue("reassembly"))


test_every_job_ends_on_sqlite_under_an_adversary = property_test(
    SqlitePipeline, examples=10, steps=25)


def test_a_trigger_whose_send_is_lost_still_ends_completed_on_sqlite():
    jobs = replay(*LOST_REASSEMBLY_TRIGGER, machine_class=SqlitePipeline)
    assert jobs["job-0"].status == JobStatus.COMPLETED
