"""What a media file carries beside its picture, read from an open PyAV container.

Its audio, subtitle and attachment streams and cover art (``SourceStream``),
the film's labels and where it starts, its start timecode, Apple's QuickTime
keys, its telemetry tracks (named from the file's boxes: PyAV does not say what
a data stream holds), whether it has chapters or tags of its own, and where its
clock begins (``FileStreams``). ``stereo_media.stream_mux`` builds the muxes
that keep it. Duck-typed: this module imports no av.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field, replace
from pathlib import Path

from stereo_media.mp4_boxes import Mp4BoxError, track_formats
from stereo_media.stream_names import codec_name, ffmpeg_codec_names, ffmpeg_decoders
from stereo_media.teletext import stream_pages
from stereo_media.ts_program_map import ProgrammeMap, TeletextPage, read_programme_map

# The global tag of a side-streams file that says where the source's video began
# (its segments, joined by the concat demuxer from 0, no longer say): see
# ``stream_mux.side_streams_command``.
VIDEO_START_TAG = "STEREO_SPOT_VIDEO_START"
# A cover picture: FFmpeg's AV_DISPOSITION_ATTACHED_PIC on a video stream (an
# MP4's covr, an MKV's image attachment). In a side-streams file, which holds
# it as a one-frame track, COVER_TAG says what it is.
ATTACHED_PIC = 0x400
COVER_TAG = "STEREO_SPOT_COVER"
# Container tags every MP4 writer sets itself: none of them is the source's to keep.
WRITER_TAGS = ("major_brand", "minor_version", "compatible_brands", "encoder")
# A phone's own keys: Apple's QuickTime keys (an iPhone's location, make, model,
# software), Android's (its version, a slow-motion clip's capture rate). MP4
# writes them only as 'mdta' keys (use_metadata_tags), which would also write the
# writer tags again as keys of their own, so those are cleared then.
QUICKTIME_PREFIXES = ("com.apple.quicktime.", "com.android.")
# SMPTE timecode as FFmpeg reads and writes it (HH:MM:SS:FF, ';' or '.' before a
# drop-frame count); anything else is not passed on (the MP4 muxer refuses it).
TIMECODE = re.compile(r"\d{2}:\d{2}:\d{2}[:;.]\d{2,3}")
# Data tracks kept another way: a camera's timecode (``file_timecode``) and
# QuickTime chapter text (``-map_chapters``).
DATA_KEPT_OTHERWISE = frozenset({"tmcd", "text"})
TELETEXT_DECODER = "libzvbi_teletextdec"  # what turns teletext into text (not in every ffmpeg)


@dataclass(frozen=True)
class SourceStream:
    """One stream of the source, as its probe saw it."""

    kind: str  # audio, subtitle, attachment, cover, video (beside the film's), data
    codec: str  # a data track's MP4 sample entry (``gpmd``), "" when unknown
    channels: int = 0
    language: str | None = None
    title: str | None = None
    index: int | None = None  # in its file (a cover is mapped by it)
    pages: tuple[TeletextPage, ...] = ()  # a teletext stream's subtitle pages
    # a stream of another programme (channel) than the film's, in a recording of
    # a whole broadcast multiplex: not the film's to keep
    other_programme: bool = False


def describe_stream(stream) -> SourceStream:
    """A SourceStream from a PyAV stream (duck-typed: this module imports no av)."""
    cc = stream.codec_context
    meta = {k.lower(): v for k, v in stream.metadata.items()}
    return SourceStream(
        kind="cover" if is_cover(stream) else stream.type,
        codec=codec_name(cc) if cc is not None else "", index=stream.index,
        channels=(getattr(cc, "channels", 0) or 0) if stream.type == "audio" else 0,
        language=meta.get("language"), title=meta.get("title") or meta.get("name"),
    )


def is_cover(stream) -> bool:
    """True for a video stream that is a cover picture, not the film (duck-typed)."""
    if stream.type != "video":
        return False
    tags = {k.upper() for k in stream.metadata}
    return bool(int(getattr(stream, "disposition", 0) or 0) & ATTACHED_PIC) or COVER_TAG in tags


def main_video(container):
    """The film's video stream of an open PyAV ``container`` (not a cover), or None."""
    return next((s for s in container.streams.video if not is_cover(s)), None)


def video_start_s(container) -> float:
    """Seconds the first video stream of an open PyAV ``container`` starts after the
    file itself (a video that begins later than its audio, by a start offset or an
    edit list); 0 when it does not, or when that is unknown. ffmpeg starts every
    input at 0, so a mux that takes the video from another file must put it back
    there (``stream_mux.mux_command``'s ``video_start_s``), or audio and picture drift apart."""
    stream = main_video(container)
    if stream is None or container.start_time is None:
        return 0.0
    if stream.start_time is None or stream.time_base is None:
        return 0.0
    return max(0.0, float(stream.start_time * stream.time_base) - container.start_time / 1e6)


def kept_video_start_s(tags: dict[str, str]) -> float:
    """Where the source's video began, as a side-streams file's global ``tags``
    say (``stream_mux.side_streams_command``); 0 when they do not say."""
    for key, value in tags.items():
        if key.upper() == VIDEO_START_TAG:
            try:
                return max(0.0, float(value))
            except ValueError:
                return 0.0
    return 0.0


