"""A segment that fails the same way every time fails its job at once, with the
reason, on every inference backend: in-process, over HTTP against the real
engine server, and over SageMaker async (the same server's error body read
from the failure location). A transient failure keeps its retries."""

import json
import socket
from pathlib import Path

import pytest
from shared_types.consumer import ConsumerConfig
from shared_types.keys import segment_key
from shared_types.models import JobStatus, OutputMode, SegmentState
from shared_types.testing.serving import serve_in_thread
from stereo_media.testing.media import make_video

from video_worker import testing as h
from video_worker.bootstrap import build_worker
from video_worker.errors import InferenceRejectedError, InferenceUnavailableError
from video_worker.sagemaker_backend import classify_failure
from video_worker.settings import VideoWorkerSettings

MODEL = "depth-anything-v2-small"
MAX_ATTEMPTS = 5


def not_a_video(backend, key, tmp_path):
    backend.input_storage.put_bytes(key, b"this is text, not a video")


def a_video(backend, key, tmp_path):
    clip = make_video(tmp_path / "clip.mp4", seconds=0.5, size=(64, 48), fps=12)
    backend.input_storage.put_file(key, clip)


def break_model(models: Path) -> None:
    """An installed model whose weights file is damaged (a cut-short copy)."""
    folder = models / MODEL
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "depth_anything"}))
    (folder / "model.safetensors").write_bytes(b"\xff" * 64)


# (what is wrong, how the segment is made, the job's depth model, a broken model?, code)
CASES = [
    ("segment is not a video", not_a_video, "heuristic", False, "invalid_media"),
    ("model files are broken", a_video, MODEL, True, "model_unavailable"),
    ("model is not installed", a_video, MODEL, False, "model_unavailable"),
]


def worker_settings(tmp_path, **overrides) -> VideoWorkerSettings:
    return VideoWorkerSettings(_env_file=None, data_dir=tmp_path / "data",
                               work_dir=tmp_path / "work", models_dir=tmp_path / "models",
                               model_auto_download=False, sqs_wait_s=0.1, visibility_s=30,
                               **overrides)


def attempt_until_settled(worker) -> int:
    """Receive the segment's message until it is settled (acked or dead-lettered),
    as often as the queue redelivers it; returns how many attempts ran."""
    consumer = worker.inference_consumers()[0]
    consumer.config = ConsumerConfig(wait_s=0, visibility_s=30, backoff_base_s=0,
                                     backoff_max_s=0, max_attempts=MAX_ATTEMPTS)
    attempts = 0
    while attempts < MAX_ATTEMPTS + 1 and consumer.process_once(wait_s=0.2):
        attempts += 1
    return attempts


def assert_failed_at_once(backend, code: str, attempts: int) -> None:
    job = backend.jobs.get("job-p")
    assert attempts == 1
    assert job.status == JobStatus.FAILED
    assert (job.error.code, job.error.stage) == (code, "inference")
    assert job.error.message.startswith("Segment 1 of 1 could not be converted: ")
    status = backend.segment_status.get("job-p", 0)
    assert (status.state, status.attempts) == (SegmentState.FAILED, 1)
    stats = backend.video_queue.stats()
    assert (stats.visible, stats.in_flight, stats.dead_letters) == (0, 0, 0)  # acknowledged


def prepare(tmp_path, settings, make_segment, depth_model, broken):
    local_adapters = pytest.importorskip("local_adapters", reason="local-adapters not installed")
    backend = local_adapters.build_backend(settings)
    if broken:
        break_model(settings.models_dir)
    h.make_job(backend, "job-p", total=1, depth_model=depth_model)
    make_segment(backend, segment_key("job-p", 0, 1, OutputMode.HALF_SBS), tmp_path)
    return backend


@pytest.mark.parametrize(("what", "make_segment", "depth_model", "broken", "code"), CASES,
                         ids=[c[0] for c in CASES])
def test_the_in_process_engine_fails_the_job_at_once(tmp_path, what, make_segment, depth_model,
                                                     broken, code):
    settings = worker_settings(tmp_path)
    backend = prepare(tmp_path, settings, make_segment, depth_model, broken)
    attempts = attempt_until_settled(build_worker(settings, backend))
    assert_failed_at_once(backend, code, attempts)


@pytest.fixture
def engine_server(tmp_path):
    from stereo_inference.server import create_app
    from stereo_inference.settings import InferenceSettings

    (tmp_path / "srv").mkdir()
    app = create_app(InferenceSettings(
        _env_file=None, file_root=(tmp_path / "data").resolve(), work_dir=tmp_path / "srv",
        models_dir=tmp_path / "models", model_auto_download=False))
    with serve_in_thread(app) as url:
        yield url


@pytest.mark.parametrize(("what", "make_segment", "depth_model", "broken", "code"), CASES,
                         ids=[c[0] for c in CASES])
def test_the_engine_server_fails_the_job_at_once_over_http(tmp_path, engine_server, what,
                                                           make_segment, depth_model, broken,
                                                           code):
    settings = worker_settings(tmp_path, inference_backend="http",
                               inference_http_url=engine_server)
    backend = prepare(tmp_path, settings, make_segment, depth_model, broken)
    worker = build_worker(settings, backend)
    attempts = attempt_until_settled(worker)
    worker.inference.close()
    assert_failed_at_once(backend, code, attempts)


@pytest.mark.parametrize(("what", "make_segment", "depth_model", "broken", "code"), CASES,
                         ids=[c[0] for c in CASES])
def test_the_engine_servers_failure_body_is_permanent_over_sagemaker_async(
        tmp_path, engine_server, what, make_segment, depth_model, broken, code):
    import httpx

    settings = worker_settings(tmp_path)
    backend = prepare(tmp_path, settings, make_segment, depth_model, broken)
    key = segment_key("job-p", 0, 1, OutputMode.HALF_SBS)
    answer = httpx.post(f"{engine_server}/invocations", timeout=60, json={
        "input_uri": backend.input_storage.uri(key),
        "output_uri": backend.output_storage.uri("jobs/job-p/segments/0.mp4"),
        "mode": "half-sbs", "params": {"depth_model": depth_model}})
    # SageMaker stores the container's answer at the failure location, maybe in its words
    for body in (answer.content, b"Received client error (%d) from primary with message "
                 b'"%s"' % (answer.status_code, answer.content)):
        error = classify_failure(body)
        assert isinstance(error, InferenceRejectedError), (what, body)
        assert error.code == code


def test_a_transient_failure_keeps_its_retries(tmp_path):
    with socket.socket() as s:  # an inference server that is down (a killed worker)
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    settings = worker_settings(tmp_path, inference_backend="http", inference_http_url=dead)
    backend = prepare(tmp_path, settings, a_video, "heuristic", False)
    worker = build_worker(settings, backend)
    attempts = attempt_until_settled(worker)
    worker.inference.close()
    job = backend.jobs.get("job-p")
    assert attempts == MAX_ATTEMPTS
    assert (job.status, job.error.code) == (JobStatus.FAILED, "retries_exhausted")
    assert backend.video_queue.stats().dead_letters == 1
    assert isinstance(classify_failure(b'{"error": {"code": "transient", "message": "x", '
                                       b'"permanent": false}}'), InferenceUnavailableError)
