"""Races on the real local backend: several workers (backends) on one data dir."""

import json
import subprocess
import sys
import threading

from shared_types.keys import segment_key
from shared_types.models import JobStatus, JobUpdate, OutputMode

from video_worker import testing as h


def complete(backend, job_id, index):
    h.record_outputs(h.message(h.output_event(backend, job_id, index)), backend)


def test_last_two_completions_in_two_workers_send_exactly_one_reassembly_message(
        settings, local_backend):
    from local_adapters import build_backend

    others = [build_backend(settings), build_backend(settings)]  # as two worker processes
    for round_ in range(8):
        job_id = f"race-{round_}"
        h.make_job(local_backend, job_id, total=3)
        complete(local_backend, job_id, 0)
        barrier = threading.Barrier(2)

        def finish(worker_backend, index, job_id=job_id, barrier=barrier):
            barrier.wait()
            complete(worker_backend, job_id, index)

        threads = [threading.Thread(target=finish, args=(others[i], i + 1)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        bodies = [m.body for m in local_backend.reassembly_queue.receive(max_messages=10)]
        assert bodies == [json.dumps({"job_id": job_id}, separators=(",", ":"))], round_


def test_stuck_job_race_is_repaired_by_the_janitor_command(settings, local_backend, tmp_path):
    backend = local_backend
    # media-worker uploaded every segment, then died before writing chunking_complete;
    # meanwhile every segment was converted and completed.
    h.make_job(backend, "stuck", status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    for i in range(2):
        backend.input_storage.put_bytes(segment_key("stuck", i, 2, OutputMode.SBS), b"seg")
        complete(backend, "stuck", i)
    assert backend.reassembly_queue.receive(max_messages=10) == []  # stuck for good
    env = {"STEREO_SPOT_DATA_DIR": str(settings.data_dir), "STEREO_SPOT_STUCK_AFTER_S": "0.001",
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "video_worker.main", "janitor"], env=env,
                          capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["chunking_recovered"] == ["stuck"]
    assert report["reassembly_triggered"] == ["stuck"]
    job = backend.jobs.get("stuck")
    assert (job.status, job.total_segments) == (JobStatus.CHUNKING_COMPLETE, 2)
    assert [m.body for m in backend.reassembly_queue.receive(max_messages=10)] == [
        '{"job_id":"stuck"}']


def test_a_chunking_complete_job_without_completions_is_not_triggered(settings, local_backend):
    from video_worker.janitor import run_janitor_pass

    backend = local_backend
    h.make_job(backend, "late", status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    backend.jobs.update("late", JobUpdate(status=JobStatus.CHUNKING_COMPLETE, total_segments=1))
    report = run_janitor_pass(backend, stuck_after_s=0.001, max_segment_attempts=5)
    assert report.chunking_recovered == []
    assert report.reassembly_triggered == []
