"""Generate rich test sources: everything a real film or phone clip carries.

Several audio tracks with languages and titles, a text subtitle track, chapters,
global metadata, a display rotation, 10-bit HDR10 colour, any frame size and a
non-square sample aspect ratio, a camera's timecode, cover art and telemetry, in
MP4 or MKV, made with the shipped ffmpeg (and PyAV for the telemetry track).
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.source_streams import QUICKTIME_PREFIXES
from stereo_media.subtitle_cues import TextCue, format_srt

# HDR10 mastering display (BT.2020 primaries, D65, 1000/0.0001 nits) in x265's syntax.
MASTER_DISPLAY = "G(8500,39850)B(6550,2300)R(35400,14600)WP(15635,16450)L(10000000,1)"
MAX_CLL = "1000,400"


# the video stream's own labels (a multi-camera or dubbed release names its picture)
VIDEO_LANGUAGE, VIDEO_TITLE = "jpn", "Main camera"


@dataclass(frozen=True)
class AudioTrack:
    language: str  # ISO 639-2, as MP4 and MKV store it
    title: str
    frequency: int = 440
    channels: int = 2


Cue = TextCue  # a fixture's subtitle cue is the toolkit's

@dataclass(frozen=True)
class Chapter:
    start_s: float
    end_s: float
    title: str


@dataclass(frozen=True)
class RichSource:
    """What ``make_rich_video`` put into a file, for tests to compare against."""

    path: Path
    size: tuple[int, int]  # coded width, height
    seconds: float
    fps: int
    audio: tuple[AudioTrack, ...]
    cues: tuple[Cue, ...]
    chapters: tuple[Chapter, ...]
    metadata: dict[str, str] = field(default_factory=dict)
    rotation: int = 0
    hdr10: bool = False
    sar: tuple[int, int] | None = None
    cover: bytes | None = None  # the JPEG cover picture's bytes, when it has one
    telemetry: tuple[bytes, ...] = ()  # the GoPro-style ``gpmd`` track's samples


DEFAULT_AUDIO = (AudioTrack("eng", "English stereo", 440), AudioTrack("fra", "Français", 660))


def default_cues(seconds: float) -> tuple[Cue, ...]:
    """One cue a second, each 0.7 s long, with exact millisecond times."""
    return tuple(Cue(t + 0.25, t + 0.95, f"Line {t + 1}") for t in range(int(seconds)))


def default_chapters(seconds: float) -> tuple[Chapter, ...]:
    half = round(seconds / 2, 3)
    return (Chapter(0.0, half, "Opening"), Chapter(half, seconds, "Ending"))


def make_rich_video(
    path: Path,
    *,
    seconds: float = 6.0,
    size: tuple[int, int] = (854, 480),
    fps: int = 24,
    audio: tuple[AudioTrack, ...] = DEFAULT_AUDIO,
    cues: tuple[Cue, ...] | None = None,
    chapters: tuple[Chapter, ...] | None = None,
    metadata: dict[str, str] | None = None,
    rotation: int = 0,
    hdr10: bool = False,
    sar: tuple[int, int] | None = None,
    gop: int | None = None,
    pattern: str = "testsrc2",
    video_filter: str | None = None,
    timecode: str | None = None,
    cover: bool = False,
    telemetry: bool = False,
) -> RichSource:
    """Write a rich source to ``path`` (MP4, or MKV by suffix) and describe it.

    ``rotation`` is the display matrix's counter-clockwise angle, as a phone
    stores a portrait clip; ``hdr10`` encodes 10-bit HEVC with BT.2020/PQ and
    mastering metadata instead of 8-bit H.264; ``sar`` sets the sample aspect;
    ``video_filter`` (an ffmpeg filter chain) alters the picture; ``timecode``
    (HH:MM:SS:FF) is written as a camera does (MP4: a ``tmcd`` track, MKV: a tag);
    ``cover`` adds a JPEG cover picture (MP4: an attached picture, MKV: an image
    attachment); ``telemetry`` adds a GoPro-style ``gpmd`` data track, one
    sample a second (MP4 only: MKV cannot hold data tracks).
    Empty tuples leave that kind of stream out. Raises CalledProcessError, and
    ValueError for telemetry in an MKV.
    """
    path = Path(path)
    cues = default_cues(seconds) if cues is None else cues
    chapters = default_chapters(seconds) if chapters is None else chapters
    metadata = {"title": "Rich test source", "creation_time": "2024-05-01T10:00:00Z"} \
        if metadata is None else metadata
    mkv = path.suffix.lower() == ".mkv"
    if telemetry and mkv:
        raise ValueError("an MKV cannot hold a telemetry (data) track")
    with tempfile.TemporaryDirectory(prefix="rich-") as tmp:
        video = _encode_video(Path(tmp) / ("video.mkv" if hdr10 else "video.mp4"), seconds, size,
                              fps, hdr10, sar, gop or fps, pattern, video_filter)
        samples = _telemetry_samples(seconds) if telemetry else ()
        if samples:
            video = _add_data_track(video, Path(tmp) / "video-gpmd.mp4", samples)
        args = [ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y"]
        args += ["-display_rotation", str(rotation)] if rotation else []
        args += ["-i", str(video)]
        inputs = 1
        for track in audio:
            layout = "stereo" if track.channels == 2 else f"{track.channels}c"
            args += ["-f", "lavfi", "-i", f"sine=frequency={track.frequency}:sample_rate=48000:"
                     f"duration={seconds},aformat=channel_layouts={layout}"]
            inputs += 1
        sub_input = meta_input = None
        if cues:
            srt = Path(tmp) / "subs.srt"
            srt.write_text(format_srt(list(cues)), encoding="utf-8")
            args += ["-i", str(srt)]
            sub_input, inputs = inputs, inputs + 1
        meta = Path(tmp) / "meta.txt"
        meta.write_text(_ffmetadata(metadata, chapters), encoding="utf-8")
        args += ["-f", "ffmetadata", "-i", str(meta)]
        meta_input = inputs
        picture = _cover_picture(Path(tmp) / "cover.jpg") if cover else None
        if picture is not None and not mkv:  # an MP4's cover is a stream of its own
            args += ["-i", str(picture)]
        args += ["-map", "0:v:0", "-metadata:s:v:0", f"language={VIDEO_LANGUAGE}",
                 "-metadata:s:v:0", f"title={VIDEO_TITLE}"]
        for i, track in enumerate(audio):
            args += ["-map", f"{i + 1}:a:0", f"-metadata:s:a:{i}", f"language={track.language}",
                     f"-metadata:s:a:{i}", f"title={track.title}"]
        if sub_input is not None:
            args += ["-map", f"{sub_input}:s:0", "-metadata:s:s:0", "language=eng",
                     "-metadata:s:s:0", "title=English subtitles"]
        args += ["-map", "0:d:0", "-c:d", "copy"] if samples else []  # after the rest, as a GoPro
        args += ["-map_metadata", str(meta_input), "-map_chapters", str(meta_input)]
        args += ["-timecode", timecode] if timecode else []
        if picture is not None and mkv:
            args += ["-attach", str(picture), "-metadata:s:t:0", "mimetype=image/jpeg",
                     "-metadata:s:t:0", "filename=cover.jpg"]
        elif picture is not None:
            args += ["-map", f"{meta_input + 1}:v:0", "-disposition:v:1", "attached_pic"]
        args += ["-c:v", "copy", "-c:a", "aac", "-b:a", "96k",
                 "-c:s", "srt" if mkv else "mov_text"]
        # a phone's keys (com.apple.quicktime.*, com.android.*) are 'mdta' keys in MP4
        phone = any(k.startswith(QUICKTIME_PREFIXES) for k in metadata)
        flags = "+faststart+use_metadata_tags" if phone else "+faststart"
        args += ["-f", "matroska"] if mkv else ["-movflags", flags, "-f", "mp4"]
        subprocess.run([*args, str(path)], check=True, timeout=180)
        cover_bytes = picture.read_bytes() if picture is not None else None
    return RichSource(path, size, seconds, fps, tuple(audio), tuple(cues), tuple(chapters),
                      dict(metadata), rotation % 360, hdr10, sar, cover_bytes, samples)


def _telemetry_samples(seconds: float) -> tuple[bytes, ...]:
    """One distinct sample a second, shaped like GPMF (a KLV ``DEVC`` header)."""
    return tuple(b"DEVC" + bytes([0x00, 0x01]) + i.to_bytes(2, "big") + bytes([i % 251]) * 248
                 for i in range(max(1, int(seconds))))


def _add_data_track(video: Path, dest: Path, samples: tuple[bytes, ...]) -> Path:
    """``video`` plus a ``gpmd`` data track holding ``samples``, one a second, in
    ``dest`` (an MP4: ffmpeg's muxer writes a ``bin_data`` stream as ``gpmd``)."""
    import av  # PyAV: the ffmpeg CLI cannot make a data stream from nothing

    with av.open(str(video)) as src, av.open(str(dest), "w", format="mp4") as out:
        picture = out.add_stream_from_template(src.streams.video[0])
        data = out.add_data_stream(codec_name="bin_data")
        data.time_base = Fraction(1, 1000)
        data.metadata["handler_name"] = "GoPro MET"
        for i, sample in enumerate(samples):
            packet = av.Packet(sample)
            packet.stream, packet.pts, packet.dts, packet.duration = data, i * 1000, i * 1000, 1000
            out.mux(packet)
        for video_packet in src.demux(src.streams.video[0]):
            if video_packet.dts is not None:
                video_packet.stream = picture
                out.mux(video_packet)
    return dest


def _cover_picture(dest: Path) -> Path:
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc2=size=320x180:rate=1", "-frames:v", "1", "-c:v", "mjpeg",
                    "-f", "image2", str(dest)], check=True, timeout=60)
    return dest