@dataclass(frozen=True)
class FileStreams:
    """What a mux needs to know of a file: a source, a side-streams file or a segment."""

    streams: list[SourceStream]  # the non-video ones
    video_tags: dict[str, str]  # the video's language/title (:func:`video_labels`)
    # where the source's video begins after its other streams: measured on a
    # file with a video, read back from a side-streams file's note otherwise
    video_start_s: float = 0.0
    timecode: str | None = None  # the source's start timecode (:func:`file_timecode`)
    quicktime: dict[str, str] = field(default_factory=dict)  # :func:`quicktime_tags`
    data: list[SourceStream] = field(default_factory=list)  # :func:`data_tracks`
    tagged: bool = False  # chapters, or global tags beyond a writer's own (:data:`WRITER_TAGS`)
    start_s: float = 0.0  # where the file's timeline begins (a broadcast's can be hours in)


def file_streams(container) -> FileStreams:
    """The FileStreams of an open PyAV ``container`` (duck-typed); its video
    streams beside the film (a second camera angle, another programme of a
    broadcast) are among ``streams`` as kind "video": no mux keeps them, each
    says so; so are other programmes' audio and subtitles (``other_programme``)."""
    film = main_video(container)
    # a transport stream's programme tables, read once: its teletext pages and
    # which streams are the film's programme's
    tables = (read_programme_map(Path(container.name))
              if "mpegts" in container.format.name.split(",") else ProgrammeMap())
    streams = _named(container, [describe_stream(s) for s in container.streams
                                 if s.type in ("audio", "subtitle", "attachment") or is_cover(s)
                                 or (s.type == "video" and s is not film)], tables)
    streams = _of_the_films_programme(container, film, streams, tables)
    video = describe_stream(film) if film is not None else None
    start = (video_start_s(container) if video is not None
             else kept_video_start_s(dict(container.metadata)))
    tagged = bool(container.chapters()) or any(key.lower() not in WRITER_TAGS
                                               for key in container.metadata)
    return FileStreams(streams, video_labels(video), start, file_timecode(container),
                       quicktime_tags(dict(container.metadata)), data_tracks(container), tagged,
                       (container.start_time or 0) / 1e6)


def _named(container, streams: list[SourceStream], tables: ProgrammeMap) -> list[SourceStream]:
    """``streams`` with the codec names PyAV's FFmpeg could not give (a DVB
    recording's teletext) taken from the ffmpeg command line's description,
    and a teletext stream's subtitle pages (``stereo_media.teletext``)."""
    if not any(s.kind == "subtitle" and not s.codec for s in streams):
        return streams
    path = Path(container.name)
    names = ffmpeg_codec_names(path, container.format.name.split(",")[0])
    named = [replace(s, codec=names.get(s.index, "")) if not s.codec and s.index is not None
             else s for s in streams]
    if TELETEXT_DECODER not in ffmpeg_decoders():  # pages no mux here could decode
        return named
    return [replace(s, pages=stream_pages(path, s.index,
                                          described=tables.pages(container.streams[s.index].id),
                                          language=s.language))
            if s.codec == "dvb_teletext" and s.index is not None else s for s in named]


def _of_the_films_programme(container, film, streams: list[SourceStream],
                            tables: ProgrammeMap) -> list[SourceStream]:
    """``streams``, those of another programme than the film's marked so (by
    the file's programme ``tables``): a transport stream recorded whole
    carries other channels' pictures, sound and subtitles."""
    if film is None:
        return streams
    programmes = tables.programmes()
    films = next((pids for pids in programmes if film.id in pids), None)
    if films is None:
        return streams
    # only what another programme's map lists (and the film's does not): a
    # stream no map read names stays the film's
    others = set().union(*programmes) - films
    return [replace(s, other_programme=True)
            if s.index is not None and container.streams[s.index].id in others else s
            for s in streams]


def data_tracks(container) -> list[SourceStream]:
    """The timed data tracks of an open PyAV ``container`` (duck-typed), each named
    by its MP4 sample entry, which PyAV does not expose (read from the file's
    boxes; "" where unknown), less those kept another way (:data:`DATA_KEPT_OTHERWISE`)."""
    found = [s for s in container.streams if s.type == "data"]
    if not found:
        return []
    formats: list[str] = []
    if "mov" in container.format.name.split(","):
        try:
            formats = track_formats(Path(container.name))  # the streams' own order
        except (Mp4BoxError, OSError, struct.error):
            formats = []
    tracks = [SourceStream("data", formats[s.index] if s.index < len(formats) else "",
                           index=s.index) for s in found]
    return [t for t in tracks if t.codec not in DATA_KEPT_OTHERWISE]


def quicktime_tags(tags: dict[str, str]) -> dict[str, str]:
    """The phone's QuickTime keys (:data:`QUICKTIME_PREFIXES`) among a file's
    global ``tags``, spelt as the phone does (all lower case but Apple's
    ``ISO6709``; an MKV side file upper-cases tag names)."""
    return {key.lower().replace("iso6709", "ISO6709"): value for key, value in tags.items()
            if key.lower().startswith(QUICKTIME_PREFIXES)}


def file_timecode(container) -> str | None:
    """The start timecode of an open PyAV ``container``: a camera's ``tmcd``
    track (MP4/MOV, read as a data stream's or the video's ``timecode`` tag), or
    a global ``timecode`` tag (MKV); None when there is none or it is not a
    SMPTE timecode (:data:`TIMECODE`)."""
    tagged = [s.metadata for s in container.streams if s.type in ("video", "data")]
    for tags in [*tagged, container.metadata]:
        for key, value in tags.items():
            if key.lower() == "timecode" and TIMECODE.fullmatch(value.strip()):
                return value.strip()
    return None


def video_labels(video: SourceStream | None) -> dict[str, str]:
    """The language and title worth carrying over from the source's video stream."""
    if video is None:
        return {}
    return {k: v for k, v in (("language", video.language), ("title", video.title))
            if v and v != "und"}
