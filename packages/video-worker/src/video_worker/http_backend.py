"""Inference over HTTP: ``POST {url}/invocations`` (the SageMaker container contract).

The server reads the segment and writes the output itself; we only parse its
answer. A failure is classified by its error body's ``permanent`` (a server
that does not say: a 4xx but 408/425/429 is permanent); timeouts and
connection errors are transient.
"""

from __future__ import annotations

import logging

import httpx
from shared_types.conversion import FrameProgress
from shared_types.envelope import read_failure
from shared_types.models import ConversionParams, SegmentPayload
from shared_types.ports import ObjectStorage

from video_worker.errors import InferenceUnavailableError
from video_worker.inference_backend import (
    InferenceResult,
    remote_failure_error,
    result_from_envelope,
)
from video_worker.request import invocation_request

log = logging.getLogger(__name__)
SECRET_HEADER = "X-StereoSpot-Secret"


class HttpInferenceBackend:
    """Calls an inference server that speaks ``POST /invocations``."""

    def __init__(
        self,
        base_url: str,
        input_storage: ObjectStorage,
        output_storage: ObjectStorage,
        *,
        timeout_s: float = 1800.0,
        client: httpx.Client | None = None,
        seamless: bool = True,
        shared_secret: str | None = None,
    ) -> None:
        self._url = base_url.rstrip("/") + "/invocations"
        self._input, self._output = input_storage, output_storage
        self._timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0))
        self._client = client or httpx.Client()
        self.seamless = seamless  # send the previous segment as context_uri
        # The server's shared secret (stereo-inference serve outside SageMaker).
        self._headers = {SECRET_HEADER: shared_secret} if shared_secret else {}

    def convert(
        self, payload: SegmentPayload, output_key: str, params: ConversionParams,
        on_progress: FrameProgress | None = None,
    ) -> InferenceResult:
        """POST the segment's invocation and parse the envelope.

        Raises InferenceRejectedError (permanent, with the server's code) when
        the server says a retry cannot help, and InferenceUnavailableError
        (transient) otherwise, and on timeouts, connection errors and
        unreadable answers.
        """
        body = invocation_request(payload, output_key, params, self._input, self._output,
                                  seamless=self.seamless)
        try:
            response = self._client.post(self._url, json=body, headers=self._headers,
                                         timeout=self._timeout)
        except httpx.HTTPError as exc:
            raise InferenceUnavailableError(
                f"inference server {self._url} unreachable: {exc!r}") from exc
        status = response.status_code
        if not 200 <= status < 300:
            failure = read_failure(response.content, status=status, fallback=f"HTTP {status}")
            raise remote_failure_error(failure, f"inference server (HTTP {status})")
        result = result_from_envelope(response.content, output_key)
        log.info("job_id=%s segment_index=%d converted by %s",
                 payload.job_id, payload.segment_index, self._url)
        return result

    def close(self) -> None:
        self._client.close()
