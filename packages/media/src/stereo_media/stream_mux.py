"""The final mux: a new video stream plus every other stream of the source.

Both paths end here: the engine (one converted file) and reassembly (the
concatenated segments). ffmpeg copies each audio track the container can hold
(else re-encodes it to AAC with the same channel layout), text subtitles
(to ``mov_text`` in MP4, as-is in MKV), bitmap subtitles and attachments (MKV
only), chapters, global tags, per-stream language/title, the source's start
timecode (MP4 writes it as a ``tmcd`` track, MKV as a ``TIMECODE`` tag) and its
cover art (MP4: an attached picture again; MKV: an image attachment, from a
copy the caller extracts first with :func:`cover_extract_command`, since its
muxer would make a copied picture a second video track), a camera's telemetry
track (MP4 only: :data:`KEPT_DATA`), and adds the stereo signalling MKV players
read (``StereoMode``). MP4's ``st3d`` box is added after
the mux by :mod:`stereo_media.stereo_boxes`. What a file carries is read by
:mod:`stereo_media.source_streams`. This module only builds argv lists;
callers run them with their own timeouts.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from shared_types.left_out import extra_video_name, other_programme_name
from shared_types.models import Container

from stereo_media.demuxers import VIDEO_DEMUXERS, file_only
from stereo_media.source_streams import (
    COVER_TAG,
    TIMECODE,
    VIDEO_START_TAG,
    WRITER_TAGS,
    SourceStream,
)

TEXT_SUBTITLES = frozenset({"subrip", "srt", "ass", "ssa", "mov_text", "webvtt", "text"})
# Picture subtitles MKV holds (Blu-ray PGS, DVD, DVB). Anything else a source may
# carry as a subtitle stream (ARIB, others) but caption tracks and teletext (below)
# no muxer here writes: copying one fails the whole mux, so it is left out.
# (Codecs by FFmpeg's codec names: ``stream_names.codec_name``.)
MKV_BITMAP_SUBTITLES = frozenset({"hdmv_pgs_subtitle", "dvd_subtitle", "dvb_subtitle"})
# CEA-608 captions as a track of their own (a MOV's c608: broadcast and editing
# tools write them), which no muxer here copies: FFmpeg's caption decoder turns
# them into text, kept like any text subtitle.
CAPTION_TRACKS = frozenset({"eia_608"})
# A DVB recording's teletext: its subtitle pages (``SourceStream.pages``, found by
# ``stereo_media.teletext``; not the rest of the service) become text through the
# command line's libzvbi decoder, each page lasting until the next one
# (``TELETEXT_DECODING``), each page a track of its own in its language: the
# decoder takes one page per input, so a page after the first reads the source
# again as an input of its own (:func:`teletext_inputs`; decoded together, two
# languages' pages would cut each other's lines short). PyAV cannot even name
# the stream (``stream_names`` does).
TELETEXT = frozenset({"dvb_teletext"})
TELETEXT_DECODING = ("-fix_sub_duration:s:{k}", "-txt_format:s:{k}", "text",
                     "-txt_page:s:{k}", "{page}")
HARD_OF_HEARING = " (hard of hearing)"  # after a teletext page's title
# what a track turned into text is titled when it has no title of its own
TEXT_TITLES = {**dict.fromkeys(CAPTION_TRACKS, "Closed captions"),
               **dict.fromkeys(TELETEXT, "Teletext subtitles")}
SUBTITLE_NAMES = {
    "hdmv_pgs_subtitle": "Blu-ray (PGS) subtitles", "dvd_subtitle": "DVD subtitles",
    "dvb_subtitle": "DVB subtitles", "dvb_teletext": "teletext", "eia_608": "closed captions",
}
# Audio an MP4 holds and common players decode; anything else becomes AAC.
MP4_AUDIO = frozenset({"aac", "mp3", "ac3", "eac3", "opus", "flac", "alac"})
MKV_STEREO_MODE = {"sbs": "left_right", "tb": "top_bottom"}
MUXERS = {Container.MP4: "mp4", Container.MKV: "matroska"}
_START_EPSILON_S = 0.0005  # below this the video starts with the file
AAC_BITRATE_PER_CHANNEL = 96_000
# A disposition given to one stream by hand, changing nothing: ffmpeg then copies
# every stream's as it is, where it would otherwise mark the first track of each
# kind default when the source marks none (a subtitle the source leaves off
# would show by itself). The final mux sets the video's instead.
AS_THEY_ARE = ("-disposition:0", "+0")
# Audio decoded past damaged frames keeps its place: every gap in its timestamps
# over 10 ms (a lost AAC frame is 21 ms; aresample's default ignores gaps up
# to 100 ms) is filled with silence, so the rest stays in step with the picture.
REPAIR_AUDIO_FILTER = "aresample=async=1:min_hard_comp=0.01"
# what MP4's covr holds, and each one's file suffix and MIME type as an MKV attachment
COVER_FILES = {"mjpeg": ("jpg", "image/jpeg"), "png": ("png", "image/png"),
               "bmp": ("bmp", "image/bmp")}
# Timed data tracks worth keeping, by their MP4 sample entry, with what a log
# calls them: ffmpeg's MP4 muxer writes these back (a GoPro's GPMF: GPS,
# accelerometer, gyroscope), and MKV holds no data track at all.
KEPT_DATA = {"gpmd": "GoPro telemetry (gpmd)"}


class NothingToKeepError(ValueError):
    """A side file was asked for but the source has nothing of its kind
    (``left_out``: what it has that the file could not hold)."""

    def __init__(self, message: str, left_out: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.left_out = list(left_out)


def container_of(path: Path, default: Container = Container.MP4) -> Container:
    """The container a file name asks for (``.mkv`` -> MKV, else ``default``)."""
    return Container.MKV if Path(path).suffix.lower() == ".mkv" else default


def stream_args(streams: list[SourceStream], container: Container, input_index: int = 1,
                *, side_file: bool = False, repair_audio: bool = False,
                pages_input: int | None = None) -> tuple[list[str], list[str]]:
    """(argv maps and codecs, names of streams dropped) to keep ``streams`` of
    input ``input_index`` in ``container`` beside the film's video (or, for a
    ``side_file``, in an MKV without one). MP4 drops bitmap subtitles and
    attachments, which it cannot hold, and covers it cannot show; both drop
    subtitle streams neither holds (a broadcast's teletext, a caption track:
    anything but text and :data:`MKV_BITMAP_SUBTITLES`); a final MKV
    leaves covers to :func:`mux_command`'s ``cover_files`` (a copied picture
    would play as a second video track); a side file keeps them as tagged
    one-frame tracks. ``repair_audio``: every audio track decoded and encoded
    again (AAC) instead of copied, gaps filled with silence so it stays in step
    with the picture: what a damaged source needs when a copy fails (a broadcast
    recording's broken ADTS header stops ffmpeg's copy; its decoder skips the frame).
    ``pages_input``: the first of the inputs :func:`teletext_inputs` adds, which
    decode the teletext pages after each stream's first (none: those are left out)."""
    args: list[str] = []
    dropped: list[str] = []
    n_audio = n_subs = 0
    n_video = 0 if side_file else 1  # in a final file the film's video comes first
    per_kind: dict[str, int] = {}
    page_inputs = itertools.count(pages_input) if pages_input is not None else iter(())
    for stream in streams:
        k = per_kind.get(stream.kind, 0)
        per_kind[stream.kind] = k + 1
        if stream.other_programme:  # another channel's, in a recorded multiplex
            dropped.append(other_programme_name(stream.kind, k + 1 + (stream.kind == "video")))
        elif stream.kind == "audio":
            args += ["-map", f"{input_index}:a:{k}",
                     *_audio_codec(stream, container, n_audio, repair_audio),
                     *_labels(stream, f"a:{n_audio}")]
            n_audio += 1
        elif stream.kind == "subtitle":
            codec = _subtitle_codec(stream, container)
            if codec is None:
                dropped.append(subtitle_name(stream.codec))
                continue
            if stream.codec in TEXT_TITLES and not stream.title:  # named once text
                stream = replace(stream, title=TEXT_TITLES[stream.codec])
            for source, track in _subtitle_tracks(stream, input_index, page_inputs, dropped):
                args += ["-map", f"{source}:s:{k}", f"-c:s:{n_subs}", codec,
                         *_labels(track, f"s:{n_subs}")]
                if track.title and track.title.endswith(HARD_OF_HEARING):
                    args += [f"-disposition:s:{n_subs}", "hearing_impaired"]
                n_subs += 1
        elif stream.kind == "attachment":
            if container is Container.MKV:
                args += ["-map", f"{input_index}:t:{k}", "-c:t", "copy"]
            else:
                dropped.append("attachment")
        elif stream.kind == "video":  # beside the film's: only one picture is made 3D
            dropped.append(extra_video_name(per_kind["video"] + 1))
        elif stream.kind == "cover":
            cover = _cover_args(stream, container, input_index, n_video, side_file)
            if cover is None:
                dropped.append("cover art")
                continue
            args += cover
            n_video += 1
    return args, dropped


