"""How many frames a source has, for progress bars (PyAV; best effort)."""

from __future__ import annotations

from pathlib import Path


def count_frames(path: Path) -> int | None:
    """Frame count of the first video stream, estimated from its duration and
    rate when the container does not say; None when the file cannot be read
    (the pipeline, not the progress bar, decides whether it is a valid video)."""
    import av

    try:
        with av.open(str(path), timeout=10) as container:
            if not container.streams.video:
                return None
            stream = container.streams.video[0]
            if stream.frames:
                return int(stream.frames)
            rate = stream.average_rate or stream.guessed_rate
            if stream.duration is not None and stream.time_base and rate:
                return round(float(stream.duration * stream.time_base * rate))
            if container.duration and rate:
                return round(container.duration / 1_000_000 * float(rate))
    except (av.error.FFmpegError, OSError, ValueError):
        return None
    return None
