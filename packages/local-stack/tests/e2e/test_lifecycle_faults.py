"""Lifecycle faults with real processes: each job still ends terminal and correct.

The janitor runs as its own process (``video-worker janitor``, one pass) with a
short ``stuck_after_s``, so it is the only thing that can rescue the job.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from contextlib import contextmanager
from dataclasses import replace
from functools import partial

import pytest
from shared_types.errors import TransientStoreError
from shared_types.job_failure import fail_job
from shared_types.keys import final_key, source_key
from shared_types.models import ConversionParams, Job, JobStatus, OutputMode, new_job_id
from shared_types.retry import retry_job
from starlette.testclient import TestClient

from local_stack.services import (
    service_argv,
    settings_env,
    video_worker_settings,
    worker_specs,
)
from local_stack.submission import submit_job
from local_stack.supervisor import Supervisor
from local_stack.testing.invariants import wait_until_final
from local_stack.testing.media import video_facts

PARAMS = ConversionParams(preset="ultrafast")


@contextmanager
def _started(run, specs):
    """``specs`` as processes that are NOT restarted when killed."""
    sup = Supervisor(specs, base_env=run.env, drain_timeout_s=20)
    sup.start()
    try:
        yield sup
    finally:
        sup.stop()


def _janitor_until(run, job_id: str, field: str, timeout_s: float = 90) -> None:
    """Run ``video-worker janitor`` passes (separate processes, 1 s stuck threshold)
    until one reports ``field`` for ``job_id``."""
    env = {**run.env, **settings_env(video_worker_settings(run.settings, cores=1)),
           "STEREO_SPOT_STUCK_AFTER_S": "1"}
    deadline = time.monotonic() + timeout_s
    reports = []
    while time.monotonic() < deadline:
        done = subprocess.run(service_argv("video-worker", "janitor"), env=env, check=True,
                              capture_output=True, text=True, timeout=120)
        report = json.loads(done.stdout.strip().splitlines()[-1])
        reports.append(report)
        if job_id in report[field]:
            return
    raise AssertionError(f"janitor never reported {field} for {job_id}: {reports}")


def _frames_of_final(run, job: Job, tmp_path) -> int:
    out = tmp_path / f"{job.job_id}.mp4"
    run.backend.output_storage.get_file(job.final_key or final_key(job.job_id), out)
    return video_facts(out).frames


def _reassembling_or_final(backend, job_id: str) -> JobStatus | None:
    status = backend.jobs.get(job_id).status
    return status if status == JobStatus.REASSEMBLING or status.is_final else None


def _past_chunking(backend, job_id: str) -> bool | None:
    status = backend.jobs.get(job_id).status
    return True if status not in (JobStatus.CREATED, JobStatus.CHUNKING_IN_PROGRESS) else None


def _dead_lettered(queue, job_id: str):
    """True once ``job_id``'s message is dead-lettered (a receive moves it there)."""
    if any(job_id in m.body for m in queue.dead_letters()):
        return True
    queue.receive(visibility_s=0.1)
    return None


def _wait_for(check, timeout_s: float = 120, what: str = "condition"):
    deadline = time.monotonic() + timeout_s
    while (value := check()) is None:
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)
    return value


def test_reassembler_sigkilled_on_its_last_receive_is_rescued_by_the_janitor(
    local_run, clip_4s, tmp_path
):
    local_adapters = pytest.importorskip("local_adapters")
    run = local_run(workers=1)
    b = run.backend
    # this view of the queues dead-letters a message already received once: the
    # killed reassembler's receive was the message's last
    last = local_adapters.build_backend(run.settings, max_receives=1)
    media, *video = worker_specs(run.settings)
    with _started(run, video):
        for _attempt in range(3):
            with _started(run, [media]) as reassembler:
                job = submit_job(b, clip_4s, mode=OutputMode.SBS, params=PARAMS)
                status = _wait_for(partial(_reassembling_or_final, b, job.job_id),
                                   what="reassembly")
                os.kill(reassembler.pids()["media-worker-1"], signal.SIGKILL)
            if status == JobStatus.REASSEMBLING and b.jobs.get(job.job_id).status == status:
                break
        else:
            raise AssertionError("reassembly finished too fast to kill it three times in a row")
        # once its visibility lapses the message goes to the dead-letter queue
        _wait_for(lambda: _dead_lettered(last.reassembly_queue, job.job_id),
                  what="the reassembly message in the DLQ")
        assert b.jobs.get(job.job_id).status == JobStatus.REASSEMBLING  # nobody else will
        with _started(run, [media]):
            _janitor_until(run, job.job_id, "reassembly_resent")
            done = wait_until_final(b, [job.job_id], timeout_s=120)[job.job_id]
    assert done.status == JobStatus.COMPLETED, done.error
    assert _frames_of_final(run, done, tmp_path) == video_facts(clip_4s).frames


