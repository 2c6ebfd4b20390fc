"""The engine service's settings (env prefix ``STEREO_SPOT_``), read once in the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field
from shared_types.conversion import EngineRuntime
from shared_types.settings import ModelSettings, SharedSecret, ToolSettings

from stereo_inference.deadline import DEFAULT_BASE_S, DEFAULT_S_PER_FRAME, DeadlinePolicy


class InferenceSettings(ToolSettings, ModelSettings):
    """The models group (shared with every service), ffmpeg and work folder, and
    how the engine and its server run."""

    device: str | None = None  # "cuda", "cpu"; default: CUDA when available
    threads: int | None = None  # torch CPU threads; default: half the cores
    # a learned depth model runs on every n-th frame, the others follow the flow
    depth_stride: int = Field(1, ge=1)
    # file:// URIs may only name files under this folder (None: file:// refused).
    file_root: Path | None = None
    aws_region: str | None = None
    aws_endpoint_url: str | None = None
    metrics: Literal["log", "cloudwatch"] = "log"
    metrics_namespace: str = "StereoSpot/Conversion"
    cloud: str = "aws"  # the Cloud dimension of the conversion metrics
    iw3_low_vram: bool = Field(
        False, validation_alias=AliasChoices("STEREO_SPOT_IW3_LOW_VRAM", "IW3_LOW_VRAM")
    )
    # A conversion's wall-clock deadline: base + per frame of the video
    # (stereo_inference.deadline), capped at segment_timeout_s on the server.
    segment_timeout_s: float = 3600
    deadline_base_s: float = Field(DEFAULT_BASE_S, gt=0)
    deadline_s_per_frame: float = Field(DEFAULT_S_PER_FRAME, gt=0)
    # Outside SageMaker, /invocations requires this value in the SECRET_HEADER header.
    inference_shared_secret: SharedSecret | None = None

    def engine_runtime(self, **chosen: Any) -> EngineRuntime:
        """How the engine runs here (``chosen`` overrides a value, e.g. a
        command-line option). Raises pydantic.ValidationError for a bad one."""
        return EngineRuntime(
            models_dir=self.models_dir, ffmpeg=self.ffmpeg, device=self.device,
            threads=self.threads, iw3_low_vram=self.iw3_low_vram,
            auto_download=self.model_auto_download, hub_endpoint=self.hub_endpoint,
            depth_stride=self.depth_stride, timeout_s=self.segment_timeout_s,
        ).model_copy(update=chosen)

    def deadline_policy(self, *, cap_s: float | None) -> DeadlinePolicy:
        """The deadline of a conversion here (``cap_s``: at most that long)."""
        return DeadlinePolicy(base_s=self.deadline_base_s, s_per_frame=self.deadline_s_per_frame,
                              cap_s=cap_s)
