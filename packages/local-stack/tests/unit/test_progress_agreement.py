"""The CLI and the web UI read a job's progress through one read model
(``shared_types.job_progress``): at every stage they show the same stage,
segments, strip, frames and percent."""

import time

import pytest
from shared_types.models import (
    Job,
    JobStatus,
    JobUpdate,
    OutputMode,
    SegmentCompletion,
    SegmentHeartbeat,
)
from shared_types.testing.memory import memory_backend
from web_ui.eta import EtaEstimator
from web_ui.progress_snapshot import snapshot as web_snapshot

from local_stack.submission import snapshot as cli_snapshot


def job_in(status: JobStatus, *, with_history: bool):
    backend = memory_backend()
    backend.jobs.create(Job(job_id="j", mode=OutputMode.SBS, source_size_bytes=10_000_000))
    if status != JobStatus.CREATED:
        backend.jobs.update("j", JobUpdate(
            status=status, total_segments=4, source_frames=480, source_width=320,
            source_height=180, started_at=time.time() - 3.0))
    if status in (JobStatus.CHUNKING_COMPLETE, JobStatus.REASSEMBLING) and with_history:
        backend.completions.put(SegmentCompletion(job_id="j", segment_index=0, output_key="o0"))
        backend.heartbeats.beat(SegmentHeartbeat(
            job_id="j", segment_index=1, worker="w", frames_done=60, frames_total=120,
            started_at=time.time() - 2.0))
    return backend


@pytest.mark.parametrize("status", [JobStatus.CREATED, JobStatus.CHUNKING_IN_PROGRESS,
                                    JobStatus.CHUNKING_COMPLETE, JobStatus.REASSEMBLING])
@pytest.mark.parametrize("with_history", [False, True])
def test_the_cli_and_the_web_ui_show_the_same_progress(status, with_history):
    backend = job_in(status, with_history=with_history)
    eta = EtaEstimator(backend)
    web = web_snapshot(backend, backend.jobs.get("j"), eta)
    cli = cli_snapshot(backend, "j", eta.machine_rates())
    assert (cli.stage, cli.segments_done, cli.segments_total, list(cli.strip)) == (
        web.stage, web.segments_done, web.segments_total, web.strip)
    assert cli.percent == pytest.approx(web.percent, abs=0.2)  # read a moment apart
    assert (cli.frames.frames_done if cli.frames else None) == web.frames_done
