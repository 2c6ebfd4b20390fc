"""The engine service's settings (env prefix ``STEREO_SPOT_``), read once in the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from shared_types.settings import SharedSecret, default_models_dir

from stereo_inference.deadline import DEFAULT_BASE_S, DEFAULT_S_PER_FRAME, DeadlinePolicy


class InferenceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="STEREO_SPOT_", extra="ignore")

    models_dir: Path = Field(default_factory=default_models_dir)  # shared with every service
    model_auto_download: bool = True
    hub_endpoint: str | None = None
    ffmpeg: str | None = None
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
    work_dir: Path | None = None  # temp files; default: the system temp folder
    # A conversion's wall-clock deadline: base + per frame of the video
    # (stereo_inference.deadline), capped at segment_timeout_s on the server.
    segment_timeout_s: float = 3600
    deadline_base_s: float = Field(DEFAULT_BASE_S, gt=0)
    deadline_s_per_frame: float = Field(DEFAULT_S_PER_FRAME, gt=0)
    # Outside SageMaker, /invocations requires this value in the SECRET_HEADER header.
    inference_shared_secret: SharedSecret | None = None

    def deadline_policy(self, *, cap_s: float | None) -> DeadlinePolicy:
        """The deadline of a conversion here (``cap_s``: at most that long)."""
        return DeadlinePolicy(base_s=self.deadline_base_s, s_per_frame=self.deadline_s_per_frame,
                              cap_s=cap_s)
