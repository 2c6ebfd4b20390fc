"""Burned-in 3D subtitles in the segmented pipeline: each segment carries its cues.

Segments are cut video-only (``media_worker.splitting``), so an engine converting
one would find no subtitles to burn. When a job asks for 3D subtitles, the
chunker reads the source's first text subtitle track once and gives each
segment a ``mov_text`` track with the cues that overlap it, cut to it, at their
times on the source's timeline, which segments keep (every ffmpeg here runs
with ``-copyts``; ``stereo_media.subtitle_cues.cues_in_window``): a cue spanning
a cut is shown, cut, in both segments. Where a segment's timestamps run ahead
of the source's presentation times (an MP4 with B-frames: its edit list shifts
the first frames back to 0, a stream-copied cut keeps the raw times, two
frames later at three B-frames), the cues move with them
(:func:`timestamp_offset_s`), or the text would show that much early. The engine reads a
segment's cues exactly as it reads a whole file's, so every inference backend
(in-process, HTTP, SageMaker) burns them with nothing added to its request.
The final file's subtitle track still comes whole from ``streams.mkv``; the
segments' tracks are not concatenated.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from stereo_media.demuxers import av_options
from stereo_media.errors import UnusableVideoError
from stereo_media.ffmpeg_runner import FfmpegRunner, file_input
from stereo_media.stream_mux import TEXT_SUBTITLES
from stereo_media.subtitle_cues import TextCue, cues_in_window, format_srt, parse_srt
from stereo_media.timestamps import seconds_or

from media_worker.side_streams import streams_of
from media_worker.splitting import segment_starts

log = logging.getLogger(__name__)



def read_source_cues(runner: FfmpegRunner, source: Path, work: Path, *,
                     on_tick: Callable[[], None] | None = None) -> list[TextCue]:
    """The cues of the first text subtitle track of ``source`` (none: empty).
    Raises UnusableVideoError (unreadable source) or Ffmpeg*Error."""
    streams = streams_of(source).streams
    subtitles = [s for s in streams if s.kind == "subtitle"]
    index = next((k for k, s in enumerate(subtitles) if s.codec in TEXT_SUBTITLES), None)
    if index is None:
        return []
    srt = work / "source-cues.srt"
    runner.run(["-copyts", *file_input(source), "-map", f"0:s:{index}", "-f", "srt", str(srt)],
               on_tick=on_tick, what="read the subtitles")
    return parse_srt(srt.read_text(encoding="utf-8", errors="replace"))


def timestamp_offset_s(source: Path, first_segment: Path) -> float:
    """How far the cut segments' timestamps run ahead of the source's
    presentation times: the first segment's video start less the source's
    (0 without an edit list between them), from the headers. Raises
    UnusableVideoError."""
    return _video_start_s(first_segment) - _video_start_s(source)


def _video_start_s(path: Path) -> float:
    import av  # vendor import stays in this module

    try:
        with av.open(str(path), options=av_options()) as container:
            stream = container.streams.video[0]
            return seconds_or(stream.start_time, stream.time_base, 0.0)
    except (av.error.FFmpegError, OSError, IndexError) as exc:
        raise UnusableVideoError("The file is not a video we can read.") from exc


def give_segments_their_cues(runner: FfmpegRunner, segments: list[Path], starts: list[float],
                             cues: list[TextCue], *,
                             on_tick: Callable[[], None] | None = None) -> int:
    """Add to each segment (in place) a ``mov_text`` track of its window of
    ``cues``; a segment that no cue overlaps is left as it is. Returns how many
    segments got cues. Raises ValueError when ``starts`` does not match
    ``segments``, Ffmpeg*Error when a remux fails."""
    if len(starts) != len(segments):
        raise ValueError(f"{len(starts)} segment start times for {len(segments)} segments")
    given = 0
    for i, segment in enumerate(segments):
        end = starts[i + 1] if i + 1 < len(starts) else None
        window = cues_in_window(cues, starts[i], end, shift=False)
        if not window:
            continue
        srt = segment.with_suffix(".srt")
        srt.write_text(format_srt(window), encoding="utf-8")
        remuxed = segment.with_name(segment.stem + ".cues.mp4")
        runner.run(["-copyts", *file_input(segment),
                    *file_input(srt, demuxer="srt", format_whitelist="srt"),
                    "-map", "0:v:0", "-map", "1:s:0", "-c:v", "copy", "-c:s", "mov_text",
                    "-movflags", "+faststart", str(remuxed)],
                   on_tick=on_tick, what="add the segment's subtitles")
        os.replace(remuxed, segment)
        srt.unlink()
        given += 1
    return given


def add_cues_to_segments(runner: FfmpegRunner, source: Path, segments: list[Path], work: Path,
                         *, job_id: str, on_tick: Callable[[], None] | None = None) -> int:
    """Give the freshly split ``segments`` of ``source`` their cues (see the module
    docstring). Returns how many segments got cues."""
    cues = read_source_cues(runner, source, work, on_tick=on_tick)
    if not cues:
        log.info("job_id=%s 3D subtitles asked for, but the source has no text subtitles",
                 job_id)
        return 0
    starts = segment_starts(segments[0].parent)
    offset = timestamp_offset_s(source, segments[0])
    if abs(offset) > 0.0005:
        log.info("job_id=%s segments run %.3f s ahead of the source's presentation times "
                 "(an edit list): cues moved with them", job_id, offset)
        cues = [TextCue(c.start_s + offset, c.end_s + offset, c.text) for c in cues]
    given = give_segments_their_cues(runner, segments, starts, cues, on_tick=on_tick)
    log.info("job_id=%s %d cues spread over %d of %d segments for burning in 3D", job_id,
             len(cues), given, len(segments))
    return given