def decoding_args(streams: Sequence[SourceStream]) -> list[str]:
    """Input options (before the ``-i`` of the file ``streams`` are read from)
    that make the first subtitle page of each teletext stream text
    (:data:`TELETEXT_DECODING`), and let the mux finish when a damaged teletext
    packet does not decode."""
    args: list[str] = []
    for k, stream in _teletext(streams):
        args += _page_decoding(k, stream.pages[0].number)
    return ["-max_error_rate", "1", *args] if args else []


def teletext_inputs(streams: Sequence[SourceStream], source: Path) -> list[str]:
    """Inputs reading ``source`` once more for each teletext subtitle page
    after its stream's first, each decoding that page (in the order
    :func:`stream_args` maps them from its ``pages_input`` on)."""
    args: list[str] = []
    for k, stream in _teletext(streams):
        for page in stream.pages[1:]:
            args += [*_page_decoding(k, page.number), *file_only(),
                     "-i", str(source)]
    return args


def _teletext(streams: Sequence[SourceStream]) -> list[tuple[int, SourceStream]]:
    """(index among the subtitle streams, stream) of each teletext stream with pages."""
    subtitles = [s for s in streams if s.kind == "subtitle"]
    return [(k, s) for k, s in enumerate(subtitles)
            if s.codec in TELETEXT and s.pages and not s.other_programme]


