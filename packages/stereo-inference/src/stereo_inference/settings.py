"""The engine service's settings (env prefix ``STEREO_SPOT_``), read once in the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict
from shared_types.settings import default_models_dir


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
    segment_timeout_s: float = 3600
    # Outside SageMaker, /invocations requires this value in the SECRET_HEADER header.
    inference_shared_secret: SecretStr | None = None
