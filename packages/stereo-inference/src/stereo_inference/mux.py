"""The engine's last step: the encoded video plus everything else the source carries.

``stereo_inference.encode`` writes the video alone; this muxes it with every
audio, subtitle and attachment stream of the source, its cover, timecode,
telemetry, chapters and tags (``stereo_media.stream_mux``), then marks SBS/TB
MP4s with an ``st3d`` box.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

import av
from shared_types.failure import disk_full_message
from shared_types.left_out import left_out_sentence
from shared_types.models import Container
from stereo_media.demuxers import av_options
from stereo_media.errors import FfmpegDiskFullError, FfmpegFailedError, MediaError
from stereo_media.ffmpeg_runner import FfmpegRunner
from stereo_media.source_streams import FileStreams, file_streams
from stereo_media.stereo_boxes import add_st3d
from stereo_media.stream_mux import cover_extract_command, covers_to_extract, mux_command

from stereo_inference.errors import EngineDiskFullError, EngineTransientError, InvalidInputError

log = logging.getLogger(__name__)


def source_streams(path: Path) -> FileStreams:
    """The non-video streams of ``path``, its video stream's language/title, and
    where its video begins after its other streams: read once per conversion
    (a teletext recording's description costs an ffmpeg run and a page scan).
    Raises InvalidInputError when it cannot be opened."""
    try:
        with av.open(str(path), options=av_options()) as container:
            return file_streams(container)
    except av.FFmpegError as exc:
        raise InvalidInputError(f"cannot read the streams of {Path(path).name}: {exc}") from exc


def nothing_to_keep(found: FileStreams, *, start_at_zero: bool = False) -> bool:
    """Whether a source whose streams are ``found`` carries nothing beside its
    picture that ``mux_output`` would keep: no audio, subtitle, attachment or
    data stream, no chapter, no global tag beyond a writer's own, no video
    language or title, no timecode (a video-only segment), and, for an output
    to ``start_at_zero``, a timeline that already begins at 0.
    Then the encoder's own MP4 is the output, and the mux pass is skipped."""
    return not (found.streams or found.data or found.video_tags or found.timecode
                or found.tagged or (start_at_zero and found.start_s > 0))


def mux_output(ffmpeg: str, video: Path, source: Path, output: Path, *, container: Container,
               packing: str | None, timeout_s: float, source_timestamps: bool = True,
               start_at_zero: bool = False, found: FileStreams | None = None) -> list[str]:
    """Write ``output`` from ``video`` (copied) and the other streams of ``source``
    (``found``: what :func:`source_streams` read of it, read here when None);
    ``packing`` ("sbs"/"tb"/None) adds MKV StereoMode or MP4 st3d. Every stream
    keeps its timestamps when ``video``'s are the source's (``source_timestamps``,
    the engine's own encode: a segment's output stays where the segment lies on
    the source's timeline); else (iw3's video, which starts at 0) the video is
    put where the source's began. ``start_at_zero``: kept timestamps are moved
    so the output begins at 0, not where the source's clock began (a whole
    file; a segment keeps its place on the source's timeline instead). Audio
    that cannot be copied (a damaged recording) is decoded and encoded again
    instead. Returns what could not be kept (logged). Raises
    EngineTransientError when ffmpeg fails."""
    if found is None:
        found = source_streams(source)
    runner = FfmpegRunner(ffmpeg, timeout_s=timeout_s)
    try:
        # an MKV's covers go in as attachments: copied out of the source first
        with tempfile.TemporaryDirectory(dir=Path(output).parent, prefix=".covers-") as tmp:
            covers = covers_to_extract(found.streams, container, Path(tmp))
            for stream, path in covers:
                runner.run(cover_extract_command(source, stream, path), what="cover copy")

            def command(repair_audio: bool) -> tuple[list[str], list[str]]:
                return mux_command(
                    video, source, output, container=container, streams=found.streams,
                    packing=packing, video_tags=found.video_tags,
                    video_start_s=found.video_start_s, copy_timestamps=source_timestamps,
                    timecode=found.timecode, cover_files=[path for _, path in covers],
                    quicktime=found.quicktime, data=found.data, repair_audio=repair_audio,
                    shift_s=found.start_s if start_at_zero else 0.0)
            dropped = _run_repairing_audio(runner, command, Path(source).name)
        if dropped:
            log.warning("not in the output of %s: %s", Path(source).name,
                        left_out_sentence(dropped, container))
    except FfmpegDiskFullError as exc:
        raise EngineDiskFullError(disk_full_message(
            Path(output).parent, doing="adding the audio and subtitles")) from exc
    except MediaError as exc:  # failed, past its time limit, or killed
        detail = getattr(exc, "stderr", "") or str(exc)
        raise EngineTransientError(f"ffmpeg could not mux the streams: {detail[-300:]}"
                                   ) from exc
    if container is Container.MP4 and packing:
        add_st3d(output, packing)
    return dropped


def _run_repairing_audio(runner: FfmpegRunner, command, name: str) -> list[str]:
    """Run the mux ``command(repair_audio)`` builds; when it fails for anything
    but a full disk, run it once more with the audio decoded and encoded again:
    a damaged frame stops a copy (a broadcast recording's broken ADTS header),
    while the decoder skips it and keeps the rest. Returns what it left out.
    Raises the runner's MediaError."""
    args, dropped = command(False)
    try:
        runner.run(args, what="mux")
    except FfmpegFailedError:
        log.warning("copying the audio of %s failed, encoding it again", name)
        args, dropped = command(True)
        runner.run(args, what="mux")
    return dropped
