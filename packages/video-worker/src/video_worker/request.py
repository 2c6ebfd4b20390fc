"""What a segment's conversion is asked for: the engine's invocation request
(HTTP and SageMaker backends) and the context segment every backend passes on."""

from __future__ import annotations

from typing import Any

from shared_types.keys import depth_video_key, segment_key
from shared_types.models import ConversionParams, DepthModel, SegmentPayload
from shared_types.ports import ObjectStorage


def context_key(
    payload: SegmentPayload, params: ConversionParams, *, seamless: bool = True
) -> str | None:
    """Input key of the segment before ``payload``, whose tail the engine warms
    its depth normalisation on so the seam does not jump; None for the first
    segment, when ``seamless`` is off, and for iw3 (which keeps no depth state)."""
    if not seamless or payload.segment_index == 0 or params.depth_model is DepthModel.IW3:
        return None
    return segment_key(payload.job_id, payload.segment_index - 1, payload.total_segments,
                       payload.mode, payload.run)


def invocation_request(
    payload: SegmentPayload,
    output_key: str,
    params: ConversionParams,
    input_storage: ObjectStorage,
    output_storage: ObjectStorage,
    *,
    seamless: bool = True,
) -> dict[str, Any]:
    """``{"input_uri", "output_uri", "mode", "params", "context_uri"?}`` for one
    segment, with URIs the inference side can open (``s3://`` on AWS,
    ``file://`` locally). ``context_uri`` is the previous segment's input (see
    ``context_key``); the engine treats a missing one as no context."""
    body: dict[str, Any] = {
        "input_uri": input_storage.uri(payload.key),
        "output_uri": output_storage.uri(output_key),
        "mode": payload.mode.value,
        "params": params.model_dump(mode="json"),
    }
    depth = depth_video_key(payload.job_id)
    if payload.total_segments == 1 and input_storage.exists(depth):
        body["depth_uri"] = input_storage.uri(depth)  # imported depth: one segment
        return body
    previous = context_key(payload, params, seamless=seamless)
    if previous is not None:
        body["context_uri"] = input_storage.uri(previous)
    return body
