"""video-worker settings (env prefix ``STEREO_SPOT_``), read once in the entry point."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from shared_types.settings import BackendSettings


class VideoWorkerSettings(BackendSettings):
    """Which inference backend to call and how the worker's loops behave."""

    inference_backend: Literal["local", "http", "sagemaker"] = "local"
    inference_http_url: str | None = None
    inference_http_timeout_s: float = Field(1800.0, gt=0)
    sagemaker_endpoint: str | None = None
    inference_max_in_flight: int = Field(5, ge=1, le=64)
    inference_poll_s: float = Field(5.0, gt=0)  # async output/failure polling interval
    inference_timeout_s: float = Field(3600.0, gt=0)  # give up waiting for one async invocation
    models_dir: Path | None = None
    ffmpeg: str | None = None
    work_dir: Path | None = None  # temp files of the local backend; system temp if unset
    visibility_s: float = Field(120.0, gt=0)
    janitor_interval_s: float = Field(60.0, gt=0)
    stuck_after_s: float = Field(1800.0, gt=0)
    max_segment_attempts: int = Field(5, ge=1)  # match the queue's max receive count
    # Pass the previous segment to inference as context so depth does not jump at
    # segment boundaries (STEREO_SPOT_SEAMLESS_SEGMENTS=false turns it off).
    seamless_segments: bool = True
