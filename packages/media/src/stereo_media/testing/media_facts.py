"""Read back everything a media file carries (PyAV), for tests to compare files.

Streams with their languages and titles, chapters, global tags, subtitle cue
times, rotation, colour, sample aspect, timecode, cover art, telemetry and the
stereo signalling players read (frame-packing SEI, MKV ``StereoMode``, MP4 ``st3d``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from stereo_media.frame_rate import stream_rate
from stereo_media.side_data import side_data, side_data_names
from stereo_media.stream_names import codec_name
from stereo_media.timestamps import seconds

_STEREO_SIDE_DATA = "STEREO3D"


@dataclass(frozen=True)
class StreamFacts:
    kind: str  # video / audio / subtitle
    codec: str
    language: str | None
    title: str | None
    channels: int | None = None


@dataclass(frozen=True)
class MediaFacts:
    streams: tuple[StreamFacts, ...]
    chapters: tuple[tuple[float, float, str], ...]
    tags: dict[str, str]
    cues: tuple[tuple[float, float], ...]  # (start, end) s of the first subtitle stream
    width: int
    height: int
    frames: int
    duration_s: float
    rotation: int
    sample_aspect: tuple[int, int] | None
    pix_fmt: str
    color: tuple[str | None, str | None, str | None]  # primaries, transfer, matrix
    hdr_side_data: frozenset[str]
    frame_packing: str | None  # the first frame's stereo3d type, e.g. "SIDEBYSIDE"
    stereo_mode: str | None  # MKV StereoMode as the demuxer reports it
    timecode: str | None = None  # any stream's or the file's ``timecode`` tag
    cover: bytes | None = None  # the first attached picture's bytes (cover art)
    # (start s, bytes) of each sample of the first ``gpmd`` data track (telemetry)
    telemetry: tuple[tuple[float, bytes], ...] = ()

    def of_kind(self, kind: str) -> list[StreamFacts]:
        return [s for s in self.streams if s.kind == kind]


def _meta(metadata: dict, *names: str) -> str | None:
    lowered = {k.lower(): v for k, v in metadata.items()}
    return next((lowered[n] for n in names if n in lowered), None)


def media_facts(path: Path) -> MediaFacts:
    """Describe ``path``: demuxes every packet and decodes every video frame."""
    import av

    with av.open(str(path)) as c:
        streams = tuple(_stream_facts(s) for s in c.streams if s.type in
                        ("video", "audio", "subtitle"))
        chapters = tuple(
            (seconds(ch["start"], ch["time_base"]), seconds(ch["end"], ch["time_base"]),
             ch["metadata"].get("title", "")) for ch in c.chapters())
        tags = {k.lower(): v for k, v in c.metadata.items()}
        timecode = next((v for tags in [*(s.metadata for s in c.streams), c.metadata]
                         for k, v in tags.items() if k.lower() == "timecode"), None)
        video = c.streams.video[0]
        stereo_mode = _meta(video.metadata, "stereo_mode")
        sar = video.sample_aspect_ratio
        cues = _cues(c)
    with av.open(str(path)) as c:
        video = c.streams.video[0]
        frames, first, last_pts, start = 0, None, 0.0, None
        for frame in c.decode(video):
            if first is None:
                first = frame
            frames += 1
            if frame.pts is not None:
                t = seconds(frame.pts, frame.time_base)
                start = t if start is None else min(start, t)
                last_pts = max(last_pts, t)
        rate = float(stream_rate(video) or 0)
        duration = last_pts - (start or 0.0) + (1.0 / rate if rate else 0.0)
        if first is None:
            raise ValueError(f"{path} has no video frames")
        types = side_data_names(first)
        packing = next((sd for sd in side_data(first) if sd.type.name == _STEREO_SIDE_DATA),
                       None)
        return MediaFacts(
            streams=streams, chapters=chapters, tags=tags, cues=cues,
            width=first.width, height=first.height, frames=frames, duration_s=duration,
            rotation=int(round(first.rotation or 0)) % 360,
            sample_aspect=(sar.numerator, sar.denominator) if sar else None,
            pix_fmt=first.format.name,
            color=(_name(first, "color_primaries"), _name(first, "color_trc"),
                   _name(first, "colorspace")),
            hdr_side_data=frozenset(types & {"MASTERING_DISPLAY_METADATA",
                                             "CONTENT_LIGHT_LEVEL"}),
            frame_packing=_stereo_type(packing) if packing is not None else None,
            stereo_mode=stereo_mode, timecode=timecode, cover=_cover(path),
            telemetry=_telemetry(path),
        )


def _cover(path: Path) -> bytes | None:
    import av

    with av.open(str(path)) as c:
        pictures = [s for s in c.streams.video if int(s.disposition) & 0x400]  # ATTACHED_PIC
        if not pictures:
            return None
        for packet in c.demux(pictures[0]):
            if packet.size:
                return bytes(packet)
    return None


def _telemetry(path: Path) -> tuple[tuple[float, bytes], ...]:
    import av

    from stereo_media.mp4_boxes import Mp4BoxError, track_formats

    try:
        formats = track_formats(path)
    except Mp4BoxError:  # not an MP4: no telemetry track
        return ()
    if "gpmd" not in formats:
        return ()
    with av.open(str(path)) as c:
        stream = c.streams[formats.index("gpmd")]
        return tuple((round(seconds(p.pts, p.time_base), 6), bytes(p))
                     for p in c.demux(stream) if p.size)


def _stream_facts(stream) -> StreamFacts:
    cc = stream.codec_context
    return StreamFacts(
        kind=stream.type, codec=codec_name(cc) if cc else "",
        language=_meta(stream.metadata, "language"),
        title=_meta(stream.metadata, "title", "name"),
        channels=cc.channels if stream.type == "audio" else None,
    )


def _cues(container) -> tuple[tuple[float, float], ...]:
    subs = container.streams.subtitles
    if not subs:
        return ()
    out = []
    for packet in container.demux(subs[0]):
        if packet.pts is None or packet.size <= 2:  # mov_text's empty gap samples
            continue
        start = float(packet.pts * packet.time_base)
        out.append((round(start, 6), round(start + float(packet.duration * packet.time_base), 6)))
    return tuple(sorted(out))


def _name(frame, attr: str) -> str | None:
    value = getattr(frame, attr, None)
    return None if value is None else str(value)


def _stereo_type(side_data) -> str:
    # PyAV exposes stereo3d side data as raw AVStereo3D bytes: the first int is the type.
    raw = bytes(side_data)
    kinds = {0: "2D", 1: "SIDEBYSIDE", 2: "TOPBOTTOM", 3: "FRAMESEQUENCE", 4: "CHECKERBOARD",
             5: "SIDEBYSIDE_QUINCUNX", 6: "LINES", 7: "COLUMNS", 8: "UNSPEC"}
    return kinds.get(int.from_bytes(raw[:4], "little"), "UNKNOWN")


def frame_packing_arrangements(path: Path) -> list[tuple[int, int, int]]:
    """(pts of its picture, frame_packing_arrangement_type, content_interpretation_type)
    of each frame-packing SEI in the first video stream of ``path``, in decoding
    order (FFmpeg's own bitstream parser, read from its ``trace_headers`` log:
    decoders fill their stereo side data from the container's st3d or
    StereoMode too, so the SEI itself is read here)."""
    import re
    import subprocess

    from stereo_media.ffmpeg import ffmpeg_path

    done = subprocess.run(
        [ffmpeg_path(), "-hide_banner", "-loglevel", "trace", "-i", str(path), "-map", "0:v:0",
         "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"],
        capture_output=True, text=True, errors="replace", timeout=300, check=True)
    found, at = [], 0
    for line in done.stderr.splitlines():
        packet = re.search(r"Packet: \d+ bytes.* pts (-?\d+)", line)
        if packet:
            at = int(packet.group(1))
        kind = re.search(r"(?:fp|frame_packing)_arrangement_type +[01]+ = (\d+)", line)
        if kind:
            found.append([at, int(kind.group(1)), -1])
        views = re.search(r"content_interpretation_type +[01]+ = (\d+)", line)
        if views and found:
            found[-1][2] = int(views.group(1))
    return [(at, kind, views) for at, kind, views in found]


def ffmpeg_decode_error(path: Path, *, seek_s: float | None = None) -> str | None:
    """What the ffmpeg command line says when it decodes every picture of
    ``path``'s first video stream (from ``seek_s`` on, when given), or None
    when it decodes them all: how any tool built on it sees the file."""
    import subprocess

    from stereo_media.ffmpeg import ffmpeg_path

    seek = ["-ss", str(seek_s)] if seek_s is not None else []
    done = subprocess.run(
        [ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-nostdin", *seek, "-i", str(path),
         "-map", "0:v:0", "-f", "null", "-"],
        capture_output=True, text=True, errors="replace", timeout=300)
    return None if done.returncode == 0 else (done.stderr.strip() or f"rc {done.returncode}")
