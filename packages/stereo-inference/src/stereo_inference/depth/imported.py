"""Depth from a file: ``convert --depth-video FILE`` renders with edited depth.

The file is what ``stereo-inference depth`` writes (``depth_export``): 16-bit
grey (FFV1 ``gray16le`` in Matroska, though any grey video PyAV reads will
do), one frame per source frame, 65535 = nearest, in the source's coded
orientation and size (or any size of the same shape). It is checked before
anything is converted: a wrong frame count or shape is refused with what was
expected. Its frames are handed out in order, batch by batch, as the engine
asks for depth; they are used as they are (already 0..1, no renormalisation),
turned like the source's frames for a rotated source.
"""

from __future__ import annotations

from pathlib import Path

import av
import cv2
import numpy as np
from stereo_media.demuxers import av_options

from stereo_inference.arrays import is_tensor
from stereo_inference.decode import rotate
from stereo_inference.errors import InvalidInputError
from stereo_inference.video_info import VideoInfo

NAME = "depth-video"
MAX_WIDTH = 256  # depth is used at most this wide (the warp is planned per depth row)
ASPECT_TOLERANCE = 0.02


class DepthVideo:
    """A DepthEstimator that reads its depth from a video file instead of estimating it."""

    name = NAME
    max_batch = None

    def __init__(self, path: Path, source: VideoInfo, source_path: Path) -> None:
        self.path = Path(path)
        self._turns = (source.rotation % 360) // 90
        width, height, frames = _probe(self.path)
        expected = count_frames(source_path, what="source")
        if frames != expected:
            raise InvalidInputError(
                f"depth video {self.path.name} has {frames} frames; the source has {expected}"
                " (one depth frame per source frame, as `stereo-inference depth` writes)")
        if abs(width / height - source.width / source.height) > ASPECT_TOLERANCE * (
                source.width / source.height):
            raise InvalidInputError(
                f"depth video {self.path.name} is {width}x{height}; expected "
                f"{source.width}x{source.height} (the source's coded size) or the same shape")
        self._size = (min(width, MAX_WIDTH), max(1, round(height * min(width, MAX_WIDTH) / width)))
        self._container = av.open(str(self.path), options=av_options())
        self._frames = self._container.decode(video=0)

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        # The source frames are not looked at: the smallest picture the reader makes.
        return 8, 8

    def estimate(self, rgb):
        """The next ``len(rgb)`` depth frames (B,1,h,w) in 0..1, 1 = nearest."""
        planes = [self._next() for _ in range(rgb.shape[0])]
        depth = np.stack(planes)[:, None]
        if is_tensor(rgb):
            import torch

            return torch.from_numpy(depth).to(rgb.device)
        return depth

    def close(self) -> None:
        self._container.close()

    def _next(self) -> np.ndarray:
        try:
            frame = next(self._frames)
        except StopIteration:
            raise InvalidInputError(
                f"depth video {self.path.name} ended before the source") from None
        except av.FFmpegError as exc:
            raise InvalidInputError(f"cannot decode depth video {self.path.name}: {exc}") from exc
        plane: np.ndarray = frame.to_ndarray(format="gray16le").astype(np.float32) / 65535.0
        plane = cv2.resize(plane, self._size, interpolation=cv2.INTER_AREA)
        return rotate(plane, "gray", self._turns) if self._turns else plane


class AsIs:
    """The normaliser for imported depth: already 0..1, used unchanged."""

    def normalize(self, depth, rgb):
        return depth.clip(0, 1)

    def state(self) -> dict | None:
        return None


def count_frames(path: Path, *, what: str) -> int:
    """Video frames in ``path``, counted from its packets (no decoding).
    Raises InvalidInputError when it is not a readable video."""
    try:
        with av.open(str(path), options=av_options()) as container:
            if not container.streams.video:
                raise InvalidInputError(f"{what} {path.name} has no video stream")
            stream = container.streams.video[0]
            return sum(1 for p in container.demux(stream) if p.size)
    except av.FFmpegError as exc:
        raise InvalidInputError(f"cannot read {what} {path.name}: {exc}") from exc


def _probe(path: Path) -> tuple[int, int, int]:
    """(width, height, frames) of a grey depth video; InvalidInputError otherwise."""
    if not path.is_file():
        raise InvalidInputError(f"depth video {path} does not exist")
    frames = count_frames(path, what="depth video")
    try:
        with av.open(str(path), options=av_options()) as container:
            ctx = container.streams.video[0].codec_context
            width, height, fmt = ctx.width, ctx.height, ctx.pix_fmt or ""
    except av.FFmpegError as exc:
        raise InvalidInputError(f"cannot read depth video {path.name}: {exc}") from exc
    if not fmt.startswith("gray") or not width or not height:
        raise InvalidInputError(
            f"depth video {path.name} is {fmt or 'of no known pixel format'}; expected grey "
            "(16-bit FFV1 gray16le, as `stereo-inference depth` writes)")
    return width, height, frames