def test_trigger_written_but_send_lost_is_resent_by_the_janitor(local_run, clip_4s, tmp_path):
    run = local_run(workers=1)
    b = run.backend
    media, *video = worker_specs(run.settings)
    with _started(run, video):
        for _attempt in range(3):
            with _started(run, [media]):  # the chunker; stopped before reassembly can start
                job = submit_job(b, clip_4s, mode=OutputMode.ANAGLYPH, params=PARAMS)
                _wait_for(partial(_past_chunking, b, job.job_id), what="chunking")
            if b.jobs.get(job.job_id).status == JobStatus.CHUNKING_COMPLETE:
                break
        else:
            raise AssertionError("reassembly started before the chunker stopped, three times")
        [sent] = _wait_for(lambda: b.reassembly_queue.receive(visibility_s=600) or None,
                           what="the reassembly message")
        # the trigger row stays but its message is gone, as if the sender died
        # between the two
        b.reassembly_queue.delete(sent)
        assert b.jobs.get(job.job_id).status == JobStatus.CHUNKING_COMPLETE
        assert b.reassembly.is_triggered(job.job_id)
        with _started(run, [media]):
            _janitor_until(run, job.job_id, "reassembly_resent")
            done = wait_until_final(b, [job.job_id], timeout_s=120)[job.job_id]
    assert done.status == JobStatus.COMPLETED, done.error
    assert _frames_of_final(run, done, tmp_path) == video_facts(clip_4s).frames


def test_a_second_video_uploaded_during_chunking_is_refused(local_run, clip_4s, clip_12s,
                                                            tmp_path):
    local_adapters = pytest.importorskip("local_adapters")
    run = local_run(workers=1, public_base_url="http://testserver")
    b = run.backend
    first, second = video_facts(clip_4s), video_facts(clip_12s)
    assert (first.frames, round(first.duration_s)) != (second.frames, round(second.duration_s))
    job = Job(job_id=new_job_id(), mode=OutputMode.SBS, params=PARAMS, title="two uploads")
    b.jobs.create(job)
    url = b.input_storage.presign_put(source_key(job.job_id),
                                      max_bytes=clip_12s.stat().st_size).url
    path = url.removeprefix("http://testserver/storage")
    with running_app(local_adapters, run) as client, _started(run, worker_specs(run.settings)):
        assert client.put(path, content=clip_4s.read_bytes()).status_code == 200
        _wait_for(lambda: True if b.jobs.get(job.job_id).status != JobStatus.CREATED else None,
                  what="chunking to start")
        refused = client.put(path, content=clip_12s.read_bytes())  # the same URL, reused
        assert refused.status_code == 409, refused.text
        done = wait_until_final(b, [job.job_id], timeout_s=120)[job.job_id]
    assert done.status == JobStatus.COMPLETED, done.error
    assert b.input_storage.get_bytes(source_key(job.job_id)) == clip_4s.read_bytes()
    assert _frames_of_final(run, done, tmp_path) == first.frames


def test_retry_with_the_queue_locked_is_picked_up_by_the_janitor(local_run, clip_4s, tmp_path):
    pytest.importorskip("local_adapters")
    from local_adapters.db import Database
    from local_adapters.queue import SqliteQueue

    run = local_run(workers=1)
    b = run.backend
    job = submit_job(b, clip_4s, mode=OutputMode.SBS, params=PARAMS)
    b.chunking_queue.purge()  # it failed before any worker saw it
    assert fail_job(b.jobs, job.job_id, code="test", message="failed for the test",
                    stage="chunking")
    # the retrying process's queue is a SQLite file another connection holds locked
    locked_path = tmp_path / "locked.sqlite3"
    cut_off = replace(b, chunking_queue=SqliteQueue(Database(locked_path, busy_timeout_s=0.2),
                                                    "chunking"))
    holder = sqlite3.connect(locked_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    with pytest.raises(TransientStoreError):
        retry_job(cut_off, b.jobs.get(job.job_id))
    holder.rollback()
    holder.close()
    assert b.jobs.get(job.job_id).status == JobStatus.CREATED  # reopened, never stranded
    assert b.chunking_queue.stats().visible == 0  # the send did not land
    with _started(run, worker_specs(run.settings)):
        _janitor_until(run, job.job_id, "chunking_resent")
        done = wait_until_final(b, [job.job_id], timeout_s=120)[job.job_id]
    assert done.status == JobStatus.COMPLETED, done.error
    assert done.epoch == job.epoch + 1
    assert _frames_of_final(run, done, tmp_path) == video_facts(clip_4s).frames


@contextmanager
def running_app(local_adapters, run):
    from local_adapters.storage_app import storage_app

    with TestClient(storage_app(run.settings, backend=run.backend)) as client:
        yield client
