"""Inference on a SageMaker async endpoint: upload the request JSON, call
``InvokeEndpointAsync``, then poll the invocation's own output and failure
locations in S3 until one appears.

Up to ``max_in_flight`` invocations run at once; each is tied to the message
whose handler started it (the consumer's heartbeat keeps that message
invisible meanwhile) and its slot is released only when that invocation
succeeds, fails or is given up on. The AWS calls are behind two small ports
(:class:`AsyncEndpoint`, :data:`FetchLocation`) that aws-adapters implements
(``aws_adapters.sagemaker_async``); ``video_worker.bootstrap`` wires them.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Protocol

from shared_types.conversion import FrameProgress
from shared_types.envelope import read_failure
from shared_types.errors import PermanentError, StereoSpotError, TransientError
from shared_types.models import ConversionParams, SegmentPayload
from shared_types.ports import ObjectStorage

from video_worker.errors import InferenceRejectedError, InferenceUnavailableError
from video_worker.inference_backend import (
    InferenceResult,
    remote_failure_error,
    result_from_envelope,
)
from video_worker.request import invocation_request

log = logging.getLogger(__name__)

# The bytes at a location the endpoint answers in; None while it does not exist.
# Raises a StereoSpotError when the location cannot be read.
FetchLocation = Callable[[str], bytes | None]
REQUESTS_PREFIX = "sagemaker-requests"


class AsyncEndpoint(Protocol):
    name: str

    def invoke(self, input_uri: str, inference_id: str, timeout_s: int) -> tuple[str, str, str]:
        """Start one async invocation of the request JSON at ``input_uri``; its
        (inference id, output location, failure location or ""). Raises a
        TransientError when it may succeed later, another StereoSpotError when refused."""


class SageMakerInferenceBackend:
    """Async SageMaker inference with a bounded number of invocations in flight."""

    def __init__(
        self,
        endpoint: AsyncEndpoint,
        input_storage: ObjectStorage,
        output_storage: ObjectStorage,
        *,
        fetch_location: FetchLocation,
        max_in_flight: int = 5,
        poll_s: float = 5.0,
        timeout_s: float = 3600.0,
        stop: threading.Event | None = None,
        clock: Callable[[], float] = time.monotonic,
        seamless: bool = True,
    ) -> None:
        self._endpoint = endpoint
        self._input, self._output = input_storage, output_storage
        self._fetch_location = fetch_location
        self._slots = threading.BoundedSemaphore(max_in_flight)
        self._poll_s, self._timeout_s = poll_s, timeout_s
        self._stop = stop or threading.Event()
        self._clock = clock
        self.seamless = seamless  # send the previous segment as context_uri
        self._in_flight = 0
        self._count_lock = threading.Lock()
        self.max_seen_in_flight = 0

    @property
    def in_flight(self) -> int:
        """Invocations started and not yet settled."""
        return self._in_flight

    def convert(
        self, payload: SegmentPayload, output_key: str, params: ConversionParams,
        on_progress: FrameProgress | None = None,
    ) -> InferenceResult:
        """Invoke the endpoint for one segment and wait for its own answer.

        Raises InferenceRejectedError when the invocation failed for good and
        InferenceUnavailableError when it failed transiently, timed out, or the
        worker is draining (the message is then redelivered).
        """
        body = invocation_request(payload, output_key, params, self._input, self._output,
                                  seamless=self.seamless)
        request_key = f"{REQUESTS_PREFIX}/{payload.job_id}/{payload.segment_index}.json"
        self._input.put_bytes(request_key, json.dumps(body).encode(),
                              content_type="application/json")
        with self._slots:
            self._enter()
            try:
                output_uri, failure_uri = self._invoke(payload, request_key)
                return self._await(payload, output_key, output_uri, failure_uri)
            finally:
                self._leave()

    def _invoke(self, payload: SegmentPayload, request_key: str) -> tuple[str, str]:
        inference_id = f"{payload.job_id}-{payload.segment_index}-{uuid.uuid4().hex[:8]}"
        try:
            inference_id, output_uri, failure_uri = self._endpoint.invoke(
                self._input.uri(request_key), inference_id[:64], int(min(3600, self._timeout_s)))
        except TransientError as exc:
            raise InferenceUnavailableError(f"SageMaker unavailable: {exc}") from exc
        except StereoSpotError as exc:
            raise InferenceRejectedError(f"SageMaker refused the invocation: {exc}") from exc
        log.info("job_id=%s segment_index=%d invoked %s async (inference_id=%s)",
                 payload.job_id, payload.segment_index, self._endpoint.name, inference_id)
        return output_uri, failure_uri

    def _fetch(self, uri: str) -> bytes | None:
        try:
            return self._fetch_location(uri)
        except PermanentError as exc:
            raise InferenceRejectedError(f"cannot read {uri}: {exc}") from exc
        except StereoSpotError as exc:
            raise InferenceUnavailableError(f"cannot read {uri}: {exc}") from exc

    def _await(self, payload: SegmentPayload, output_key: str, output_uri: str,
               failure_uri: str) -> InferenceResult:
        deadline = self._clock() + self._timeout_s
        while True:
            answer = self._fetch(output_uri)
            if answer is not None:
                return result_from_envelope(answer, output_key)
            failure = self._fetch(failure_uri) if failure_uri else None
            if failure is not None:
                raise classify_failure(failure)
            if self._clock() >= deadline:
                raise InferenceUnavailableError(
                    f"no answer from SageMaker within {self._timeout_s:.0f}s "
                    f"for job {payload.job_id} segment {payload.segment_index}")
            if self._stop.wait(self._poll_s):
                raise InferenceUnavailableError(
                    "worker draining; the invocation goes on and the message will be redelivered")

    def _enter(self) -> None:
        with self._count_lock:
            self._in_flight += 1
            self.max_seen_in_flight = max(self.max_seen_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._count_lock:
            self._in_flight -= 1


def classify_failure(body: bytes) -> Exception:
    """The error for an async failure body, as the engine classified it (its
    error body's ``permanent``; ``shared_types.envelope.read_failure``): the
    job fails at once for a bad segment or a missing model, and the message is
    redelivered for a crash, a timeout or a lack of capacity."""
    failure = read_failure(body, fallback="SageMaker async invocation failed")
    return remote_failure_error(failure, "SageMaker async invocation")
