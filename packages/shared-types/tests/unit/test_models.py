"""Model validation: bounded conversion params, statuses, errors, job updates."""

import subprocess
import sys

import pytest
from pydantic import ValidationError

from shared_types.job_updates import SIMPLE_FIELDS, apply_job_update, job_sort_time
from shared_types.models import (
    ConversionParams,
    Job,
    JobError,
    JobStatus,
    JobUpdate,
    OutputMode,
    ReassemblyMessage,
    SegmentCompletion,
)


def test_conversion_params_have_sane_defaults():
    params = ConversionParams()
    assert 0 <= params.divergence <= 10
    assert 0 <= params.convergence <= 1
    assert params.preset == "veryfast"


@pytest.mark.parametrize("changes", [
    {"divergence": -1}, {"divergence": 11}, {"convergence": 1.5}, {"crf": 52},
    {"preset": "placebo"}, {"depth_model": "midas"}, {"anaglyph_method": "purple"},
    {"unknown": 1},
])
def test_conversion_params_reject_out_of_range_or_unknown_values(changes):
    with pytest.raises(ValidationError):
        ConversionParams(**changes)


def test_job_rejects_an_unknown_mode_and_status():
    with pytest.raises(ValidationError):
        Job(job_id="j", mode="3d-glasses")
    with pytest.raises(ValidationError):
        Job(job_id="j", mode="sbs", status="paused")


def test_job_round_trips_through_json():
    job = Job(job_id="j", mode=OutputMode.TB, title="t", total_segments=3,
              error=JobError(code="c", message="m", stage="chunking"))
    assert Job.model_validate_json(job.model_dump_json()) == job


def test_only_completed_failed_and_cancelled_are_final():
    assert {s for s in JobStatus if s.is_final} == {JobStatus.COMPLETED, JobStatus.FAILED,
                                                   JobStatus.CANCELLED}


def test_job_error_limits_its_message_length():
    with pytest.raises(ValidationError):
        JobError(code="c", message="x" * 2001, stage="s")


def test_apply_job_update_changes_only_given_fields():
    job = Job(job_id="j", mode="sbs", title="keep", created_at=1.0, updated_at=1.0)
    new = apply_job_update(job, JobUpdate(status=JobStatus.CHUNKING_COMPLETE, total_segments=4))
    assert (new.status, new.total_segments, new.title) == (
        JobStatus.CHUNKING_COMPLETE, 4, "keep")
    assert new.updated_at > 1.0
    assert job.status == JobStatus.CREATED


def test_every_job_update_field_reaches_the_job():
    # a field missing from SIMPLE_FIELDS was silently dropped by every JobStore
    special = {"error", "clear_error"}
    assert set(JobUpdate.model_fields) - special == set(SIMPLE_FIELDS)
    assert set(SIMPLE_FIELDS) <= set(Job.model_fields)


def test_apply_job_update_sets_and_clears_errors():
    job = Job(job_id="j", mode="sbs")
    failed = apply_job_update(job, JobUpdate(
        status=JobStatus.FAILED, error=JobError(code="c", message="m", stage="s")))
    assert failed.error.message == "m"
    assert apply_job_update(failed, JobUpdate(clear_error=True)).error is None


def test_sort_time_uses_completed_at_only_for_completed_jobs():
    done = Job(job_id="j", mode="sbs", created_at=1.0, completed_at=5.0,
               status=JobStatus.COMPLETED)
    failed = done.model_copy(update={"status": JobStatus.FAILED})
    assert (job_sort_time(done), job_sort_time(failed)) == (5.0, 1.0)


def test_reassembly_message_ignores_extra_fields_but_needs_a_job_id():
    assert ReassemblyMessage.model_validate({"job_id": "j", "x": 1}).job_id == "j"
    with pytest.raises(ValidationError):
        ReassemblyMessage.model_validate({})


def test_segment_completion_needs_an_integer_index():
    with pytest.raises(ValidationError):
        SegmentCompletion(job_id="j", segment_index="first", output_key="k")


_BUILT_AFTER_IMPORT = """
from shared_types import models
contracts = [m for m in vars(models).values() if isinstance(m, type)
             and issubclass(m, models.Contract) and m is not models.Contract]
models.ConversionParams(crf=20)
print(len(contracts), sorted(m.__name__ for m in contracts if m.__pydantic_complete__))
"""


def test_a_process_builds_only_the_contracts_it_uses():
    # Building a validator costs ~5 ms a model at import; the engine's CLI uses one.
    done = subprocess.run([sys.executable, "-c", _BUILT_AFTER_IMPORT], check=True,
                          capture_output=True, text=True)
    count, built = done.stdout.strip().split(" ", 1)
    assert int(count) >= 15
    assert built == "['ConversionParams']"


_FIRST_USE_IN_THREADS = """
import threading
from shared_types.models import Job, JobStatus
start, jobs = threading.Barrier(16), []
def make(i):
    start.wait()  # every thread's first use at once: one builds, the others wait for it
    jobs.append(Job.model_validate({"job_id": f"j{i}", "mode": "anaglyph", "status": "failed"}))
threads = [threading.Thread(target=make, args=(i,)) for i in range(16)]
for t in threads: t.start()
for t in threads: t.join()
assert len(jobs) == 16 and all(j.status is JobStatus.FAILED for j in jobs), jobs
print(sorted(j.job_id for j in jobs) == sorted(f"j{i}" for i in range(16)))
"""


def test_a_contract_first_used_by_many_threads_at_once_validates_in_each():
    done = subprocess.run([sys.executable, "-c", _FIRST_USE_IN_THREADS], check=True,
                          capture_output=True, text=True)
    assert done.stdout.strip() == "True"


def test_every_mode_has_its_layout_tag_and_vr180_says_side_by_side():
    from shared_types.models import LAYOUT_TAGS, OutputMode, packing_of, stereo_packing

    assert set(LAYOUT_TAGS) == set(OutputMode)
    assert packing_of(OutputMode.VR180) == "sbs"
    assert packing_of(OutputMode.RGBD) is None and packing_of(OutputMode.HALF_RGBD) is None
    assert stereo_packing(OutputMode.SBS) == "sbs"
    assert stereo_packing(OutputMode.SBS, cross_eyed=True) is None  # the eyes are swapped


def test_encoding_params_are_bounded():
    import pytest
    from pydantic import ValidationError

    from shared_types.models import ConversionParams

    for bad in ({"codec": "vp9"}, {"bitrate_kbps": 10}, {"max_fps": 0}, {"pix_fmt": "rgb24"}):
        with pytest.raises(ValidationError):
            ConversionParams(**bad)
    assert ConversionParams(codec="av1", max_fps=30).codec.value == "av1"
