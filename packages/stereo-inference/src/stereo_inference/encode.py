"""Encode stereo frames with PyAV (libx264, or h264_nvenc on a GPU) and copy audio.

Frames keep the source timestamps (constant or variable frame rate), rotation
and sample aspect. Audio packets are copied from the source and interleaved
with the video as it is written; a codec the container cannot hold is
re-encoded to AAC afterwards by ffmpeg (``reencode_audio``).
"""

from __future__ import annotations

import logging
import subprocess
from fractions import Fraction
from functools import cache
from pathlib import Path

import av
import numpy as np

from stereo_inference.errors import EngineTransientError

log = logging.getLogger(__name__)
_FORMATS = {".mp4": "mp4", ".m4v": "mp4", ".mov": "mov", ".mkv": "matroska"}


def container_format(path: Path) -> str:
    """The muxer for ``path``'s suffix (mp4 when unknown)."""
    return _FORMATS.get(Path(path).suffix.lower(), "mp4")


class StereoEncoder:
    """Write frames to ``path``; ``close()`` finishes the file."""

    def __init__(
        self,
        path: Path,
        *,
        source: Path,
        size: tuple[int, int],
        fps: float,
        time_base: Fraction,
        crf: int,
        preset: str,
        rotation: int = 0,
        sample_aspect: tuple[int, int] | None = None,
        use_nvenc: bool = False,
    ) -> None:
        self.path = Path(path)
        fmt = container_format(self.path)
        opts = {"movflags": "+faststart"} if fmt in ("mp4", "mov") else {}
        self.out = av.open(str(self.path), "w", format=fmt, options=opts)
        self.video = self._add_video(size, fps, time_base, crf, preset, use_nvenc)
        if rotation:
            self.video.set_display_rotation(rotation)
        if sample_aspect and sample_aspect[0] and sample_aspect[1]:
            self.video.codec_context.sample_aspect_ratio = Fraction(*sample_aspect)
        self.time_base = time_base
        self.frames = 0
        self._source = av.open(str(source))
        self._audio_map = {}
        self.skipped_audio: list[str] = []
        supported = self.out.supported_codecs
        for stream in self._source.streams.audio:
            if stream.codec_context.name in supported:
                self._audio_map[stream.index] = self.out.add_stream_from_template(stream)
            else:
                self.skipped_audio.append(stream.codec_context.name)
        self._packets = (
            self._source.demux(*self._source.streams.audio) if self._audio_map else iter(())
        )
        self._pending = None

    def _add_video(self, size, fps, time_base, crf, preset, use_nvenc):
        rate = Fraction(fps).limit_denominator(100000) if fps > 0 else Fraction(25)
        if use_nvenc and nvenc_available():
            options = {"cq": str(crf), "preset": "p4"}
            stream = self.out.add_stream("h264_nvenc", rate=rate, options=options)
        else:
            options = {"crf": str(crf), "preset": preset}
            stream = self.out.add_stream("libx264", rate=rate, options=options)
            # PyAV asks for slice threads; x264's frame threads (what the ffmpeg
            # CLI uses) encode about 25 % faster.
            stream.codec_context.thread_type = "AUTO"
        self._configure(stream, size, time_base)
        return stream

    @staticmethod
    def _configure(stream, size, time_base):
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        stream.time_base = time_base
        stream.codec_context.time_base = time_base

    def write(self, frames: np.ndarray, fmt: str, pts: list, durations: list) -> None:
        """Encode a batch (B,H*3/2,W yuv420p or B,H,W,3 rgb24) with source timestamps."""
        try:
            for i, array in enumerate(frames):
                frame = av.VideoFrame.from_ndarray(array, format=fmt)
                frame.pts = pts[i] if pts[i] is not None else self.frames
                frame.time_base = self.time_base
                if durations[i]:
                    frame.duration = durations[i]
                self.frames += 1
                for packet in self.video.encode(frame):
                    self._mux_audio_until(packet)
                    self.out.mux(packet)
        except av.FFmpegError as exc:
            raise EngineTransientError(f"encoder failed: {exc}") from exc

    def _mux_audio_until(self, packet) -> None:
        """Copy source audio up to the video packet's time, so streams interleave."""
        if packet.pts is None or packet.time_base is None:
            return
        limit = float(packet.pts * packet.time_base) + 0.2
        while True:
            audio = self._pending or next(self._packets, None)
            self._pending = None
            if audio is None:
                return
            if audio.dts is None:  # a flush packet
                continue
            if float(audio.dts * audio.time_base) > limit:
                self._pending = audio
                return
            audio.stream = self._audio_map[audio.stream.index]
            self.out.mux(audio)

    def close(self) -> None:
        """Flush the encoder, copy the remaining audio and finish the file."""
        try:
            for packet in self.video.encode(None):
                self._mux_audio_until(packet)
                self.out.mux(packet)
            self._mux_audio_until_end()
        except av.FFmpegError as exc:
            raise EngineTransientError(f"encoder failed while finishing: {exc}") from exc
        finally:
            self.out.close()
            self._source.close()

    def _mux_audio_until_end(self) -> None:
        for audio in ([self._pending] if self._pending else []) + list(self._packets):
            if audio.dts is None:
                continue
            audio.stream = self._audio_map[audio.stream.index]
            self.out.mux(audio)
        self._pending = None

    def abort(self) -> None:
        """Close without finishing (the caller deletes the partial file)."""
        for closable in (self.out, self._source):
            try:
                closable.close()
            except av.FFmpegError:
                pass


@cache
def nvenc_available() -> bool:
    """True when an h264_nvenc encoder can really be opened (a GPU and driver)."""
    try:
        ctx = av.CodecContext.create("h264_nvenc", "w")
        ctx.width, ctx.height, ctx.pix_fmt = 256, 256, "yuv420p"
        ctx.time_base = Fraction(1, 25)
        ctx.open()
        return True
    except (av.FFmpegError, ValueError) as exc:
        log.info("h264_nvenc unavailable (%s); using libx264", exc)
        return False


def reencode_audio(ffmpeg: str, video: Path, source: Path, output: Path, timeout_s: float) -> None:
    """Write ``output``: the video of ``video`` (copied) and the source audio as AAC.

    Raises EngineTransientError when ffmpeg fails.
    """
    args = [
        ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-protocol_whitelist", "file",
        "-i", str(video), "-i", str(source), "-map", "0:v:0", "-map", "1:a?",
        "-c:v", "copy", "-c:a", "aac", "-b:a", "192k",
        "-f", container_format(output), str(output),
    ]
    try:
        subprocess.run(args, check=True, capture_output=True, timeout=timeout_s)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        raise EngineTransientError(
            f"ffmpeg could not re-encode the audio: {detail.decode(errors='replace')[-300:]}"
        ) from exc
