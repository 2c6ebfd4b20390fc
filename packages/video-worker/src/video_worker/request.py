"""The engine's invocation request, shared by the HTTP and SageMaker backends."""

from __future__ import annotations

from typing import Any

from shared_types.models import ConversionParams, SegmentPayload
from shared_types.ports import ObjectStorage


def invocation_request(
    payload: SegmentPayload,
    output_key: str,
    params: ConversionParams,
    input_storage: ObjectStorage,
    output_storage: ObjectStorage,
) -> dict[str, Any]:
    """``{"input_uri", "output_uri", "mode", "params"}`` for one segment, with URIs
    the inference side can open (``s3://`` on AWS, ``file://`` locally)."""
    return {
        "input_uri": input_storage.uri(payload.key),
        "output_uri": output_storage.uri(output_key),
        "mode": payload.mode.value,
        "params": params.model_dump(mode="json"),
    }
