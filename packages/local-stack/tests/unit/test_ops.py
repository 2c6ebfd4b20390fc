"""jobs / dlq operations on the in-memory backend."""

from rich.console import Console
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode
from shared_types.testing.memory import memory_backend

from local_stack import ops


def test_jobs_lists_in_progress_then_completed_then_failed():
    backend = memory_backend()
    for job_id, status in (("a", JobStatus.COMPLETED), ("b", JobStatus.FAILED),
                           ("c", JobStatus.CHUNKING_COMPLETE)):
        backend.jobs.create(Job(job_id=job_id, mode=OutputMode.SBS))
        backend.jobs.update(job_id, JobUpdate(status=status, completed_at=1.0))
    assert [j.job_id for j in ops.list_jobs(backend)] == ["c", "a", "b"]
    console = Console(record=True, width=200)
    ops.render_jobs(console, ops.list_jobs(backend))
    text = console.export_text()
    assert "chunking_complete" in text
    assert "failed" in text


def test_jobs_lists_preview_clips_under_their_parent_only():
    backend = memory_backend()
    backend.jobs.create(Job(job_id="film", mode=OutputMode.SBS, created_at=1.0,
                            status=JobStatus.AWAITING_CONFIRMATION, title="Film"))
    backend.jobs.create(Job(job_id="other", mode=OutputMode.SBS, created_at=2.0))
    for job_id, at in (("clip-2", 4.0), ("clip-1", 3.0)):
        backend.jobs.create(Job(job_id=job_id, mode=OutputMode.SBS, created_at=at,
                                parent_job_id="film", clip_start_s=1.0, clip_duration_s=10.0,
                                title=f"Film ({job_id})"))
    backend.jobs.update("clip-1", JobUpdate(status=JobStatus.COMPLETED, completed_at=5.0))
    backend.jobs.create(Job(job_id="orphan", mode=OutputMode.SBS, parent_job_id="gone",
                            clip_start_s=0.0, clip_duration_s=10.0))

    listed = [j.job_id for j in ops.list_jobs(backend)]
    assert listed.index("clip-1") == listed.index("film") + 1
    assert listed.index("clip-2") == listed.index("film") + 2
    assert sorted(listed) == ["clip-1", "clip-2", "film", "other"]  # no orphan clip
    console = Console(record=True, width=200)
    ops.render_jobs(console, ops.list_jobs(backend))
    lines = console.export_text().splitlines()
    assert any("└ preview clip-1" in line and "completed" in line for line in lines)
    assert not any("└ preview film" in line or "└ preview other" in line for line in lines)


def test_dead_letters_are_listed_per_queue_and_redriven():
    backend = memory_backend(max_receives=1)
    backend.video_queue.send("poison")
    [msg] = backend.video_queue.receive(visibility_s=30)
    backend.video_queue.dead_letter(msg, "bad")
    letters = ops.dead_letters(backend)
    assert [(m.body, m.dead_reason) for m in letters["video-worker"]] == [("poison", "bad")]
    assert letters["chunking"] == []
    assert ops.redrive_all(backend)["video-worker"] == 1
    assert ops.dead_letters(backend)["video-worker"] == []
    assert [m.body for m in backend.video_queue.receive()] == ["poison"]


def test_retry_resumes_a_failed_job_and_refuses_others():
    import pytest
    from shared_types.keys import source_key
    from shared_types.models import JobError

    from local_stack.errors import LocalStackError

    backend = memory_backend()
    backend.jobs.create(Job(job_id="f", mode=OutputMode.SBS))
    backend.input_storage.put_bytes(source_key("f"), b"video")
    backend.jobs.update("f", JobUpdate(status=JobStatus.FAILED, error=JobError(
        code="x", message="boom", stage="chunking")))
    assert ops.retry(backend, "f").status == JobStatus.CREATED
    [event] = backend.chunking_queue.receive()
    assert source_key("f") in event.body
    with pytest.raises(LocalStackError, match="cannot retry job f"):
        ops.retry(backend, "f")
    with pytest.raises(LocalStackError, match="no job with id nope"):
        ops.retry(backend, "nope")


def test_retry_refuses_a_job_that_failed_for_its_input_and_says_why():
    import pytest
    from shared_types.models import JobError

    from local_stack.errors import LocalStackError

    backend = memory_backend()
    backend.jobs.create(Job(job_id="f", mode=OutputMode.SBS))
    backend.jobs.update("f", JobUpdate(status=JobStatus.FAILED, error=JobError(
        code="invalid_media", message="not a video", stage="chunking")))
    with pytest.raises(LocalStackError, match="would fail the same way"):
        ops.retry(backend, "f")
    assert backend.jobs.get("f").status == JobStatus.FAILED
