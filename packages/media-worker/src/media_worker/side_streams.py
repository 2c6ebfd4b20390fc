"""Keep what the segments do not carry, and give it back to the final file.

Segments hold video only: cutting subtitles and chapters at keyframes with
``-c copy`` loses them, and an MP4 segment cannot hold every audio codec. So at
chunking every non-video stream of the source (all audio tracks, subtitles,
attachments), its chapters and tags are kept aside in one MKV
(``keys.streams_key``), and its data tracks, which MKV cannot hold (a GoPro's
telemetry), in an MP4 (``keys.data_tracks_key``); at reassembly the joined
video and those files are muxed into the job's container
(``stereo_media.stream_mux``), with the stereo signalling players read (MKV
StereoMode, MP4 ``st3d``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from shared_types.left_out import left_out_sentence
from shared_types.models import Container, OutputMode, stereo_packing
from stereo_media.errors import FfmpegFailedError, UnusableVideoError
from stereo_media.ffmpeg_runner import VIDEO_DEMUXERS, FfmpegRunner
from stereo_media.source_streams import FileStreams, file_streams
from stereo_media.spherical_boxes import add_vr180_metadata
from stereo_media.stereo_boxes import add_st3d
from stereo_media.stream_mux import (
    NothingToKeepError,
    cover_extract_command,
    covers_to_extract,
    data_tracks_command,
    mux_command,
    side_streams_command,
)

from media_worker.concat import concat_input
from media_worker.segment_timeline import concat_durations_us, file_starts_us

log = logging.getLogger(__name__)
CONTENT_TYPES = {Container.MP4: "video/mp4", Container.MKV: "video/x-matroska"}
# what chunking writes streams.mkv as: an MKV, or FFmetadata text for a source with
# chapters or tags but no stream beside its picture (side_streams_command)
SIDE_FILE_FORMATS = f"{VIDEO_DEMUXERS},ffmetadata"


def streams_of(path: Path, *, formats: str = VIDEO_DEMUXERS) -> FileStreams:
    """The non-video streams of ``path``, its video's language/title and start,
    read by one of the ``formats`` (FFmpeg demuxers).
    Raises UnusableVideoError when it cannot be opened."""
    import av  # vendor import stays in this module

    try:
        with av.open(str(path), options={"format_whitelist": formats}) as container:
            return file_streams(container)
    except (av.error.FFmpegError, OSError) as exc:
        raise UnusableVideoError("The file is not a video we can read.") from exc


@dataclass(frozen=True)
class SideFiles:
    """What chunking kept aside of a source, each None when it had none."""

    streams: Path | None = None  # MKV: audio, subtitles, attachments, covers, chapters, tags
    data: Path | None = None  # MP4: data tracks (telemetry)
    left_out: tuple[str, ...] = ()  # what no output can hold (ARIB captions), named for people


def keep_side_streams(runner: FfmpegRunner, source: Path, folder: Path, *,
                      on_tick: Callable[[], None] | None = None) -> SideFiles:
    """Copy every non-video stream, chapter and tag of ``source`` into
    ``folder/streams.mkv`` (FFmetadata text when it has only chapters and tags:
    ``stream_mux.side_streams_command``), noting where the source's video began (the joined
    segments start at 0), and the data tracks an MP4 keeps into ``folder/data.mp4``;
    a file is left out when the source has nothing for it. Audio that cannot be
    copied (a damaged recording) is decoded and encoded again instead.
    Raises Ffmpeg*Error."""
    found = streams_of(source)
    streams_file, data_file = folder / "streams.mkv", folder / "data.mp4"
    streams: Path | None = streams_file
    data: Path | None = data_file

    def keep(repair_audio: bool) -> list[str]:
        args, dropped = side_streams_command(source, streams_file, found.streams,
                                             video_start_s=found.video_start_s,
                                             tagged=found.tagged, repair_audio=repair_audio)
        runner.run(args, on_tick=on_tick, what="keep audio and subtitles aside")
        return dropped
    left_out: list[str] = []
    try:
        left_out = keep(repair_audio=False)
    except NothingToKeepError as nothing:
        streams, left_out = None, nothing.left_out
    except FfmpegFailedError as exc:  # a damaged audio frame stops a copy: decode it instead
        log.warning("copying %s's audio aside failed, encoding it again: %s", source.name, exc)
        left_out = keep(repair_audio=True)
    if left_out:
        log.warning("no output can hold %s of %s; they are left out", ", ".join(left_out),
                    source.name)
    try:
        runner.run(data_tracks_command(source, data_file, found.data), on_tick=on_tick,
                   what="keep the telemetry aside")
    except NothingToKeepError:
        data = None
    return SideFiles(streams, data, tuple(left_out))


def mux_final(runner: FfmpegRunner, segments: Sequence[Path], side: SideFiles, dest: Path,
              *, container: Container, mode: OutputMode, timecode: str | None = None,
              on_tick: Callable[[], None] | None = None, cross_eyed: bool = False) -> list[str]:
    """Write ``dest`` in one ffmpeg pass: the converted ``segments`` joined in
    order, each frame at its source timestamp (``segment_timeline``), plus
    everything kept aside (``side``) and the source's start ``timecode`` (the
    job's: a video-only source has no side file), marked as 3D for SBS/TB.
    Returns what ``container`` could not hold of it, named for people.
    Raises ValueError for segments outside ``dest``'s folder, Ffmpeg*Error or
    Mp4BoxError."""
    data = streams_of(side.data).data if side.data is not None else []
    side_file = side.streams
    kept = (streams_of(side_file, formats=SIDE_FILE_FORMATS) if side_file is not None
            else FileStreams([], {}))
    packing = stereo_packing(mode, cross_eyed=cross_eyed)  # a cross-eyed file says none
    labels = _carried_labels(segments[0])
    durations = concat_durations_us(file_starts_us(segments))
    joined = concat_input(segments, dest.parent / "concat.txt", durations)
    covers = covers_to_extract(kept.streams, container, dest.parent) if side_file else []
    for stream, path in covers:  # an MKV takes its covers as attachments, from files
        assert side_file is not None  # covers come only from a side file
        runner.run(cover_extract_command(side_file, stream, path), on_tick=on_tick,
                   what="copy the cover out")
    args, dropped = mux_command(segments[0], side_file or segments[0], dest,
                                container=container,
                                streams=kept.streams, packing=packing,
                                video_tags=labels, video_input=joined,
                                video_start_s=kept.video_start_s,
                                streams_start_s=kept.start_s if side_file else 0.0,
                                timecode=timecode,
                                cover_files=[path for _, path in covers],
                                quicktime=kept.quicktime, data=data, data_source=side.data,
                                source_formats=SIDE_FILE_FORMATS)
    if dropped:
        log.warning("not in the final file: %s", left_out_sentence(dropped, container))
    runner.run(args, on_tick=on_tick, what="add audio and subtitles")
    if container is Container.MP4 and packing:
        add_st3d(dest, packing)
    if container is Container.MP4 and mode is OutputMode.VR180:
        add_vr180_metadata(dest)  # the segments' sv3d, which the mux does not copy
    return dropped


def _carried_labels(segment: Path) -> dict[str, str]:
    """The source video's language and title, which travelled with the picture
    in every converted segment (the side file has no video stream); none when
    the segment cannot be read here (the mux then says what is wrong with it)."""
    try:
        return streams_of(segment).video_tags
    except UnusableVideoError:
        return {}