def _page_decoding(k: int, page: str) -> list[str]:
    return [a.format(k=k, page=page) for a in TELETEXT_DECODING]


def _subtitle_tracks(stream: SourceStream, input_index: int, page_inputs, dropped: list[str]
                     ) -> list[tuple[int, SourceStream]]:
    """(input, labels) of each output track subtitle ``stream`` makes: itself,
    or one per teletext page (a page after the first from the next of
    ``page_inputs``; left out, named in ``dropped``, when there are none)."""
    if stream.codec not in TELETEXT:
        return [(input_index, stream)]
    tracks = []
    for n, page in enumerate(stream.pages):
        source = input_index if n == 0 else next(page_inputs, None)
        if source is None:
            dropped.append(f"teletext page {page.number}")
            continue
        title = (stream.title or "") + (HARD_OF_HEARING if page.hard_of_hearing else "")
        tracks.append((source, replace(stream, language=page.language, title=title or None)))
    return tracks


def subtitle_name(codec: str) -> str:
    """What people call a subtitle stream of ``codec`` (a codec or PyAV's decoder name)."""
    if not codec:  # no decoder to name it (PyAV's FFmpeg reads no teletext)
        return "subtitles in a format it cannot read"
    return SUBTITLE_NAMES.get(codec, f"{codec} subtitles")


def _keepable_cover(stream: SourceStream) -> bool:
    """A cover a mux can carry: one it can map (by index) in a format MP4 shows."""
    return stream.kind == "cover" and stream.index is not None and stream.codec in COVER_FILES


