"""The one seam between the pipeline and whatever converts a segment.

Every backend (in-process engine, HTTP server, SageMaker async endpoint) takes
the parsed segment and the canonical output key, makes the converted segment
appear at that key in the output bucket, and returns what it learnt.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, Field
from shared_types.models import ConversionParams, SegmentPayload


class InferenceResult(BaseModel):
    """What one segment conversion reported (fields unknown to a backend stay None)."""

    output_key: str
    frames: int | None = None
    duration_s: float | None = None
    elapsed_s: float | None = None
    fps: float | None = None
    depth_model: str | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)


class InferenceBackend(Protocol):
    def convert(
        self, payload: SegmentPayload, output_key: str, params: ConversionParams
    ) -> InferenceResult:
        """Convert one segment so that ``output_key`` exists in the output bucket.

        Raises a PermanentError when the segment can never be converted (the job
        fails) and a TransientError when a retry may succeed.
        """
