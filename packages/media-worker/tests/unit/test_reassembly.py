"""Reassembly handler on in-memory fakes, with a fake ffmpeg that joins bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_types import keys
from shared_types.errors import LeaseLostError, MalformedMessageError
from shared_types.models import (
    JobStatus,
    JobUpdate,
    Message,
    OutputMode,
    ReassemblyMessage,
    SegmentCompletion,
)
from shared_types.testing.memory import MemoryReassemblyLock
from stereo_media.probe_limits import ProbeLimits

from media_worker.deps import MediaDeps
from media_worker.errors import FinalMissingError, ReassemblyBusyError, SegmentsMissingError
from media_worker.reassembly import handle_reassembly, parse_reassembly_message


class JoiningRunner:
    """Stands in for ffmpeg: the output (last argument) is the inputs' bytes joined;
    the final mux (not a concat) copies its first input."""

    def __init__(self, during=None):
        self.calls = 0
        self.during = during

    def run(self, args, *, on_tick=None, what="ffmpeg"):
        self.calls += 1
        first = Path(args[args.index("-i") + 1])
        if "concat" not in args:
            Path(args[-1]).write_bytes(first.read_bytes())
            return
        list_file = first
        parts = [line.split("'")[1] for line in list_file.read_text().splitlines()[1:]]
        if self.during:
            self.during()
        Path(args[-1]).write_bytes(b"".join(Path(p).read_bytes() for p in parts))


def deps_for(backend, runner, tmp_path, lease_s=30.0):
    return MediaDeps(backend=backend, runner=runner, limits=ProbeLimits(10**9, 3600, 8000, 8000),
                     work_dir=tmp_path, segment_seconds=2, lease_s=lease_s)


def message(job_id: str) -> str:
    """What the consumer hands handle_reassembly once it decoded the message."""
    return parse_reassembly_message(Message(
        message_id="m1", body=ReassemblyMessage(job_id=job_id).model_dump_json(), receipt="r1"))


def chunked_job(backend, new_job, total=3, completed=None):
    # anaglyph: a byte-joining fake makes no real MP4 to mark as 3D (integration tests do)
    job = new_job(backend, OutputMode.ANAGLYPH)
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                              total_segments=total))
    for i in range(total) if completed is None else completed:
        key = keys.output_segment_key(job.job_id, i)
        backend.output_storage.put_bytes(key, f"<seg{i}>".encode())
        backend.completions.put(SegmentCompletion(job_id=job.job_id, segment_index=i,
                                                  output_key=key))
    return job.job_id


def test_all_segments_are_joined_in_order_and_the_job_completed(mem_backend, new_job, tmp_path):
    job_id = chunked_job(mem_backend, new_job)
    runner = JoiningRunner()

    assert handle_reassembly(message(job_id), deps_for(mem_backend, runner, tmp_path)) is True

    final = mem_backend.output_storage.get_bytes(keys.final_key(job_id))
    assert final == b"<seg0><seg1><seg2>"
    assert runner.calls == 1  # joined and muxed in one pass: no intermediate copy
    job = mem_backend.jobs.get(job_id)
    assert job.status == JobStatus.COMPLETED
    assert job.final_key == keys.final_key(job_id)
    assert job.completed_at is not None
    assert mem_backend.reassembly.is_done(job_id)


def test_missing_segments_are_retried_later_and_nothing_is_written(
        mem_backend, new_job, tmp_path):
    job_id = chunked_job(mem_backend, new_job, total=3, completed=[0, 2])

    with pytest.raises(SegmentsMissingError, match="1 of 3"):
        handle_reassembly(message(job_id), deps_for(mem_backend, JoiningRunner(), tmp_path))

    assert mem_backend.jobs.get(job_id).status == JobStatus.CHUNKING_COMPLETE
    assert not mem_backend.output_storage.exists(keys.final_key(job_id))


def test_a_lease_held_by_another_worker_means_retry_later(mem_backend, new_job, tmp_path):
    job_id = chunked_job(mem_backend, new_job)
    mem_backend.reassembly.take_lease(job_id, "other-host:1:1", 60)
    runner = JoiningRunner()

    with pytest.raises(ReassemblyBusyError):
        handle_reassembly(message(job_id), deps_for(mem_backend, runner, tmp_path))
    assert runner.calls == 0


def test_when_final_exists_and_the_lock_is_done_only_the_status_is_fixed(
        mem_backend, new_job, tmp_path):
    job_id = chunked_job(mem_backend, new_job)
    lease = mem_backend.reassembly.take_lease(job_id, "crashed:1:1", 60)
    mem_backend.output_storage.put_bytes(keys.final_key(job_id), b"final")
    mem_backend.reassembly.complete(lease)
    runner = JoiningRunner()

    assert handle_reassembly(message(job_id), deps_for(mem_backend, runner, tmp_path)) is True
    assert runner.calls == 0
    assert mem_backend.jobs.get(job_id).status == JobStatus.COMPLETED
    assert mem_backend.output_storage.get_bytes(keys.final_key(job_id)) == b"final"


def test_done_lock_without_final_is_a_permanent_failure(mem_backend, new_job, tmp_path):
    job_id = chunked_job(mem_backend, new_job)
    mem_backend.reassembly.complete(mem_backend.reassembly.take_lease(job_id, "x:1:1", 60))

    with pytest.raises(FinalMissingError, match="missing"):
        handle_reassembly(message(job_id), deps_for(mem_backend, JoiningRunner(), tmp_path))


def test_a_worker_that_lost_its_lease_neither_writes_nor_completes(
        mem_backend, new_job, tmp_path):
    clock = [1000.0]
    mem_backend = mem_backend.__class__(**{**mem_backend.__dict__,
                                           "reassembly": MemoryReassemblyLock(lambda: clock[0])})
    job_id = chunked_job(mem_backend, new_job)

    def lease_expires_and_is_retaken():
        clock[0] += 120
        mem_backend.reassembly.take_lease(job_id, "new-holder:2:2", 60)

    runner = JoiningRunner(during=lease_expires_and_is_retaken)
    with pytest.raises(LeaseLostError):
        handle_reassembly(message(job_id), deps_for(mem_backend, runner, tmp_path, lease_s=30))

    assert not mem_backend.output_storage.exists(keys.final_key(job_id))
    assert mem_backend.jobs.get(job_id).status == JobStatus.REASSEMBLING
    assert not mem_backend.reassembly.is_done(job_id)


@pytest.mark.parametrize("status", [JobStatus.COMPLETED, JobStatus.FAILED])
def test_a_job_that_already_ended_is_left_alone(mem_backend, new_job, tmp_path, status):
    job_id = chunked_job(mem_backend, new_job)
    mem_backend.jobs.update(job_id, JobUpdate(status=status))
    runner = JoiningRunner()

    assert handle_reassembly(message(job_id), deps_for(mem_backend, runner, tmp_path)) is False
    assert runner.calls == 0
    assert mem_backend.jobs.get(job_id).status == status


@pytest.mark.parametrize("body", ["not json", "{}", '{"job_id": "../etc"}'])
def test_a_malformed_reassembly_message_is_rejected(mem_backend, tmp_path, body):
    with pytest.raises(MalformedMessageError):
        parse_reassembly_message(Message(message_id="m", body=body, receipt="r"))


def test_a_stale_message_for_a_job_not_yet_chunked_is_dropped(mem_backend, new_job, tmp_path):
    job = new_job(mem_backend)
    runner = JoiningRunner()
    assert handle_reassembly(message(job.job_id), deps_for(mem_backend, runner, tmp_path)) \
        is False
    assert runner.calls == 0
    assert mem_backend.jobs.get(job.job_id).status == JobStatus.CREATED


def _segment_report(start: float, opens_at_cut) -> bytes:
    import json

    return json.dumps({"version": 1, "shots": [
        {"start_s": start, "end_s": start + 2, "frames": 48, "opens_at_cut": opens_at_cut,
         "near_px": start, "far_px": 1.0, "outside_zone_s": 0.0, "edge_violation_s": 0.0}]}
    ).encode()


def test_the_segments_comfort_reports_are_merged_beside_the_final(mem_backend, new_job,
                                                                   tmp_path):
    import json

    from shared_types.comfort_reports import comfort_key

    job_id = chunked_job(mem_backend, new_job)
    for i, cut in enumerate([None, None, True]):  # segment 1 continues segment 0's shot
        mem_backend.output_storage.put_bytes(
            comfort_key(keys.output_segment_key(job_id, i)), _segment_report(2.0 * i, cut))
    assert handle_reassembly(message(job_id), deps_for(mem_backend, JoiningRunner(), tmp_path))
    report = json.loads(mem_backend.output_storage.get_bytes(
        comfort_key(keys.final_key(job_id))))
    assert [(s["start_s"], s["end_s"]) for s in report["shots"]] == [(0.0, 4.0), (4.0, 6.0)]
    assert report["shots"][0]["near_px"] == 2.0


def test_a_segment_without_a_report_leaves_the_final_without_one(mem_backend, new_job,
                                                                 tmp_path):
    from shared_types.comfort_reports import comfort_key

    job_id = chunked_job(mem_backend, new_job)
    mem_backend.output_storage.put_bytes(comfort_key(keys.output_segment_key(job_id, 0)),
                                         _segment_report(0.0, None))
    assert handle_reassembly(message(job_id), deps_for(mem_backend, JoiningRunner(), tmp_path))
    assert not mem_backend.output_storage.exists(comfort_key(keys.final_key(job_id)))
