"""video-worker settings (env prefix ``STEREO_SPOT_``), read once in the entry point."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator
from shared_types.data_plane import MAX_RECEIVES
from shared_types.settings import BackendSettings, SharedSecret, ToolSettings


class VideoWorkerSettings(ToolSettings, BackendSettings):
    """Which inference backend to call and how the worker's loops behave."""

    inference_backend: Literal["local", "http", "sagemaker"] = "local"
    inference_http_url: str | None = None
    # Sent as X-StereoSpot-Secret to an http inference server (its shared secret).
    inference_shared_secret: SharedSecret | None = None
    inference_http_timeout_s: float = Field(1800.0, gt=0)
    sagemaker_endpoint: str | None = None
    # sagemaker-runtime endpoint URL; unset: aws_endpoint_url (the deployment
    # harness points it at its SageMaker async emulator).
    sagemaker_runtime_endpoint_url: str | None = None
    inference_max_in_flight: int = Field(5, ge=1, le=64)
    inference_poll_s: float = Field(5.0, gt=0)  # async output/failure polling interval
    inference_timeout_s: float = Field(3600.0, gt=0)  # give up waiting for one async invocation
    visibility_s: float = Field(120.0, gt=0)
    janitor_interval_s: float = Field(60.0, gt=0)
    # A job whose liveness proof (updated_at) is older than this is swept. Steps that
    # refresh it (chunking, reassembly) do so every minute; an inference call does not,
    # so this must exceed the longest inference wait (checked below).
    stuck_after_s: float = Field(3900.0, gt=0)
    max_segment_attempts: int = Field(MAX_RECEIVES, ge=1)  # the queue's max receive count
    max_resends: int = Field(5, ge=0)  # re-sends of a stalled job before it fails
    upload_timeout_s: float = Field(24 * 3600.0, gt=0)  # a job with no upload after this fails
    # A job held for a preview that nobody confirms (or previews) for this long fails.
    hold_timeout_s: float = Field(7 * 24 * 3600.0, gt=0)
    # Pass the previous segment to inference as context so depth does not jump at
    # segment boundaries (STEREO_SPOT_SEAMLESS_SEGMENTS=false turns it off).
    seamless_segments: bool = True
    # Wall-clock limit of one in-process conversion: base + per frame of the segment.
    conversion_timeout_base_s: float = Field(600.0, gt=0)
    conversion_timeout_s_per_frame: float = Field(2.0, gt=0)
    # Run the local backend's engine in a child process killed at that limit
    # (video_worker.engine_child): a call stuck inside a batch cannot pin the worker.
    engine_in_child: bool = False
    # CPU cores one in-process conversion may use (decoder, encoder and render
    # threads); None: all. The local stack sets cores / workers for each worker.
    conversion_cores: int | None = Field(None, ge=1)
    # a learned depth model runs on every n-th frame, the others follow the flow
    depth_stride: int = Field(1, ge=1)

    @model_validator(mode="after")
    def _stuck_outlasts_inference(self) -> VideoWorkerSettings:
        # else the janitor re-sends a segment whose inference is still legitimately running
        longest = {"local": 0.0, "http": self.inference_http_timeout_s,
                   "sagemaker": self.inference_timeout_s}[self.inference_backend]
        if self.stuck_after_s <= longest:
            raise ValueError(f"stuck_after_s ({self.stuck_after_s:g}) must be longer than the "
                             f"{self.inference_backend} inference timeout ({longest:g})")
        return self