def _cover_args(stream: SourceStream, container: Container, input_index: int, out: int,
                side_file: bool) -> list[str] | None:
    if not _keepable_cover(stream):
        return None
    # a cover carries no timecode (a camera's tools may tag every video stream
    # with one; MP4 would give the picture a tmcd track at a rate it refuses)
    mapped = ["-map", f"{input_index}:{stream.index}", f"-c:v:{out}", "copy",
              f"-metadata:s:v:{out}", "timecode="]
    if side_file:
        return [*mapped, f"-metadata:s:v:{out}", f"{COVER_TAG}=1"]
    if container is Container.MP4:
        return [*mapped, f"-disposition:v:{out}", "attached_pic",
                f"-metadata:s:v:{out}", f"{COVER_TAG}="]
    return None


def _labels(stream: SourceStream, spec: str) -> list[str]:
    # set explicitly: MP4 reads a track title back as "name", which a plain
    # copy would not write again as a title (and would copy into an MKV as a
    # second tag, NAME, beside the title: cleared, as for the film's)
    out = []
    for key, value in (("language", stream.language), ("title", stream.title)):
        if value:
            out += [f"-metadata:s:{spec}", f"{key}={value}"]
    return [*out, f"-metadata:s:{spec}", "name="] if stream.title else out


def _audio_codec(stream: SourceStream, container: Container, n: int,
                 repair: bool = False) -> list[str]:
    if not repair and (container is Container.MKV or stream.codec in MP4_AUDIO):
        return [f"-c:a:{n}", "copy"]
    bitrate = AAC_BITRATE_PER_CHANNEL * max(1, min(8, stream.channels or 2))
    aac = [f"-c:a:{n}", "aac", f"-b:a:{n}", str(bitrate)]
    return [*aac, f"-filter:a:{n}", REPAIR_AUDIO_FILTER] if repair else aac


def _subtitle_codec(stream: SourceStream, container: Container) -> str | None:
    if stream.codec in TELETEXT and not stream.pages:  # a service without subtitles
        return None
    decoded = stream.codec in TEXT_TITLES  # caption tracks and teletext, made text
    if container is Container.MP4:
        return "mov_text" if decoded or stream.codec in TEXT_SUBTITLES else None
    if stream.codec == "mov_text" or decoded:
        return "srt"
    text = stream.codec in TEXT_SUBTITLES
    return "copy" if text or stream.codec in MKV_BITMAP_SUBTITLES else None


