from shared_types.models import JobStatus, JobUpdate, SegmentCompletion

from web_ui.eta import MB, EtaEstimator, learn_seconds_per_mb, pace_from_completions

from .conftest import add_job


def completion(index, at):
    return SegmentCompletion(job_id="j", segment_index=index, output_key="k", completed_at=at)


def finished(backend, *, seconds, megabytes):
    job = add_job(backend, source_size_bytes=int(megabytes * MB))
    changes = JobUpdate(status=JobStatus.COMPLETED, completed_at=job.created_at + seconds)
    return backend.jobs.update(job.job_id, changes)


def test_learns_seconds_per_mb_from_completed_jobs(backend):
    finished(backend, seconds=30, megabytes=10)
    finished(backend, seconds=90, megabytes=10)
    add_job(backend, status=JobStatus.COMPLETED, completed_at=5.0)  # size unknown: ignored
    assert learn_seconds_per_mb(backend.jobs) == 6.0


def test_nothing_to_learn_without_completed_jobs(backend):
    assert learn_seconds_per_mb(backend.jobs) is None
    assert EtaEstimator(backend).estimate_total(5 * MB) is None


def test_a_configured_rate_wins_over_history(backend):
    finished(backend, seconds=30, megabytes=10)
    assert EtaEstimator(backend, seconds_per_mb=1.5).estimate_total(4 * MB) == 6.0
    assert EtaEstimator(backend).estimate_total(4 * MB) == 12.0


def test_learned_rate_is_cached_until_it_expires(backend):
    t = [0.0]
    eta = EtaEstimator(backend, cache_s=60, clock=lambda: t[0])
    assert eta.seconds_per_mb() is None
    finished(backend, seconds=20, megabytes=10)
    assert eta.seconds_per_mb() is None
    t[0] = 61.0
    assert eta.seconds_per_mb() == 2.0


def test_pace_needs_two_completions():
    assert pace_from_completions([completion(0, 5.0)]) is None
    assert pace_from_completions([completion(1, 30.0), completion(0, 10.0),
                                  completion(2, 50.0)]) == 20.0


def test_remaining_prefers_the_jobs_own_pace(backend):
    eta = EtaEstimator(backend, seconds_per_mb=100.0)
    done = [completion(0, 0.0), completion(1, 4.0)]
    assert eta.remaining(size_bytes=MB, fraction_done=0.5, completions=done,
                         total_segments=5) == 12.0


def test_remaining_falls_back_to_size_times_rate(backend):
    eta = EtaEstimator(backend, seconds_per_mb=2.0)
    assert eta.remaining(size_bytes=10 * MB, fraction_done=0.25, completions=[],
                         total_segments=None) == 15.0
    assert eta.remaining(size_bytes=None, fraction_done=0.25, completions=[],
                         total_segments=None) is None


def test_the_cost_model_separates_a_fixed_start_up_cost_from_the_rate(backend):
    from web_ui.eta import learn_cost_model

    finished(backend, seconds=20, megabytes=1)
    finished(backend, seconds=40, megabytes=5)
    finished(backend, seconds=60, megabytes=9)
    fixed, rate = learn_cost_model(backend.jobs)
    assert (round(fixed, 6), round(rate, 6)) == (15.0, 5.0)
    assert EtaEstimator(backend).estimate_total(20 * MB) == 115.0


def test_one_size_only_falls_back_to_the_mean_rate(backend):
    from web_ui.eta import learn_cost_model

    finished(backend, seconds=30, megabytes=10)
    finished(backend, seconds=50, megabytes=10)
    assert learn_cost_model(backend.jobs) == (0.0, 4.0)
