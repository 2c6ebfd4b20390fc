"""Read back what the pipeline wrote: geometry, frames, duration, audio (PyAV)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from stereo_media.frame_rate import stream_rate


@dataclass(frozen=True)
class VideoFacts:
    width: int
    height: int
    frames: int
    duration_s: float
    has_audio: bool


def video_facts(path: Path) -> VideoFacts:
    """Decode every frame of ``path`` and report what it really contains."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        has_audio = bool(container.streams.audio)
        frames, last_pts = 0, 0.0
        for frame in container.decode(stream):
            frames += 1
            if frame.pts is not None and frame.time_base is not None:
                last_pts = float(frame.pts * frame.time_base)
        rate = float(stream_rate(stream) or 0)
        start = (float(stream.start_time * stream.time_base)
                 if stream.start_time and stream.time_base else 0.0)
        duration = last_pts - start + (1.0 / rate if rate else 0.0)
        return VideoFacts(stream.codec_context.width, stream.codec_context.height,
                          frames, duration, has_audio)


def gray_frames(path: Path) -> np.ndarray:
    """All frames of ``path`` as a float32 (N, H, W) luma array in 0..1."""
    import av

    with av.open(str(path)) as container:
        planes = [f.to_ndarray(format="gray").astype(np.float32) / 255.0
                  for f in container.decode(video=0)]
    return np.stack(planes)