def mux_command(video: Path, source: Path, output: Path, *, container: Container,
                streams: list[SourceStream], packing: str | None,
                video_tags: dict[str, str] | None = None,
                video_input: Sequence[str] | None = None,
                video_start_s: float = 0.0,
                streams_start_s: float = 0.0,
                copy_timestamps: bool = False,
                timecode: str | None = None,
                cover_files: Sequence[Path] = (),
                quicktime: dict[str, str] | None = None,
                data: Sequence[SourceStream] = (),
                data_source: Path | None = None,
                repair_audio: bool = False,
                shift_s: float = 0.0,
                source_formats: str = VIDEO_DEMUXERS) -> tuple[list[str], list[str]]:
    """ffmpeg arguments (without the binary) that write ``output``: the first
    video stream of ``video`` copied, plus ``streams`` of ``source`` (see
    :func:`stream_args`), its chapters and global tags. ``packing`` ("sbs",
    "tb" or None) sets MKV's StereoMode; ``video_tags`` (language, title) label
    the video stream. ``video_input``: input arguments that read the video
    instead of the file ``video`` (segments joined by the concat demuxer).
    ``source_formats``: the demuxers ``source`` may be read with (a side file
    written by chunking may be FFmetadata text).
    ``video_start_s``: where the video begins on the source's timeline, after
    its other streams (:func:`video_start_s`). ``streams_start_s``: where the
    first stream of ``source`` begins on that timeline (a side-streams file
    begins at its first stream: when every stream beside the picture starts
    after it, a late soundtrack); ffmpeg starts each input at 0, so the later
    of the two inputs is put back at its distance from the other.
    ``copy_timestamps``: ``video``
    already carries the source's own timestamps (the engine's encode), so every
    stream keeps its timestamps as they are (``-copyts``; ``video_start_s`` is
    then not needed): a segment's output stays where the segment lies on the
    source's timeline. ``timecode``: the source's start timecode
    (:func:`file_timecode`), kept as MP4's ``tmcd`` track or MKV's tag.
    ``cover_files``: an MKV's covers, extracted (:func:`covers_to_extract`), attached.
    ``quicktime``: Apple's keys (:func:`quicktime_tags`), kept in MP4 as 'mdta'
    keys (MKV keeps them as tags through ``-map_metadata``). ``data``: the data
    tracks (:func:`data_tracks`) of ``data_source`` (default ``source``), kept in
    MP4 (:func:`data_track_args`). ``repair_audio``: see :func:`stream_args`.
    ``shift_s``: seconds taken off every timestamp kept by ``copy_timestamps``
    (the source's own start: a whole file then begins at 0, as a plain ffmpeg
    copy would, instead of after an empty edit as long as a broadcast's clock).
    Returns (args, names of dropped streams)."""
    data_maps, data_dropped = data_track_args(data, container, input_index=2)
    data_input = ([*file_only(), "-i", str(data_source or source)]
                  if data_maps else [])
    keep, dropped = stream_args(streams, container, repair_audio=repair_audio,
                                pages_input=3 if data_maps else 2)
    dropped += data_dropped
    if container is Container.MKV:
        keep += _attach_args(cover_files, sum(s.kind == "attachment" for s in streams))
        for _ in cover_files:
            dropped.remove("cover art")
    video_args = list(video_input or [*file_only(), "-i", str(video)])
    lead = 0.0 if copy_timestamps else video_start_s - streams_start_s
    if lead > _START_EPSILON_S:  # the picture begins after the rest
        video_args = ["-itsoffset", f"{lead:.6f}", *video_args]
    source_offset = ["-itsoffset", f"{-lead:.6f}"] if lead < -_START_EPSILON_S else []
    timing = ["-copyts"] if copy_timestamps else []
    args = ["-hide_banner", "-loglevel", "error", "-y", "-nostdin", *timing, *video_args,
            *file_only(source_formats), *decoding_args(streams), *source_offset,
            "-i", str(source),
            *data_input, *teletext_inputs(streams, source),
            "-map", "0:v:0", "-c:v", "copy", "-disposition:v:0", "default", *keep, *data_maps,
            "-map_metadata", "1", "-map_chapters", "1",
            "-metadata", f"{VIDEO_START_TAG}="]  # (a side file's note, not the user's tag)
    for key, value in (video_tags or {}).items():
        args += ["-metadata:s:v:0", f"{key}={value}"]
    if video_tags and "title" in video_tags:  # an MP4 input's spelling of it, not a second tag
        args += ["-metadata:s:v:0", "name="]
    if container is Container.MKV and packing in MKV_STEREO_MODE:
        args += ["-metadata:s:v:0", f"stereo_mode={MKV_STEREO_MODE[packing]}"]
    if timecode and TIMECODE.fullmatch(timecode):
        # on the film's stream, not the file: MP4 gives every video stream a tmcd
        # track from a file-wide timecode, a cover's too, whose rate it refuses
        args += ["-metadata:s:v:0", f"timecode={timecode}", "-metadata", "timecode="]
    if container is Container.MP4 and quicktime:
        for key in WRITER_TAGS:
            args += ["-metadata", f"{key}="]
        for key, value in quicktime.items():
            args += ["-metadata", f"{key}={value}"]
        args += ["-movflags", "+faststart+use_metadata_tags"]
    elif container is Container.MP4:
        args += ["-movflags", "+faststart"]
    if copy_timestamps and shift_s > _START_EPSILON_S:  # (an output option)
        args += ["-output_ts_offset", f"{-shift_s:.6f}"]
    args += ["-f", MUXERS[container], str(output)]
    return args, dropped


def data_track_args(data: Sequence[SourceStream], container: Container,
                    input_index: int) -> tuple[list[str], list[str]]:
    """(argv maps, names of tracks dropped) to copy the ``data`` tracks of input
    ``input_index`` into ``container``: those of :data:`KEPT_DATA` into MP4, by
    index; every other one, and every one in MKV, is dropped."""
    args: list[str] = []
    dropped: list[str] = []
    kept = 0
    for track in data:
        if container is Container.MP4 and track.codec in KEPT_DATA and track.index is not None:
            args += ["-map", f"{input_index}:{track.index}", f"-c:d:{kept}", "copy"]
            kept += 1
        else:
            dropped.append(KEPT_DATA.get(track.codec) or f"a data track ({track.codec or '?'})")
    return args, dropped


