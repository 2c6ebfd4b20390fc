"""Delegate a whole segment to nagadomi/nunif's iw3 (``python -m iw3``).

iw3 is installed only in the CUDA image (see the Dockerfile); here it is found
with ``importlib`` like any module, so tests can put a fake ``iw3`` on the path.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

from shared_types.conversion import ConversionResult
from shared_types.models import ConversionParams, OutputMode

from stereo_inference.errors import EngineTransientError, ModelNotInstalledError
from stereo_inference.runtime import partial_path
from stereo_inference.video_info import probe_video

log = logging.getLogger(__name__)
IW3_DEPTH_MODEL = "Any_B"  # Depth-Anything base, downloaded into the image at build time
_MODE_FLAGS = {
    OutputMode.SBS: [],
    OutputMode.HALF_SBS: ["--half-sbs"],
    OutputMode.TB: ["--tb"],
    OutputMode.HALF_TB: ["--half-tb"],
}


def is_available() -> bool:
    """True when the ``iw3`` package can be imported by this interpreter."""
    return importlib.util.find_spec("iw3") is not None


def iw3_command(
    input_path: Path, output_path: Path, *, mode: OutputMode, params: ConversionParams,
    low_vram: bool = False,
) -> list[str]:
    """The argv that asks iw3 for exactly this conversion."""
    args = [
        sys.executable, "-m", "iw3", "-i", str(input_path), "-o", str(output_path), "--yes",
        "--depth-model", IW3_DEPTH_MODEL,
        "--divergence", f"{params.divergence:g}", "--convergence", f"{params.convergence:g}",
        "--video-codec", "libx264", "--crf", str(params.crf), "--preset", params.preset,
    ]
    if mode is OutputMode.ANAGLYPH:
        args += ["--anaglyph", params.anaglyph_method.value]
    else:
        args += _MODE_FLAGS[mode]
    if low_vram:
        args.append("--low-vram")
    return args


def convert_with_iw3(
    input_path: Path, output_path: Path, *, mode: OutputMode, params: ConversionParams,
    started: float, low_vram: bool = False, timeout_s: float = 3600,
) -> ConversionResult:
    """Run iw3 on the segment, write ``output_path`` atomically, return a ConversionResult.

    Raises ModelNotInstalledError when iw3 is not installed, EngineTransientError
    when it fails or produces no output.
    """
    if not is_available():
        raise ModelNotInstalledError(
            "depth model 'iw3' needs nagadomi/nunif's iw3 package, which is installed only "
            "in the GPU image (packages/stereo-inference/Dockerfile); choose another --depth"
        )
    partial = partial_path(Path(output_path))
    args = iw3_command(input_path, partial, mode=mode, params=params, low_vram=low_vram)
    log.info("running iw3: %s", " ".join(args[1:]))
    try:
        done = subprocess.run(args, capture_output=True, timeout=timeout_s, env=dict(os.environ))
    except subprocess.TimeoutExpired as exc:
        partial.unlink(missing_ok=True)
        raise EngineTransientError(f"iw3 did not finish within {timeout_s:.0f}s") from exc
    if done.returncode != 0 or not partial.is_file() or partial.stat().st_size == 0:
        partial.unlink(missing_ok=True)
        tail = done.stderr.decode(errors="replace")[-500:]
        raise EngineTransientError(f"iw3 failed (exit {done.returncode}): {tail}")
    os.replace(partial, output_path)
    info = probe_video(Path(output_path))
    elapsed = time.perf_counter() - started
    frames = info.frames or round(info.duration_s * info.fps)
    return ConversionResult(
        frames=frames, duration_s=info.duration_s, width=info.width, height=info.height,
        elapsed_s=elapsed, fps=frames / elapsed if elapsed > 0 else 0.0,
        depth_model="iw3", depth_state=None,
    )
