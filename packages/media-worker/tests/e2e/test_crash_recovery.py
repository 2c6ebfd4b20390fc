"""The real ``media-worker`` process on the local backend: SIGKILL during chunking and
during reassembly, restart, and the job completes exactly once. SIGTERM drains."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from shared_types import keys
from shared_types.models import JobStatus
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.media import make_video

pytest.importorskip("local_adapters", reason="the crash tests run on local_adapters")

VISIBILITY_S, LEASE_S = 3, 1.5


def worker_command() -> list[str]:
    script = Path(sys.executable).parent / "media-worker"
    return [str(script)] if script.exists() else [sys.executable, "-m", "media_worker.main"]


class Workers:
    """Starts media-worker processes whose ffmpeg blocks while ``hold`` exists."""

    def __init__(self, tmp: Path, settings):
        self.tmp, self.logs, self.procs = tmp, [], []
        self.hold, self.started = tmp / "hold", tmp / "ffmpeg-started"
        wrapper = tmp / "ffmpeg"
        wrapper.write_text(
            "#!/bin/sh\n"
            f"touch '{self.started}'\n"
            f"while [ -e '{self.hold}' ]; do sleep 0.1; done\n"
            f"exec '{ffmpeg_path()}' \"$@\"\n")
        wrapper.chmod(0o755)
        self.env = {**os.environ,
                    "STEREO_SPOT_BACKEND": "local",
                    "STEREO_SPOT_DATA_DIR": str(settings.data_dir),
                    "STEREO_SPOT_WORK_DIR": str(tmp / "work"),
                    "STEREO_SPOT_FFMPEG": str(wrapper),
                    "STEREO_SPOT_SEGMENT_SECONDS": "2",
                    "STEREO_SPOT_VISIBILITY_S": str(VISIBILITY_S),
                    "STEREO_SPOT_LEASE_S": str(LEASE_S),
                    "STEREO_SPOT_BACKOFF_BASE_S": "0.2",
                    "STEREO_SPOT_SQS_WAIT_S": "0.5"}

    def start(self) -> subprocess.Popen:
        log = self.tmp / f"worker-{len(self.logs)}.log"
        self.logs.append(log)
        with log.open("wb") as out:
            proc = subprocess.Popen(worker_command(), env=self.env, stdout=out, stderr=out,
                                    start_new_session=True)
        self.procs.append(proc)
        return proc

    def kill_hard(self, proc: subprocess.Popen) -> None:
        os.killpg(proc.pid, signal.SIGKILL)  # the worker and its ffmpeg, like a lost host
        proc.wait(timeout=10)

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)

    def log_text(self) -> str:
        return "".join(p.read_text(errors="replace") for p in self.logs)


def wait_for(predicate, what: str, workers: Workers, timeout_s: float = 45.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}; worker logs:\n{workers.log_text()[-4000:]}")


@pytest.fixture
def workers(tmp_path, settings):
    ws = Workers(tmp_path, settings)
    yield ws
    ws.stop_all()


def status_of(backend, job_id):
    return backend.jobs.get(job_id).status


def test_sigkill_in_chunking_and_in_reassembly_still_completes_exactly_once(
        local_backend, new_job, upload, convert_segments, workers, tmp_path):
    source = make_video(tmp_path / "source.mp4", seconds=5)
    job = new_job(local_backend)
    workers.hold.touch()
    first = workers.start()
    upload(local_backend, job.job_id, source)

    wait_for(lambda: workers.started.exists(), "ffmpeg to start chunking", workers)
    assert status_of(local_backend, job.job_id) == JobStatus.CHUNKING_IN_PROGRESS
    workers.kill_hard(first)
    workers.hold.unlink()
    workers.started.unlink()

    second = workers.start()
    wait_for(lambda: status_of(local_backend, job.job_id) == JobStatus.CHUNKING_COMPLETE,
             "chunking to complete after the crash", workers)
    workers.hold.touch()
    workers.started.unlink()
    assert convert_segments(local_backend) == local_backend.jobs.get(job.job_id).total_segments

    wait_for(lambda: workers.started.exists(), "ffmpeg to start reassembly", workers)
    assert status_of(local_backend, job.job_id) == JobStatus.REASSEMBLING
    workers.kill_hard(second)
    workers.hold.unlink()

    workers.start()
    done = wait_for(lambda: (j := local_backend.jobs.get(job.job_id)).status.is_final and j,
                    "the job to complete", workers)
    assert done.status == JobStatus.COMPLETED, done.error
    logs = workers.log_text()
    assert logs.count(f"job_id={job.job_id} final written") == 1
    assert logs.count(f"job_id={job.job_id} completed") == 1
    # the run killed mid-chunking never completes; exactly one later run does
    assert len(re.findall(rf"job_id={job.job_id} chunking run \d+ complete", logs)) == 1
    final = tmp_path / "final.mp4"
    local_backend.output_storage.get_file(keys.final_key(job.job_id), final)
    import av

    with av.open(str(final)) as c:
        assert sum(1 for p in c.demux(c.streams.video[0]) if p.size) == 5 * 24
    assert local_backend.chunking_queue.stats().dead_letters == 0
    assert local_backend.reassembly_queue.stats().dead_letters == 0


def test_sigterm_drains_and_exits_zero(workers):
    proc = workers.start()
    wait_for(lambda: "consumer started" in workers.log_text(), "the worker to start", workers)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert "drained and stopped" in workers.log_text()
