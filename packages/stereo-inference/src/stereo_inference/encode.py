"""Encode stereo frames with PyAV (libx264, or h264_nvenc on a GPU): video only.

Frames keep the source timestamps (constant or variable frame rate), sample
aspect and colour description; SBS/TB layouts carry the frame-packing SEI
(written here for every encoder, in the two forms ``stereo_media.frame_packing``
puts on a keyframe and on the picture after it); the source pictures' closed
captions (A/53) are put back in the same pictures.
Every other stream of the source (audio, subtitles, chapters, tags) is added
afterwards by ``stereo_inference.mux``.
"""

from __future__ import annotations

import logging
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from stereo_media.a53 import with_caption_sei
from stereo_media.frame_packing import PackingSeis
from stereo_media.hdr import HdrInfo
from stereo_media.sei import with_sei

from stereo_inference import planes
from stereo_inference.errors import write_failure
from stereo_inference.scaler import Scaler

log = logging.getLogger(__name__)


class StereoEncoder:
    """Write frames to the MP4 at ``path``; ``close()`` finishes the file.

    A 10-bit ``hdr`` (see ``stereo_media.hdr``) encodes 10-bit HEVC with its
    HDR10 metadata instead of 8-bit H.264.
    Frames of another size than ``size`` (half layouts whose eye is odd) are
    scaled to it. ``color`` is (primaries, transfer, matrix, range) as FFmpeg
    numbers, copied from the source; ``packing`` ("sbs"/"tb") adds the SEI.
    """

    def __init__(
        self,
        path: Path,
        *,
        size: tuple[int, int],
        fps: float,
        time_base: Fraction,
        crf: int,
        preset: str,
        sample_aspect: tuple[int, int] | None = None,
        packing: str | None = None,
        color: tuple[int, int, int, int] | None = None,
        hdr: HdrInfo | None = None,
        use_nvenc: bool = False,
        threads: int | None = None,
        faststart: bool = False,
    ) -> None:
        self.path = Path(path)
        # faststart: the index first, for playback while downloading (a final output)
        options = {"movflags": "+faststart"} if faststart else {}
        if time_base.numerator == 1:
            # where a segment begins (its edit list) in the source's own ticks: in
            # the writer's default milliseconds a 29.97 fps segment at 1.5015 s
            # began at 1.501 s, and every join of the pipeline stepped
            options["movie_timescale"] = str(time_base.denominator)
        self.out = av.open(str(self.path), "w", format="mp4", container_options=options or None)
        self.size = size
        self.scaler = Scaler()  # a frame of another size (the encoding thread's)
        self.hdr = hdr if hdr is not None and hdr.bit_depth > 8 else None
        self.video = self._add_video(size, fps, time_base, crf, preset, use_nvenc)
        self.hevc = self.video.codec_context.name == "libx265"
        self.packing_seis = PackingSeis(packing, hevc=self.hevc) if packing else None
        if threads:  # None: the codec's automatic count (every core)
            self.video.codec_context.thread_count = threads
        if sample_aspect and sample_aspect[0] and sample_aspect[1]:
            self.video.codec_context.sample_aspect_ratio = Fraction(*sample_aspect)
        if color:
            cc = self.video.codec_context
            cc.color_primaries, cc.color_trc, cc.colorspace, cc.color_range = color
        self.time_base = time_base
        self.frames = 0
        self.span: tuple[int, int] | None = None  # first pts, last pts + duration written
        self.captions: dict[int, bytes] = {}  # cc_data by pts, until its picture is written

    def _add_video(self, size, fps, time_base, crf, preset, use_nvenc):
        rate = Fraction(fps).limit_denominator(100000) if fps > 0 else Fraction(25)
        if self.hdr is not None:  # 10-bit HEVC (x265 has no frame-packing SEI)
            options = {"crf": str(crf), "preset": preset, "x265-params": self.hdr.x265_params}
            stream = self.out.add_stream("libx265", rate=rate, options=options)
            self._configure(stream, size, time_base, "yuv420p10le")
            stream.codec_tag = "hvc1"  # the tag Apple players need
            return stream
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
    def _configure(stream, size, time_base, pix_fmt="yuv420p"):
        stream.width, stream.height = size
        stream.pix_fmt = pix_fmt
        stream.time_base = time_base
        stream.codec_context.time_base = time_base

    def write(self, frames: np.ndarray, fmt: str, pts: list, durations: list,
              captions: dict[int, bytes] | None = None) -> None:
        """Encode a batch (B,H*3/2,W yuv420p or B,H,W,3 rgb24) with source
        timestamps; ``captions`` (A/53 cc_data by pts, as decoded) go back into
        the pictures of the same timestamps (``stereo_media.a53``)."""
        if captions:
            self.captions.update(captions)
        try:
            for i, array in enumerate(frames):
                frame = planes.to_frame(array, fmt)
                if (frame.width, frame.height) != self.size:
                    frame = self.scaler.frame(frame, width=self.size[0], height=self.size[1])
                frame.pts = pts[i] if pts[i] is not None else self.frames
                frame.time_base = self.time_base
                if durations[i]:
                    frame.duration = durations[i]
                self.frames += 1
                end = frame.pts + (durations[i] or 0)
                self.span = ((frame.pts, end) if self.span is None
                             else (min(self.span[0], frame.pts), max(self.span[1], end)))
                for packet in self.video.encode(frame):
                    self._mux(packet)
        except av.FFmpegError as exc:
            raise write_failure("encoding the 3D video", exc, self.path) from exc

    @property
    def seconds(self) -> float:
        """Seconds of picture written, from the first frame to the end of the last."""
        return float((self.span[1] - self.span[0]) * self.time_base) if self.span else 0.0

    def _mux(self, packet: av.Packet) -> None:
        """Write ``packet``, its picture's closed captions put back in first
        (and the frame-packing SEI its place in the stream calls for)."""
        cc = self.captions.pop(packet.pts, None) if self.captions else None
        data = None
        if cc is not None:
            data = with_caption_sei(bytes(packet), cc, hevc=self.hevc)
        sei = self.packing_seis.for_picture(packet.is_keyframe) if self.packing_seis else None
        if sei is not None:
            data = with_sei(data or bytes(packet), sei, hevc=self.hevc)
        self.out.mux(packet if data is None else _rewritten(packet, data))

    def close(self) -> None:
        """Flush the encoder and finish the file."""
        try:
            try:
                for packet in self.video.encode(None):
                    self._mux(packet)
            finally:
                self.out.close()  # writes the index: a full disk may show only here
        except av.FFmpegError as exc:
            raise write_failure("finishing the 3D video", exc, self.path) from exc

    def abort(self) -> None:
        """Close without finishing (the caller deletes the partial file)."""
        try:
            self.out.close()
        except av.FFmpegError:
            pass


def _rewritten(packet: av.Packet, data: bytes) -> av.Packet:
    """The encoded picture ``packet`` with its bytes replaced by ``data``."""
    out = av.Packet(data)
    out.pts, out.dts, out.duration = packet.pts, packet.dts, packet.duration
    out.time_base, out.is_keyframe, out.stream = packet.time_base, packet.is_keyframe, packet.stream
    return out


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
