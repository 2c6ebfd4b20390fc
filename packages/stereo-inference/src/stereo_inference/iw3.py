"""Delegate a whole segment to nagadomi/nunif's iw3 (``python -m iw3``).

iw3 is installed only in the CUDA image (see the Dockerfile); here it is found
with ``importlib`` like any module, so tests can put a fake ``iw3`` on the path.
Only iw3's video is used: it goes through the engine's own final mux
(``stereo_inference.mux``), so an iw3 output keeps every stream, chapter and tag
of the source, in the job's container, marked 3D, exactly like the engine's.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

from shared_types.conversion import ConversionResult
from shared_types.iw3_controls import iw3_control_args, iw3_refusals
from shared_types.models import (
    ComfortAction,
    Container,
    ConversionParams,
    OutputMode,
    packing_of,
)
from stereo_models.depth_models import IW3_MISSING, iw3_installed

from stereo_inference.comfort_report import path_for as comfort_path
from stereo_inference.comfort_report import write_report
from stereo_inference.errors import (
    EngineTransientError,
    InvalidRequestError,
    ModelNotInstalledError,
)
from stereo_inference.mux import mux_output
from stereo_inference.pair_comfort import measured_report
from stereo_inference.runtime import partial_path
from stereo_inference.video_info import probe_video

log = logging.getLogger(__name__)
IW3_DEPTH_MODEL = "Any_B"  # Depth-Anything base, downloaded into the image at build time
_MODE_FLAGS = {
    OutputMode.SBS: [],
    OutputMode.HALF_SBS: ["--half-sbs"],
    OutputMode.TB: ["--tb"],
    OutputMode.HALF_TB: ["--half-tb"],
    OutputMode.VR180: ["--vr180"],
    OutputMode.RGBD: ["--rgbd"],
    OutputMode.HALF_RGBD: ["--half-rgbd"],
}
_IW3_CODECS = {"x264": "libx264", "x265": "libx265", "av1": "libsvtav1"}


def iw3_command(
    input_path: Path, output_path: Path, *, mode: OutputMode, params: ConversionParams,
    low_vram: bool = False,
) -> list[str]:
    """The argv that asks iw3 for exactly this conversion."""
    args = [
        sys.executable, "-m", "iw3", "-i", str(input_path), "-o", str(output_path), "--yes",
        "--depth-model", IW3_DEPTH_MODEL,
        "--divergence", f"{params.divergence:g}", "--convergence", f"{params.convergence:g}",
        "--video-codec", _IW3_CODECS[params.codec.value], "--crf", str(params.crf),
        "--preset", params.preset, *iw3_control_args(params),
    ]
    if params.cross_eyed:
        args.append("--cross-eyed")
    if mode is OutputMode.ANAGLYPH:
        args += ["--anaglyph", params.anaglyph_method.value]
    else:
        args += _MODE_FLAGS[mode]
    if low_vram:
        args.append("--low-vram")
    return args


def _run_iw3(args: list[str], video: Path, timeout_s: float) -> None:
    log.info("running iw3: %s", " ".join(args[1:]))
    try:
        done = subprocess.run(args, capture_output=True, timeout=timeout_s, env=dict(os.environ))
    except subprocess.TimeoutExpired as exc:
        raise EngineTransientError(f"iw3 did not finish within {timeout_s:.0f}s") from exc
    if done.returncode != 0 or not video.is_file() or video.stat().st_size == 0:
        tail = done.stderr.decode(errors="replace")[-500:]
        raise EngineTransientError(f"iw3 failed (exit {done.returncode}): {tail}")


def convert_with_iw3(
    input_path: Path, output_path: Path, *, mode: OutputMode, params: ConversionParams,
    started: float, ffmpeg: str, container: Container, low_vram: bool = False,
    timeout_s: float = 3600,
) -> ConversionResult:
    """Run iw3 on the segment, mux its video with the other streams of the input
    into ``output_path`` (atomically), return a ConversionResult.

    Raises InvalidRequestError when ``params`` ask for a control iw3 lacks
    (``shared_types.iw3_controls``), ModelNotInstalledError when iw3 is not
    installed, EngineTransientError when it or the mux fails or it produces no
    output. The comfort report is measured from iw3's pair (``pair_comfort``):
    none for the layouts it does not measure, or with ``comfort`` off.
    """
    refused = iw3_refusals(params)
    if refused:
        raise InvalidRequestError("; ".join(refused))
    if not iw3_installed():
        raise ModelNotInstalledError(IW3_MISSING)
    partial = partial_path(Path(output_path))
    report = None
    video = partial.with_name(partial.stem + ".iw3.mp4")
    try:
        _run_iw3(iw3_command(input_path, video, mode=mode, params=params, low_vram=low_vram),
                 video, timeout_s)
        if params.comfort is not ComfortAction.OFF:  # measured from iw3's own pair
            report = measured_report(video, mode, params)
        mux_output(ffmpeg, video, input_path, partial, container=container,
                   packing=packing_of(mode), timeout_s=timeout_s, source_timestamps=False)
        if report is not None:  # written first: whoever sees the video finds its report
            write_report(report, comfort_path(Path(output_path)))
        os.replace(partial, output_path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        video.unlink(missing_ok=True)
    info = probe_video(Path(output_path))
    elapsed = time.perf_counter() - started
    frames = info.frames or round(info.duration_s * info.fps)
    return ConversionResult(
        frames=frames, duration_s=info.duration_s, width=info.width, height=info.height,
        elapsed_s=elapsed, fps=frames / elapsed if elapsed > 0 else 0.0,
        depth_model="iw3", depth_state=None,
        comfort_report=comfort_path(Path(output_path)) if report is not None else None,
    )
