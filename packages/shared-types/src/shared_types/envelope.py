"""The inference server's wire format: the ``POST /invocations`` request, the
versioned result envelope (a list of typed blocks), and the error body.

Each block names its shape (``segment_output``, ``metrics``) and carries its
own data, so a consumer routes on ``type`` and can ignore types it does not
know (see seeds/block-envelope-ingest.md). The server writes with
``result_envelope``/``error_body``; clients read with
``read_result_envelope``/``read_failure``. Pydantic only: no engine imports.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from shared_types.errors import MalformedResponseError
from shared_types.failure import (
    GENERIC_TRANSIENT,
    INPUT_NOT_FOUND,
    INVALID_MEDIA,
    INVALID_REQUEST,
    MODEL_UNAVAILABLE,
    RemoteFailure,
)
from shared_types.models import ConversionParams, OutputMode

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1.0"
SUPPORTED_MAJOR = SCHEMA_VERSION.split(".")[0]


class ErrorCode(StrEnum):
    """``error.code`` of a failed invocation's body (and its HTTP status). The
    codes a job can fail with are ``shared_types.failure``'s."""

    INVALID_REQUEST = INVALID_REQUEST  # 400: the request or its params cannot be done
    INVALID_MEDIA = INVALID_MEDIA  # 400: the segment is not a usable video
    INPUT_NOT_FOUND = INPUT_NOT_FOUND  # 404: the input object does not exist
    MODEL_UNAVAILABLE = MODEL_UNAVAILABLE  # 422: the depth model is missing or broken
    TRANSIENT = GENERIC_TRANSIENT  # 503: retrying may succeed
    INTERNAL = "internal"  # 500: a bug or a crash; retried


# Bodies without ``permanent`` (servers from before it) are classified by code;
# ``invalid_input`` and ``model_not_installed`` are those servers' names.
_PERMANENT_WITHOUT_FLAG = frozenset({
    ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_MEDIA, ErrorCode.INPUT_NOT_FOUND,
    ErrorCode.MODEL_UNAVAILABLE, "invalid_input", "model_not_installed"})
_OLD_NAMES = {"invalid_input": INVALID_MEDIA, "model_not_installed": MODEL_UNAVAILABLE}
# a permanent failure that names no reason: not the input's fault as far as we know
REJECTED = "inference_rejected"
# HTTP statuses of the 4xx range that a retry may get past.
RETRYABLE_4XX = frozenset({408, 425, 429})
# SageMaker async may wrap the container's answer: 'Received client error (400)
# from primary with message "{...}"'.
_WRAPPED_STATUS = re.compile(r"error \((\d{3})\)")


