"""What must hold after any run, faults or not (backend-neutral checks)."""

from __future__ import annotations

import time

from shared_types.keys import final_key
from shared_types.models import Job, JobStatus, ObjectInfo, SegmentState
from shared_types.ports import QUEUE_NAMES, Backend
from shared_types.runs import run_completions, run_statuses


def wait_until_final(backend: Backend, job_ids: list[str], timeout_s: float) -> dict[str, Job]:
    """Poll until every job is completed or failed; returns them (AssertionError on timeout)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = {job_id: backend.jobs.get(job_id) for job_id in job_ids}
        jobs = {job_id: job for job_id, job in found.items() if job is not None}
        if len(jobs) == len(found) and all(j.status.is_final for j in jobs.values()):
            return jobs
        if time.monotonic() > deadline:
            states = {k: (v.status.value if v else None) for k, v in jobs.items()}
            raise AssertionError(f"jobs not final after {timeout_s:.0f}s: {states}")
        time.sleep(0.1)


def final_object(backend: Backend, job_id: str) -> ObjectInfo | None:
    """Metadata of a job's final video (its last_modified/etag reveal a rewrite)."""
    return backend.output_storage.head(final_key(job_id))


def job_problems(backend: Backend, job: Job) -> list[str]:
    """Everything wrong with one job that claims to be finished."""
    problems = []
    if not job.status.is_final:
        problems.append(f"job {job.job_id} is still {job.status.value}")
        return problems
    if job.status == JobStatus.COMPLETED:
        if final_object(backend, job.job_id) is None:
            problems.append(f"completed job {job.job_id} has no final video")
        done = len(run_completions(backend, job))
        if done != job.total_segments:
            problems.append(f"job {job.job_id}: {done} completions of {job.total_segments}")
        not_complete = [s.segment_index for s in run_statuses(backend, job)
                        if s.state != SegmentState.COMPLETE]
        if not_complete:
            problems.append(f"job {job.job_id}: segments {not_complete} not complete")
        if not backend.reassembly.is_done(job.job_id):
            problems.append(f"job {job.job_id}: reassembly not marked done")
    elif job.error is None or not job.error.message:
        problems.append(f"failed job {job.job_id} has no reason")
    return problems


def wait_for_quiet_queues(backend: Backend, timeout_s: float) -> dict[str, tuple[int, int]]:
    """Wait until no queue has visible or in-flight messages; returns what is left
    (queue -> (visible, in_flight)), empty when everything settled."""
    deadline = time.monotonic() + timeout_s
    while True:
        busy = {}
        for name in QUEUE_NAMES:
            stats = backend.queue(name).stats()
            if stats.visible or stats.in_flight:
                busy[name] = (stats.visible, stats.in_flight)
        if not busy or time.monotonic() > deadline:
            return busy
        time.sleep(0.2)