def _encode_video(dest: Path, seconds, size, fps, hdr10, sar, gop, pattern, vf) -> Path:
    w, h = size
    args = [ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
            f"{pattern}=size={w}x{h}:rate={fps}:duration={seconds}"]
    filters = [f"setsar={sar[0]}/{sar[1]}"] if sar else []
    filters += [vf] if vf else []
    if hdr10:
        filters.append("format=yuv420p10le")
        x265 = (f"keyint={gop}:min-keyint={gop}:scenecut=0:log-level=error:hdr10=1:"
                f"colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:"
                f"master-display={MASTER_DISPLAY}:max-cll={MAX_CLL}")
        codec = ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", x265,
                 "-color_primaries", "bt2020", "-color_trc", "smpte2084",
                 "-colorspace", "bt2020nc", "-tag:v", "hvc1"]
    else:
        filters.append("format=yuv420p")
        codec = ["-c:v", "libx264", "-preset", "ultrafast", "-g", str(gop),
                 "-keyint_min", str(gop), "-sc_threshold", "0",
                 "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"]
    subprocess.run([*args, "-vf", ",".join(filters), *codec, str(dest)], check=True,
                   timeout=180)
    return dest


def _escape(value: str) -> str:
    for ch in ("\\", "=", ";", "#", "\n"):
        value = value.replace(ch, "\\" + ch)
    return value


def _ffmetadata(metadata: dict[str, str], chapters: tuple[Chapter, ...]) -> str:
    lines = [";FFMETADATA1"] + [f"{k}={_escape(v)}" for k, v in metadata.items()]
    for c in chapters:
        lines += ["[CHAPTER]", "TIMEBASE=1/1000", f"START={round(c.start_s * 1000)}",
                  f"END={round(c.end_s * 1000)}", f"title={_escape(c.title)}"]
    return "\n".join(lines) + "\n"
