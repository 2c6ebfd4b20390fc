"""The inference server's wire format: the ``POST /invocations`` request, the
versioned result envelope (a list of typed blocks), and the error body.

Each block names its shape (``segment_output``, ``metrics``) and carries its
own data, so a consumer routes on ``type`` and can ignore types it does not
know (see seeds/block-envelope-ingest.md). The server writes with
``result_envelope``/``error_body``; clients read with
``read_result_envelope``/``error_message``. Pydantic only: no engine imports.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from shared_types.errors import MalformedResponseError
from shared_types.models import ConversionParams, OutputMode

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1.0"
SUPPORTED_MAJOR = SCHEMA_VERSION.split(".")[0]


class ErrorCode(StrEnum):
    """``error.code`` of a failed invocation's body (and its HTTP status)."""

    INVALID_REQUEST = "invalid_request"  # 400: the request body does not validate
    INVALID_INPUT = "invalid_input"  # 400: not a video, unusable parameters
    INPUT_NOT_FOUND = "input_not_found"  # 404: the input object does not exist
    MODEL_NOT_INSTALLED = "model_not_installed"  # 422
    TRANSIENT = "transient"  # 503: retrying may succeed
    INTERNAL = "internal"  # 500: a bug or a crash; retried


# The codes a retry cannot fix: a client fails the segment on them, over HTTP
# (they are the 4xx answers) and over SageMaker async (read from the failure body).
PERMANENT_ERROR_CODES = frozenset({ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_INPUT,
                                   ErrorCode.INPUT_NOT_FOUND, ErrorCode.MODEL_NOT_INSTALLED})


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


def error_body(code: ErrorCode | str, message: str) -> dict:
    """The JSON body of a failed invocation."""
    return {"error": {"code": str(code), "message": message}}


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


def error_message(body: bytes | str, *, fallback: str) -> str:
    """The human-readable reason in an error body, or ``fallback`` (never raises)."""
    try:
        doc = _load(body)
    except MalformedResponseError:
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


def error_code(body: bytes | str) -> str:
    """The ``error.code`` of an error body, or '' when it has none (never raises)."""
    try:
        doc = _load(body)
    except MalformedResponseError:
        return ""
    err = doc.get("error") if isinstance(doc, dict) else None
    return str(err.get("code") or "") if isinstance(err, dict) else ""


def _load(body: bytes | str | dict[str, Any]) -> Any:
    if isinstance(body, dict):
        return body
    try:
        return json.loads(body)
    except (TypeError, ValueError) as exc:
        raise MalformedResponseError(f"inference response is not JSON: {exc}") from exc
