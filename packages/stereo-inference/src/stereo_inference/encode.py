"""Encode stereo frames with PyAV (libx264, libx265 or SVT-AV1, or NVENC on a GPU;
``stereo_inference.codecs``): video only.

Frames keep the source timestamps (constant or variable frame rate), sample
aspect and colour description; SBS/TB layouts carry the frame-packing SEI
(written here for every H.264/HEVC encoder, in the two forms ``stereo_media.frame_packing``
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
from shared_types.models import VideoCodec
from stereo_media.a53 import with_caption_sei
from stereo_media.frame_packing import PackingSeis
from stereo_media.hdr import HdrInfo
from stereo_media.sei import with_sei

from stereo_inference import planes
from stereo_inference.codecs import (
    AV1_ENCODERS,
    HEVC_ENCODERS,
    NVENC,
    SOFTWARE,
    EncoderChoice,
    choose_encoder,
)
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
        encoder: EncoderChoice | None = None,
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
        self.video = self._add_video(size, fps, time_base, crf, preset, use_nvenc, encoder)
        name = self.video.codec_context.name
        self.hevc = name in HEVC_ENCODERS
        self.has_sei = name not in AV1_ENCODERS  # AV1: the container alone says "3D"
        self.packing_seis = (PackingSeis(packing, hevc=self.hevc)
                             if packing and self.has_sei else None)
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

    def _add_video(self, size, fps, time_base, crf, preset, use_nvenc, choice):
        rate = Fraction(fps).limit_denominator(100000) if fps > 0 else Fraction(25)
        if choice is None:
            choice = choose_encoder(crf=crf, preset=preset, hdr_x265_params=(
                self.hdr.x265_params if self.hdr is not None else None))
        if use_nvenc and self.hdr is None and nvenc_available(
                NVENC[_codec_of(choice)]):
            choice = choose_encoder(_codec_of(choice), crf=crf, nvenc=True,
                                    pix_fmt=choice.pix_fmt,
                                    bitrate_kbps=(choice.bit_rate or 0) // 1000 or None)
        stream = self.out.add_stream(choice.name, rate=rate, options=dict(choice.options))
        if choice.name == "libx264":
            # PyAV asks for slice threads; x264's frame threads (what the ffmpeg
            # CLI uses) encode about 25 % faster.
            stream.codec_context.thread_type = "AUTO"
        if choice.bit_rate:
            stream.codec_context.bit_rate = choice.bit_rate
        if choice.tag:
            stream.codec_tag = choice.tag
        self._configure(stream, size, time_base, choice.pix_fmt)
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
        cc = (self.captions.pop(packet.pts, None)
              if self.captions and packet.pts is not None else None)
        data = None
        if cc is not None and self.has_sei:
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


def _codec_of(choice: EncoderChoice) -> VideoCodec:
    return next(codec for codec, name in SOFTWARE.items() if name == choice.name)


def nvenc_available(name: str = "h264_nvenc") -> bool:
    """True when the NVENC encoder ``name`` can really be opened (a GPU and driver)."""
    try:
        ctx = av.CodecContext.create(name, "w")
        if not isinstance(ctx, av.VideoCodecContext):  # (not a video encoder)
            return False
        ctx.width, ctx.height, ctx.pix_fmt = 256, 256, "yuv420p"
        ctx.time_base = Fraction(1, 25)
        ctx.open()
        return True
    except (av.FFmpegError, ValueError) as exc:
        log.info("%s unavailable (%s); encoding on the CPU", name, exc)
        return False