class InvocationRequest(BaseModel):
    """What the caller asks for (``s3_input_uri``/``s3_output_uri`` are accepted too)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    input_uri: str = Field(validation_alias=AliasChoices("input_uri", "s3_input_uri"))
    output_uri: str = Field(validation_alias=AliasChoices("output_uri", "s3_output_uri"))
    mode: OutputMode
    params: ConversionParams = Field(default_factory=ConversionParams)
    depth_state: dict | None = None  # from the previous segment's segment_output block
    # The previous segment's input: its tail seeds depth normalisation (seamless
    # segments) when no depth_state is given. Same URI rules as input_uri.
    context_uri: str | None = None
    # An imported depth video for the whole input (one frame per input frame),
    # used instead of estimating depth. Same URI rules as input_uri.
    depth_uri: str | None = None


class SegmentOutputData(BaseModel):
    output_uri: str
    mode: OutputMode
    frames: int
    duration_s: float
    width: int
    height: int
    depth_model: str
    elapsed_s: float
    fps: float
    depth_state: dict | None = None


class MetricsData(BaseModel):
    values: dict[str, float]
    dimensions: dict[str, str]


class Block(BaseModel):
    type: Literal["segment_output", "metrics"]
    schema_version: str = Field(SCHEMA_VERSION, alias="schema")
    data: dict

    model_config = ConfigDict(populate_by_name=True)


class BlockEnvelope(BaseModel):
    schema_version: str = Field(SCHEMA_VERSION, alias="schema")
    blocks: list[Block]

    model_config = ConfigDict(populate_by_name=True)


def result_envelope(output: SegmentOutputData, metrics: MetricsData) -> dict:
    """The JSON body of a successful invocation."""
    envelope = BlockEnvelope(
        blocks=[
            Block(type="segment_output", data=output.model_dump(mode="json")),
            Block(type="metrics", data=metrics.model_dump(mode="json")),
        ]
    )
    return envelope.model_dump(mode="json", by_alias=True)


def error_body(code: ErrorCode | str, message: str, *, permanent: bool) -> dict:
    """The JSON body of a failed invocation: the reason's code, its words, and
    whether a retry of the same request can succeed (``shared_types.failure``)."""
    return {"error": {"code": str(code), "message": message, "permanent": permanent}}


@dataclass(frozen=True)
class ResultBlocks:
    """The data of a result envelope's blocks: ``segment_output`` and the merged
    ``metrics`` blocks (blocks of other types are skipped)."""

    segment: dict[str, Any]
    metrics: dict[str, Any]


def read_result_envelope(body: bytes | str | dict[str, Any]) -> ResultBlocks:
    """The blocks of a successful invocation's body.

    Blocks of unknown types are skipped (a newer server may add some). Raises
    MalformedResponseError when the body is not JSON, not an envelope, of
    another major schema version, has a block without data, or has no
    ``segment_output`` block.
    """
    doc = _load(body)
    blocks = doc.get("blocks") if isinstance(doc, dict) else None
    if not isinstance(blocks, list):
        raise MalformedResponseError("inference response is not a block envelope")
    schema = str(doc.get("schema", SUPPORTED_MAJOR))
    if schema.split(".")[0] != SUPPORTED_MAJOR:
        raise MalformedResponseError(f"inference response schema {schema} is not supported")
    segment: dict[str, Any] | None = None
    metrics: dict[str, Any] = {}
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        data = block.get("data") if isinstance(block, dict) else None
        if not isinstance(data, dict):
            raise MalformedResponseError("inference response has a block without data")
        if kind == "segment_output":
            segment = data
        elif kind == "metrics":
            metrics.update(data)
        else:
            log.info("skipping inference response block of unknown type %r", kind)
    if segment is None:
        raise MalformedResponseError("inference response has no segment_output block")
    return ResultBlocks(segment=segment, metrics=metrics)


def read_failure(body: bytes | str, *, status: int | None = None,
                 fallback: str = "the inference failed") -> RemoteFailure:
    """The failure a failed invocation reports (never raises).

    ``permanent`` comes from the body's flag; a body without one (an older
    server, a proxy's page) is classified by its code, then by the HTTP
    ``status`` (a 4xx other than 408/425/429 is permanent), else transient. A
    body that SageMaker wrapped in its own text is unwrapped first.
    """
    doc = _error_doc(body)
    err = doc.get("error") if isinstance(doc, dict) else None
    err = err if isinstance(err, dict) else {}
    code = str(err.get("code") or "")
    if status is None:
        found = _WRAPPED_STATUS.search(_text(body))
        status = int(found[1]) if found else None
    flag = err.get("permanent")
    if isinstance(flag, bool):
        permanent = flag
    elif code:
        permanent = code in _PERMANENT_WITHOUT_FLAG
    else:
        permanent = status is not None and 400 <= status < 500 and status not in RETRYABLE_4XX
    message = str(err.get("message") or "") or _plain_reason(doc, body, fallback)
    code = _OLD_NAMES.get(code, code) or (REJECTED if permanent else GENERIC_TRANSIENT)
    return RemoteFailure(code=code[:64], message=message[:1000], permanent=permanent)


def _text(body: bytes | str) -> str:
    return body.decode(errors="replace") if isinstance(body, bytes) else body


def _error_doc(body: bytes | str) -> Any:
    """The JSON document of an error body, also where text wraps it; None if none."""
    try:
        return _load(body)
    except MalformedResponseError:
        pass
    text = _text(body)
    start = text.find("{")
    for candidate in (text[start:], text[start:].replace('\\"', '"')) if start >= 0 else ():
        try:
            return json.JSONDecoder().raw_decode(candidate)[0]
        except ValueError:
            continue
    return None


def _plain_reason(doc: Any, body: bytes | str, fallback: str) -> str:
    err = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(err, str) and err:
        return err
    if isinstance(doc, dict) and isinstance(doc.get("detail"), str):
        return doc["detail"]
    return _text(body).strip()[:500] or fallback


def _load(body: bytes | str | dict[str, Any]) -> Any:
    if isinstance(body, dict):
        return body
    try:
        return json.loads(body)
    except (TypeError, ValueError) as exc:
        raise MalformedResponseError(f"inference response is not JSON: {exc}") from exc
