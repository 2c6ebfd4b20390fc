"""The engine seam: how a process runs conversions, what one returns, the call's shape.

The engine (``stereo_inference.convert_file``) takes an ``EngineRuntime`` (the
same for every conversion a process runs, built once from its settings) and
returns a ``ConversionResult``; callers that must not import the engine (it
pulls in torch), such as video-worker's in-process backend, type against
``ConvertFile`` here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from shared_types.models import ConversionParams, OutputMode


class EngineRuntime(BaseModel):
    """Where and how this process runs the engine: the same for every file it
    converts (``InferenceSettings.engine_runtime``, ``video_worker.bootstrap``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    models_dir: Path | None = None  # depth model weights
    ffmpeg: str | None = None  # None: stereo_media.ffmpeg finds one
    device: str | None = None  # "cuda", "cpu"; None: CUDA when available
    threads: int | None = None  # torch/OpenCV CPU threads; None: from ``cores``
    cores: int | None = Field(None, ge=1)  # CPU cores a conversion may use; None: all
    iw3_low_vram: bool = False
    auto_download: bool = False  # a missing depth model is downloaded first
    hub_endpoint: str | None = None  # where from (None: the Hugging Face hub)
    depth_stride: int = Field(1, ge=1)  # a learned model runs on every n-th frame
    timeout_s: float = Field(3600.0, gt=0)  # caps a conversion's deadline


class ConversionResult(BaseModel):
    """What one conversion produced and how long it took."""

    frames: int
    duration_s: float
    width: int  # of the output
    height: int
    elapsed_s: float
    fps: float  # frames converted per second of wall time
    depth_model: str
    depth_state: dict | None = None  # pass to the next consecutive segment
    # where the time went: {stage: {"busy_s", "cpu_s"[, "starved_s", "blocked_s"]}}
    # (``stereo_inference.stage_clock``)
    stages: dict[str, dict[str, float]] = {}
    # the per-shot comfort report written beside the output (None: not asked for)
    comfort_report: Path | None = None


# Called as frames are written: (frames done, frames in the segment if known).
FrameProgress = Callable[[int, int | None], None]


class ConvertFile(Protocol):
    def __call__(
        self,
        input_path: Path,
        output_path: Path,
        *,
        mode: OutputMode | str,
        params: ConversionParams = ...,
        progress: FrameProgress | None = None,
        depth_state: dict | None = None,
        context_path: Path | None = None,
        depth_video: Path | None = None,
        runtime: EngineRuntime = ...,
    ) -> ConversionResult:
        """Convert ``input_path`` into a stereo video at ``output_path`` as
        ``runtime`` says (a missing depth model is downloaded first when it allows
        it; its ``cores`` caps the CPU cores used); ``depth_state`` is the previous
        segment's depth state (instead of a context clip); ``depth_video``
        replaces depth estimation (one frame per input frame).

        Raises a PermanentError subclass for input that can never convert and a
        TransientError subclass when a retry may succeed.
        """
