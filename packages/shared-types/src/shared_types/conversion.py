"""The engine seam: what converting one segment returns, and the call's shape.

The engine (``stereo_inference.convert_file``) returns a ``ConversionResult``;
callers that must not import the engine (it pulls in torch), such as
video-worker's in-process backend, type against ``ConvertFile`` here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel

from shared_types.models import ConversionParams, OutputMode


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
        models_dir: Path | None = None,
        ffmpeg: str | None = None,
        context_path: Path | None = None,
        auto_download: bool = False,
        hub_endpoint: str | None = None,
        cores: int | None = None,
        depth_video: Path | None = None,
    ) -> ConversionResult:
        """Convert ``input_path`` into a stereo video at ``output_path``; a missing
        depth model is downloaded first when ``auto_download`` allows it; ``cores``
        caps the CPU cores (threads) it uses (None: all); ``depth_video`` replaces
        depth estimation (one frame per input frame).

        Raises a PermanentError subclass for input that can never convert and a
        TransientError subclass when a retry may succeed.
        """