def data_tracks_command(source: Path, output: Path, data: Sequence[SourceStream]) -> list[str]:
    """ffmpeg arguments that copy the ``data`` tracks of ``source`` an MP4 keeps
    into the MP4 ``output`` (a side file beside the MKV of :func:`side_streams_command`,
    which cannot hold them). Raises NothingToKeepError when there is none to keep."""
    maps, _ = data_track_args(data, Container.MP4, input_index=0)
    if not maps:
        raise NothingToKeepError("the source has no data track an MP4 keeps")
    return ["-hide_banner", "-loglevel", "error", "-y", "-nostdin",
            *file_only(), "-i", str(source), *maps,
            "-map_metadata", "-1", "-map_chapters", "-1", "-f", "mp4", str(output)]


def covers_to_extract(streams: list[SourceStream], container: Container,
                      folder: Path) -> list[tuple[SourceStream, Path]]:
    """The covers among ``streams`` that an output in ``container`` takes as files
    (MKV attachments), each with the path in ``folder`` to extract it to."""
    if container is not Container.MKV:
        return []
    covers = [s for s in streams if _keepable_cover(s)]
    return [(s, folder / f"cover{'' if n == 0 else n + 1}.{COVER_FILES[s.codec][0]}")
            for n, s in enumerate(covers)]


def cover_extract_command(source: Path, stream: SourceStream, dest: Path) -> list[str]:
    """ffmpeg arguments that copy the cover ``stream`` of ``source`` to the image ``dest``."""
    return ["-hide_banner", "-loglevel", "error", "-y", "-nostdin",
            *file_only(), "-i", str(source),
            "-map", f"0:{stream.index}", "-c", "copy", "-frames:v", "1", "-f", "image2",
            str(dest)]


def _attach_args(files: Sequence[Path], first: int) -> list[str]:
    mime = {suffix: kind for suffix, kind in COVER_FILES.values()}
    args: list[str] = []
    for n, path in enumerate(files, first):
        args += ["-attach", str(path),
                 f"-metadata:s:t:{n}", f"mimetype={mime[path.suffix.lstrip('.')]}",
                 f"-metadata:s:t:{n}", f"filename={path.name}"]
    return args


def side_streams_command(source: Path, output: Path, streams: list[SourceStream], *,
                         video_start_s: float = 0.0, tagged: bool = False,
                         repair_audio: bool = False) -> tuple[list[str], list[str]]:
    """ffmpeg arguments that keep every non-video stream of ``source`` (audio,
    subtitles, attachments, covers), its chapters and tags in an MKV at ``output``,
    copied (``mov_text``, which MKV cannot hold, becomes SubRip), noting where
    the source's video began (``video_start_s``, read back by
    :func:`kept_video_start_s`). A source with none of those streams but
    chapters or tags of its own (``tagged``: :attr:`FileStreams.tagged`) gets
    them in an FFmetadata text file instead (an MKV needs a stream), which a
    mux reads like any input. ``repair_audio``: see :func:`stream_args`.
    Returns (args, names of the streams it leaves out); raises
    NothingToKeepError when there is nothing to keep."""
    keep, dropped = stream_args(streams, Container.MKV, input_index=0, side_file=True,
                                repair_audio=repair_audio, pages_input=1)
    if not keep and not tagged:
        raise NothingToKeepError("the source has nothing beside its picture to keep", dropped)
    note = (["-metadata", f"{VIDEO_START_TAG}={video_start_s:.6f}"]
            if video_start_s > _START_EPSILON_S else [])
    return ["-hide_banner", "-loglevel", "error", "-y", "-nostdin",
            *file_only(), *decoding_args(streams), "-i", str(source),
            *teletext_inputs(streams, source),
            *(AS_THEY_ARE if keep else []), *keep,  # (a later stream's own disposition wins)
            "-map_metadata", "0", "-map_chapters", "0", *note,
            "-f", "matroska" if keep else "ffmetadata", str(output)], dropped
