from shared_types.job_progress import read_progress
from shared_types.keys import source_key
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode, SegmentCompletion
from shared_types.progress import STAGE_LABELS, UPLOADED_LABEL
from shared_types.testing.memory import memory_backend


def created():
    backend = memory_backend()
    backend.jobs.create(Job(job_id="j", mode=OutputMode.SBS))
    return backend


def test_a_job_waiting_for_its_upload_reads_zero_and_then_uploaded():
    backend = created()
    before = read_progress(backend, backend.jobs.get("j"), now=0.0)
    assert (before.stage, before.percent, before.eta_seconds) == (
        STAGE_LABELS[JobStatus.CREATED], 0.0, None)
    backend.input_storage.put_bytes(source_key("j"), b"video")
    assert read_progress(backend, backend.jobs.get("j"), now=0.0).stage == UPLOADED_LABEL


def test_the_fallback_estimate_is_asked_with_the_size_and_the_fraction_done():
    backend = created()
    backend.jobs.update("j", JobUpdate(status=JobStatus.CHUNKING_COMPLETE, total_segments=4,
                                       source_size_bytes=1000))
    backend.completions.put(SegmentCompletion(job_id="j", segment_index=0, output_key="o"))
    asked = []

    def fallback(size, fraction, completions, total):
        asked.append((size, fraction, len(completions), total))
        return 42.0

    read = read_progress(backend, backend.jobs.get("j"), now=0.0, fallback_eta=fallback)
    assert asked == [(1000, 0.262, 1, 4)]  # 26.2 %: splitting 5, segments 85
    assert (read.eta_seconds, read.percent, read.segments_done, read.strip) == (
        42.0, 26.2, 1, ("done", "pending", "pending", "pending"))
    assert read_progress(backend, backend.jobs.get("j"), now=0.0).eta_seconds is None
