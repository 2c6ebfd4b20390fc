"""The versioned result envelope of ``POST /invocations``: a list of typed blocks.

Each block names its shape (``segment_output``, ``metrics``) and carries its
own data, so a consumer routes on ``type`` and can ignore types it does not
know (see seeds/block-envelope-ingest.md).
"""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field
from shared_types.models import ConversionParams, OutputMode

SCHEMA_VERSION = "1.0"


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


def error_body(code: str, message: str) -> dict:
    """The JSON body of a failed invocation."""
    return {"error": {"code": code, "message": message}}
