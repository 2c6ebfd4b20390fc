import json
import threading
import time

import boto3
import pytest
from aws_adapters.sagemaker_async import SageMakerAsyncEndpoint
from botocore.stub import ANY, Stubber
from shared_types.keys import parse_segment_key, segment_key
from shared_types.models import ConversionParams, OutputMode
from shared_types.testing.memory import MemoryStorage

from video_worker.errors import InferenceRejectedError, InferenceUnavailableError
from video_worker.sagemaker_backend import SageMakerInferenceBackend, classify_failure

OK = json.dumps({"schema": "1.0", "blocks": [{"type": "segment_output",
                                              "data": {"frames": 24}}]}).encode()


def payload(index=0, total=5):
    return parse_segment_key("input", segment_key("job-1", index, total, OutputMode.SBS))


def out_key(index=0):
    return f"jobs/job-1/segments/{index}.mp4"


class FakeRuntime:
    """A sagemaker-runtime double for concurrency tests (Stubber is sequential)."""

    def __init__(self):
        self.calls = []
        self.lock = threading.Lock()

    def invoke_endpoint_async(self, **kwargs):
        with self.lock:
            self.calls.append(kwargs)
        segment = kwargs["InputLocation"].rsplit("/", 1)[1].split(".")[0]
        return {"InferenceId": kwargs["InferenceId"],
                "OutputLocation": f"s3://async/out/{segment}.out",
                "FailureLocation": f"s3://async/fail/{segment}.out"}


def make(runtime, locations, **kw):
    storage = MemoryStorage("input")
    backend = SageMakerInferenceBackend(
        SageMakerAsyncEndpoint("stereo-endpoint", runtime), storage, MemoryStorage("output"),
        fetch_location=locations.get, poll_s=0.005, **kw)
    return backend, storage


@pytest.fixture
def stubbed():
    client = boto3.client("sagemaker-runtime", region_name="us-east-1",
                          aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(client) as stub:
        yield client, stub


def test_uploads_the_request_and_invokes_the_endpoint_async(stubbed):
    client, stub = stubbed
    locations = {"s3://async/ok.out": OK}
    stub.add_response("invoke_endpoint_async",
                      {"InferenceId": "i", "OutputLocation": "s3://async/ok.out",
                       "FailureLocation": "s3://async/fail.out"},
                      {"EndpointName": "stereo-endpoint",
                       "InputLocation": "memory://input/sagemaker-requests/job-1/3.json",
                       "ContentType": "application/json",
                       "InferenceId": ANY, "InvocationTimeoutSeconds": 3600})
    backend, storage = make(client, locations)
    result = backend.convert(payload(3), out_key(3), ConversionParams(convergence=0.2))
    assert result.frames == 24
    assert result.output_key == out_key(3)
    request = json.loads(storage.get_bytes("sagemaker-requests/job-1/3.json"))
    assert request["output_uri"] == f"memory://output/{out_key(3)}"
    assert request["mode"] == "sbs"
    assert request["params"]["convergence"] == 0.2
    stub.assert_no_pending_responses()
    assert backend.in_flight == 0


@pytest.mark.parametrize("code,status,error", [
    ("ValidationError", 400, InferenceRejectedError),
    ("ThrottlingException", 400, InferenceUnavailableError),
    ("ServiceUnavailable", 503, InferenceUnavailableError),
])
def test_invoke_errors_are_classified(stubbed, code, status, error):
    client, stub = stubbed
    stub.add_client_error("invoke_endpoint_async", service_error_code=code,
                          http_status_code=status)
    backend, _ = make(client, {})
    with pytest.raises(error):
        backend.convert(payload(), out_key(), ConversionParams())
    assert backend.in_flight == 0


def test_an_async_failure_naming_bad_input_is_permanent_with_its_code():
    body = json.dumps({"error": {"code": "invalid_media", "message": "no video",
                                 "permanent": True}}).encode()
    backend, _ = make(FakeRuntime(), {"s3://async/fail/0.out": body})
    with pytest.raises(InferenceRejectedError, match="no video") as caught:
        backend.convert(payload(0), out_key(0), ConversionParams())
    assert caught.value.code == "invalid_media"


def test_other_async_failures_are_transient():
    assert isinstance(classify_failure(b"ModelError: CUDA out of memory"),
                      InferenceUnavailableError)
    body = json.dumps({"error": {"code": "engine_transient", "message": "oom"}}).encode()
    assert isinstance(classify_failure(body), InferenceUnavailableError)


def test_gives_up_waiting_after_the_timeout():
    backend, _ = make(FakeRuntime(), {}, timeout_s=0.05)
    with pytest.raises(InferenceUnavailableError, match="no answer"):
        backend.convert(payload(), out_key(), ConversionParams())
    assert backend.in_flight == 0


def test_draining_stops_waiting_and_leaves_the_message_for_redelivery():
    stop = threading.Event()
    stop.set()
    backend, _ = make(FakeRuntime(), {}, stop=stop)
    with pytest.raises(InferenceUnavailableError, match="draining"):
        backend.convert(payload(), out_key(), ConversionParams())


def wait_for(condition, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.005)


def test_in_flight_is_bounded_and_each_slot_freed_only_by_its_own_answer():
    runtime, locations = FakeRuntime(), {}
    backend, _ = make(runtime, locations, max_in_flight=2)
    outcomes = {}

    def run(i):
        try:
            outcomes[i] = backend.convert(payload(i), out_key(i), ConversionParams())
        except Exception as exc:
            outcomes[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    wait_for(lambda: len(runtime.calls) == 2)
    time.sleep(0.05)
    assert len(runtime.calls) == 2 and backend.in_flight == 2  # the third waits for a slot
    first, second = [c["InputLocation"].rsplit("/", 1)[1][0] for c in runtime.calls]
    # The second invocation fails: only its own caller sees it, and its slot is freed.
    locations[f"s3://async/fail/{second}.out"] = b"ModelError: overloaded"
    wait_for(lambda: int(second) in outcomes)
    assert isinstance(outcomes[int(second)], InferenceUnavailableError)
    assert int(first) not in outcomes
    wait_for(lambda: len(runtime.calls) == 3)
    third = runtime.calls[2]["InputLocation"].rsplit("/", 1)[1][0]
    locations[f"s3://async/out/{third}.out"] = OK
    locations[f"s3://async/out/{first}.out"] = OK
    for t in threads:
        t.join(timeout=60)
    assert outcomes[int(first)].output_key == out_key(int(first))
    assert outcomes[int(third)].output_key == out_key(int(third))
    assert backend.max_seen_in_flight == 2
    assert backend.in_flight == 0


@pytest.mark.parametrize(("seamless", "index", "previous"), [(True, 3, 2), (True, 0, None),
                                                              (False, 3, None)])
def test_the_uploaded_request_names_the_previous_segment_as_context(seamless, index, previous):
    locations = {f"s3://async/out/{index}.out": OK}
    backend, storage = make(FakeRuntime(), locations, seamless=seamless)
    backend.convert(payload(index), out_key(index), ConversionParams())
    request = json.loads(storage.get_bytes(f"sagemaker-requests/job-1/{index}.json"))
    expected = (None if previous is None
                else f"memory://input/{segment_key('job-1', previous, 5, OutputMode.SBS)}")
    assert request.get("context_uri") == expected
