"""The one settings class of the media worker (env prefix ``STEREO_SPOT_``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from pydantic import Field, model_validator
from shared_types.data_plane import MAX_RECEIVES
from shared_types.settings import BackendSettings, ToolSettings
from stereo_media.probe_limits import DEFAULT_LIMITS


class MediaWorkerSettings(ToolSettings, BackendSettings):
    """Read once in ``media_worker.main``; everything below it gets plain values.
    The probe limits default to ``stereo_media.probe_limits`` (the engine's too)."""

    segment_seconds: float = Field(300.0, gt=0)
    # video-workers converting one job side by side: segments are published as
    # that many contiguous runs, interleaved (media_worker.segment_order)
    segment_lanes: int = Field(1, ge=1)
    max_source_bytes: int = Field(DEFAULT_LIMITS.max_bytes, gt=0)
    max_duration_s: float = Field(DEFAULT_LIMITS.max_duration_s, gt=0)
    max_width: int = Field(DEFAULT_LIMITS.max_width, gt=0)
    max_height: int = Field(DEFAULT_LIMITS.max_height, gt=0)
    probe_timeout_s: float = Field(DEFAULT_LIMITS.timeout_s, gt=0)
    max_fps: float = Field(DEFAULT_LIMITS.max_fps, gt=0)
    max_frames: int = Field(DEFAULT_LIMITS.max_frames, gt=0)
    max_pixel_frames: int = Field(DEFAULT_LIMITS.max_pixel_frames, gt=0)
    ffmpeg_timeout_s: float = Field(3600.0, gt=0)
    # A preview's strip and clip read an S3 source through a presigned URL
    # (Range requests, no download). False downloads it instead: for moto with
    # IAM enforcement, which cannot authorise presigned requests.
    source_urls: bool = True
    visibility_s: float = Field(120.0, gt=0)
    lease_s: float = Field(120.0, gt=0)
    # a transient failure on this attempt fails the job (data_plane.json's limit)
    max_attempts: int = Field(MAX_RECEIVES, ge=1)
    backoff_base_s: float = Field(2.0, gt=0)

    @property
    def work_folder(self) -> Path:
        """Where chunking and reassembly work: ``work_dir``, else a folder in the
        system's temp folder."""
        return self.work_folder_or(Path(tempfile.gettempdir()) / "stereo-spot-media")

    @model_validator(mode="after")
    def _lease_fits_visibility(self) -> MediaWorkerSettings:
        # a crashed holder's message must come back only once its lease can be retaken
        if self.lease_s > self.visibility_s:
            raise ValueError("lease_s must not be longer than visibility_s")
        return self
