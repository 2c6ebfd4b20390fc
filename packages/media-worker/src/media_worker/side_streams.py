"""Keep what the segments do not carry, and give it back to the final file.

Segments hold video only: cutting subtitles and chapters at keyframes with
``-c copy`` loses them, and an MP4 segment cannot hold every audio codec. So at
chunking every non-video stream of the source (all audio tracks, subtitles,
attachments), its chapters and tags are kept aside in one MKV
(``keys.streams_key``); at reassembly the joined video and that file are muxed
into the job's container (``shared_types.stream_mux``), with the stereo
signalling players read (MKV StereoMode, MP4 ``st3d``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from shared_types.models import Container, OutputMode, packing_of
from shared_types.stereo_boxes import add_st3d
from shared_types.stream_mux import (
    FileStreams,
    cover_extract_command,
    covers_to_extract,
    file_streams,
    mux_command,
    side_streams_command,
)

from media_worker.concat import concat_input
from media_worker.errors import UnusableVideoError
from media_worker.ffmpeg_runner import VIDEO_DEMUXERS, FfmpegRunner
from media_worker.segment_timeline import concat_durations_us, file_starts_us

log = logging.getLogger(__name__)
CONTENT_TYPES = {Container.MP4: "video/mp4", Container.MKV: "video/x-matroska"}


def streams_of(path: Path) -> FileStreams:
    """The non-video streams of ``path``, its video's language/title and start.
    Raises UnusableVideoError when it cannot be opened."""
    import av  # vendor import stays in this module

    try:
        with av.open(str(path), options={"format_whitelist": VIDEO_DEMUXERS}) as container:
            return file_streams(container)
    except (av.error.FFmpegError, OSError) as exc:
        raise UnusableVideoError("The file is not a video we can read.") from exc


def keep_side_streams(runner: FfmpegRunner, source: Path, dest: Path, *,
                      on_tick: Callable[[], None] | None = None) -> Path | None:
    """Copy every non-video stream, chapter and tag of ``source`` into the MKV
    ``dest``, noting where the source's video began (the joined segments start at 0);
    None when the source has nothing but video. Raises Ffmpeg*Error."""
    found = streams_of(source)
    try:
        args = side_streams_command(source, dest, found.streams,
                                    video_start_s=found.video_start_s)
    except ValueError:
        return None
    runner.run(args, on_tick=on_tick, what="keep audio and subtitles aside")
    return dest


def mux_final(runner: FfmpegRunner, segments: Sequence[Path], side: Path | None, dest: Path,
              *, container: Container, mode: OutputMode, timecode: str | None = None,
              on_tick: Callable[[], None] | None = None) -> Path:
    """Write ``dest`` in one ffmpeg pass: the converted ``segments`` joined in
    order, each frame at its source timestamp (``segment_timeline``), plus
    everything kept in ``side`` (when there is one) and the source's start
    ``timecode`` (the job's: a video-only source has no side file), marked as
    3D for SBS/TB.
    Raises ValueError for segments outside ``dest``'s folder, Ffmpeg*Error or
    Mp4BoxError."""
    kept = streams_of(side) if side is not None else FileStreams([], {})
    labels = _carried_labels(segments[0])
    durations = concat_durations_us(file_starts_us(segments))
    joined = concat_input(segments, dest.parent / "concat.txt", durations)
    covers = covers_to_extract(kept.streams, container, dest.parent) if side else []
    for stream, path in covers:  # an MKV takes its covers as attachments, from files
        runner.run(cover_extract_command(side, stream, path), on_tick=on_tick,
                   what="copy the cover out")
    args, dropped = mux_command(segments[0], side or segments[0], dest, container=container,
                                streams=kept.streams, packing=packing_of(mode),
                                video_tags=labels, video_input=joined,
                                video_start_s=kept.video_start_s, timecode=timecode,
                                cover_files=[path for _, path in covers],
                                quicktime=kept.quicktime)
    if dropped:
        log.warning("%s cannot hold %s; they are left out", container.value, ", ".join(dropped))
    runner.run(args, on_tick=on_tick, what="add audio and subtitles")
    if container is Container.MP4 and packing_of(mode):
        add_st3d(dest, packing_of(mode))
    return dest


def _carried_labels(segment: Path) -> dict[str, str]:
    """The source video's language and title, which travelled with the picture
    in every converted segment (the side file has no video stream); none when
    the segment cannot be read here (the mux then says what is wrong with it)."""
    try:
        return streams_of(segment).video_tags
    except UnusableVideoError:
        return {}
