"""Frames as an upload carries them: through x264 and decoded back.

A user's video reaches the engine compressed (a phone's or an editor's H.264),
which smooths sensor noise and fine texture and adds blocks: the flow the
weight-free depth reads changes with it. ``as_uploaded`` plays frames through
the shipped FFmpeg's libx264 (yuv420p, the medium preset, a given CRF: 23 a
typical upload, 28-32 a heavily compressed one) and decodes them back, cached
in the temporary directory by a key, so an engine run in another process and
the scores see the same frames. ``uploaded`` does so for frames and their
measured depth together, both cropped to the even size x264's 4:2:0 takes.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import numpy as np


def as_uploaded(rgb: np.ndarray, crf: int, key: str) -> np.ndarray:
    """``rgb`` (n,h,w,3) uint8 (even h and w) through x264 at ``crf`` and back;
    ``key`` names these frames in the cache."""
    cache = Path(tempfile.gettempdir()) / f"uploaded-{key}-crf{crf}.npy"
    if cache.is_file():
        return np.load(cache)
    import imageio_ffmpeg

    ffmpeg = imageio_ffmpeg.get_ffmpeg_exe()
    n, h, w, _ = rgb.shape
    with tempfile.TemporaryDirectory(prefix="upload-x264-") as tmp:
        mp4 = Path(tmp) / "clip.mp4"
        subprocess.run([ffmpeg, "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
                        "-s", f"{w}x{h}", "-r", "30", "-i", "-", "-c:v", "libx264",
                        "-crf", str(crf), "-pix_fmt", "yuv420p", str(mp4)],
                       input=np.ascontiguousarray(rgb).tobytes(), check=True)
        raw = subprocess.run([ffmpeg, "-v", "error", "-i", str(mp4), "-f", "rawvideo",
                              "-pix_fmt", "rgb24", "-"], capture_output=True, check=True).stdout
    decoded = np.frombuffer(raw, np.uint8).reshape(n, h, w, 3)
    partial = cache.with_name(f"{cache.stem}.partial.npy")
    np.save(partial, decoded)
    partial.replace(cache)  # whole or not at all: runs may share the cache
    return decoded


def uploaded(rgb: np.ndarray, depth: np.ndarray, crf: int | None, key: str
             ) -> tuple[np.ndarray, np.ndarray]:
    """(rgb, depth) as an upload at ``crf`` carries the frames (``as_uploaded``),
    both cropped to an even size; as they are when ``crf`` is None."""
    if crf is None:
        return rgb, depth
    h, w = (rgb.shape[1] // 2) * 2, (rgb.shape[2] // 2) * 2
    return as_uploaded(rgb[:, :h, :w], crf, key), depth[:, :h, :w]
