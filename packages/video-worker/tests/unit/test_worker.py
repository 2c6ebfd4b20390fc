import threading

import pytest
from shared_types.events import build_s3_event_body
from shared_types.models import JobStatus

from video_worker import testing as h
from video_worker.bootstrap import build_inference, build_worker
from video_worker.errors import ConfigurationError
from video_worker.http_backend import HttpInferenceBackend
from video_worker.local_backend import LocalInferenceBackend
from video_worker.settings import VideoWorkerSettings


def settings(**kw):
    return VideoWorkerSettings(_env_file=None, **kw)


def test_settings_read_the_stereo_spot_environment(monkeypatch):
    monkeypatch.setenv("STEREO_SPOT_INFERENCE_BACKEND", "http")
    monkeypatch.setenv("STEREO_SPOT_INFERENCE_HTTP_URL", "http://gpu:8080")
    monkeypatch.setenv("STEREO_SPOT_INFERENCE_MAX_IN_FLIGHT", "3")
    s = VideoWorkerSettings()
    assert (s.inference_backend, s.inference_http_url, s.inference_max_in_flight) == (
        "http", "http://gpu:8080", 3)


def test_seamless_segments_is_on_by_default_and_switched_off_by_the_environment(
        monkeypatch, backend):
    stop = threading.Event()
    assert settings().seamless_segments is True
    monkeypatch.setenv("STEREO_SPOT_SEAMLESS_SEGMENTS", "false")
    off = VideoWorkerSettings()
    assert off.seamless_segments is False
    http = build_inference(off.model_copy(update={"inference_backend": "http",
                                                 "inference_http_url": "http://x"}),
                           backend, stop)
    for inference in (build_inference(off, backend, stop), http):
        assert inference.seamless is False
    http.close()


def test_build_inference_picks_the_backend(backend):
    stop = threading.Event()
    assert isinstance(build_inference(settings(), backend, stop), LocalInferenceBackend)
    http = build_inference(settings(inference_backend="http", inference_http_url="http://x"),
                           backend, stop)
    assert isinstance(http, HttpInferenceBackend)
    http.close()


@pytest.mark.parametrize("kind", ["http", "sagemaker"])
def test_a_remote_backend_without_its_address_is_a_configuration_error(backend, kind):
    with pytest.raises(ConfigurationError, match="must be set"):
        build_worker(settings(inference_backend=kind), backend)


def test_remote_backends_get_one_inference_consumer_per_in_flight_slot(backend, inference):
    worker = build_worker(settings(inference_backend="http", inference_http_url="http://x",
                                   inference_max_in_flight=4), backend, inference=inference)
    assert len(worker.inference_consumers()) == 4
    assert len(build_worker(settings(), backend, inference=inference).consumers()) == 2


def test_process_once_runs_the_pipeline_in_process(backend, inference):
    worker = build_worker(settings(), backend, inference=inference)
    h.make_job(backend, total=2)
    for i in range(2):
        backend.video_queue.send(h.segment_event(backend, "job-1", i, 2))
    while worker.process_inference_once():
        pass
    # the memory backend has no S3 notifications: deliver the output events ourselves
    for key in sorted(k.key for k in backend.output_storage.list("jobs/")):
        backend.segment_output_queue.send(build_s3_event_body("output", key, size=1))
    while worker.process_segment_output_once():
        pass
    assert backend.completions.count("job-1") == 2
    assert len(backend.reassembly_queue.receive(max_messages=5)) == 1
    assert not worker.process_inference_once()


def test_run_consumes_both_queues_until_stopped(backend, inference):
    worker = build_worker(settings(janitor_interval_s=0.05, sqs_wait_s=0.05), backend,
                          inference=inference)
    h.make_job(backend, total=1)
    original = inference.convert

    def convert_and_announce(payload, output_key, params, on_progress=None):
        result = original(payload, output_key, params, on_progress)
        backend.segment_output_queue.send(build_s3_event_body("output", output_key, size=1))
        return result

    inference.convert = convert_and_announce
    backend.video_queue.send(h.segment_event(backend, "job-1", 0, 1))
    thread = threading.Thread(target=worker.run, kwargs={"install_signals": False})
    thread.start()
    try:
        messages = backend.reassembly_queue.receive(wait_s=5)
    finally:
        worker.stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive()
    assert [m.body for m in messages] == ['{"job_id":"job-1"}']
    assert backend.jobs.get("job-1").status == JobStatus.CHUNKING_COMPLETE


def test_janitor_pass_uses_the_settings(backend, inference):
    worker = build_worker(settings(stuck_after_s=10_000), backend, inference=inference)
    h.make_job(backend, status=JobStatus.CHUNKING_IN_PROGRESS, total=None)
    assert worker.janitor_pass().chunking_resent == []


def test_the_command_explains_a_configuration_error(monkeypatch, capsys, tmp_path):
    from video_worker.main import main

    monkeypatch.setenv("STEREO_SPOT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("STEREO_SPOT_INFERENCE_BACKEND", "sagemaker")
    monkeypatch.delenv("STEREO_SPOT_SAGEMAKER_ENDPOINT", raising=False)
    assert main(["janitor"]) == 2
    assert "STEREO_SPOT_SAGEMAKER_ENDPOINT must be set" in capsys.readouterr().err
