"""Read what an inference server answers: the versioned block envelope on
success, ``{"error": {"code", "message"}}`` on failure.

The envelope is ``{"schema": "1.0", "blocks": [{"type": "segment_output",
"data": {...}}, {"type": "metrics", "data": {...}}]}``; blocks of unknown types
are skipped (a newer server may add some), a missing ``segment_output`` block
or another major schema version is an error.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import ValidationError

from video_worker.errors import InferenceUnavailableError
from video_worker.inference_backend import InferenceResult

log = logging.getLogger(__name__)

SUPPORTED_MAJOR = "1"
_RESULT_FIELDS = ("frames", "duration_s", "elapsed_s", "fps", "depth_model")


def parse_result_envelope(body: bytes | str | dict[str, Any], output_key: str) -> InferenceResult:
    """The result of one conversion from a response envelope.

    Raises InferenceUnavailableError (transient) when the body is not a readable
    envelope: the output may still appear, and a retry is harmless.
    """
    doc = _load(body)
    blocks = doc.get("blocks") if isinstance(doc, dict) else None
    if not isinstance(blocks, list):
        raise InferenceUnavailableError("inference response is not a block envelope")
    schema = str(doc.get("schema", SUPPORTED_MAJOR))
    if schema.split(".")[0] != SUPPORTED_MAJOR:
        raise InferenceUnavailableError(f"inference response schema {schema} is not supported")
    segment: dict[str, Any] | None = None
    metrics: dict[str, Any] = {}
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        data = block.get("data") if isinstance(block, dict) else None
        if not isinstance(data, dict):
            raise InferenceUnavailableError("inference response has a block without data")
        if kind == "segment_output":
            segment = data
        elif kind == "metrics":
            metrics.update(data)
        else:
            log.info("skipping inference response block of unknown type %r", kind)
    if segment is None:
        raise InferenceUnavailableError("inference response has no segment_output block")
    merged = {**metrics, **segment}
    fields = {k: merged[k] for k in _RESULT_FIELDS if merged.get(k) is not None}
    try:
        return InferenceResult(output_key=output_key, metrics=metrics, **fields)
    except ValidationError as exc:
        raise InferenceUnavailableError(f"inference response is malformed: {exc}") from exc


def error_message(body: bytes | str, *, fallback: str) -> str:
    """The human-readable reason in an error body, or ``fallback`` (never raises)."""
    try:
        doc = _load(body)
    except InferenceUnavailableError:
        text = body.decode(errors="replace") if isinstance(body, bytes) else body
        return text.strip()[:500] or fallback
    err = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(err, dict) and err.get("message"):
        code = f"{err['code']}: " if err.get("code") else ""
        return f"{code}{err['message']}"[:1000]
    if isinstance(err, str) and err:
        return err[:1000]
    if isinstance(doc, dict) and isinstance(doc.get("detail"), str):
        return doc["detail"][:1000]
    return fallback


def _load(body: bytes | str | dict[str, Any]) -> Any:
    if isinstance(body, dict):
        return body
    try:
        return json.loads(body)
    except (TypeError, ValueError) as exc:
        raise InferenceUnavailableError(f"inference response is not JSON: {exc}") from exc
