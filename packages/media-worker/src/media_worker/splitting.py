"""Split a probed source into keyframe-aligned segments with ``-c copy``.

Segments keep the source's timestamps (no ``-reset_timestamps``): each one
says itself where it lies on the source's timeline, the engine carries every
frame's timestamp through, and reassembly puts each converted segment back at
its own start (``media_worker.segment_timeline``). A pause or a jump in the
source's timestamps at a cut, which no segment's duration can hold, survives.

The segment muxer can only cut at keyframes, and an MP4 segment holds only
some codecs, so a source whose keyframes are further apart than twice the
target, or whose codec an MP4 cannot carry (ProRes, DNxHD, VP8, WMV, ...), is
first re-encoded once with regular keyframes (and the log says why).
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from stereo_media.bounded_probe import SourceInfo, probe_colour
from stereo_media.errors import FfmpegFailedError
from stereo_media.ffmpeg_runner import FfmpegRunner, file_input
from stereo_media.hdr import Color, HdrInfo, x265_cli_args
from stereo_media.probe_limits import ProbeLimits

from media_worker.live_segments import LiveSegmentList

log = logging.getLogger(__name__)

SEGMENT_PATTERN = "%05d.mp4"
SEGMENT_LIST = "segments.csv"  # the segment muxer's list: name, start, end
# With ffmpeg 9 the cut lands one GOP late unless the segment time has some slack.
SEGMENT_TIME_DELTA = "0.05"
NEVER_S = 10**9  # a segment time no video reaches
# Video codecs an MP4 segment holds when copied (tried with the pinned ffmpeg:
# ProRes, DNxHD, VP8 and WMV are refused with "Could not find tag for codec").
MP4_SEGMENT_CODECS = frozenset({"h264", "hevc", "av1", "vp9", "mpeg4", "mpeg2video",
                                "mpeg1video", "mjpeg"})


def reencode_reason(info: SourceInfo, segment_seconds: float) -> str | None:
    """Why the source must be re-encoded once before it is cut near
    ``segment_seconds``, or None: an MP4 segment cannot hold its codec, its
    keyframes are too sparse, or cutting at them would lose frames (open GOPs:
    leading frames)."""
    if info.video_codec and info.video_codec not in MP4_SEGMENT_CODECS:
        return f"{info.video_codec} video, which an MP4 segment cannot hold"
    if info.has_leading_frames:
        return "open GOPs (a cut would lose their leading frames)"
    if info.max_keyframe_gap_s > 2 * segment_seconds:
        return (f"keyframes up to {info.max_keyframe_gap_s:.1f} s apart exceed 2x the "
                f"{segment_seconds:.1f} s target")
    return None


def keyframe_interval(segment_seconds: float) -> float:
    """Keyframe spacing used when re-encoding: at most 2 s, several per segment."""
    return max(0.5, min(2.0, segment_seconds / 4))


def forced_keyframes(every: float) -> str:
    """ffmpeg's ``-force_key_frames`` for a keyframe at the first frame of each
    ``every``-second step of the timeline (the cut points of the split fall on
    those steps), never two closer than half a step. Counting forced frames
    instead (``t >= n_forced * every``) would, after a jump in the source's
    timestamps, force one keyframe per skipped step on the next frames: a burst
    the split turns into one-frame segments, for as long as the jump was."""
    step = f"floor(t/{every:g})"
    return (f"expr:if(isnan(prev_forced_t),1,"
            f"gt({step},floor(prev_forced_t/{every:g}))*gte(t-prev_forced_t,{every / 2:g}))")


def keyframed_codec(segment_seconds: float, *, color: Color | None = None,
                    hdr: HdrInfo | None = None) -> list[str]:
    """ffmpeg's encoder arguments for a video with a keyframe at least every
    :func:`keyframe_interval` seconds: 8-bit H.264, or, for a source of more
    than 8 bits (``hdr``), 10-bit HEVC keeping its colour description
    ``color`` and HDR10 metadata (``stereo_media.hdr``)."""
    every = keyframe_interval(segment_seconds)
    if hdr is not None and hdr.bit_depth > 8:
        codec = [*x265_cli_args(hdr, color, closed_gop=True), "-preset", "veryfast",
                 "-crf", "16"]
    else:
        codec = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18"]
    # every frame with its own time (a frame repeating the time before it dropped,
    # as an MP4 needs): to the segment muxer ffmpeg would otherwise pick a
    # constant rate and fill a pause in the timestamps with copies. In the
    # source's own time base: the encoder's default, one tick per frame of the
    # mean rate, moved a phone's irregular frame times onto that grid and dropped
    # the frames two of them landed on together
    return [*codec, "-force_key_frames", forced_keyframes(every), "-fps_mode", "vfr",
            "-enc_time_base", "demux"]


def reencode_with_keyframes(runner: FfmpegRunner, source: Path, dest: Path,
                            segment_seconds: float, *, color: Color | None = None,
                            hdr: HdrInfo | None = None,
                            on_tick: Callable[[], None] | None = None) -> Path:
    """Re-encode the video of ``source`` into ``dest`` (video only) as
    :func:`keyframed_codec` says. Raises Ffmpeg*Error."""
    runner.run([
        *file_input(source),
        "-map", "0:v:0", *keyframed_codec(segment_seconds, color=color, hdr=hdr),
        "-movflags", "+faststart", str(dest),
    ], on_tick=on_tick, what="re-encode with keyframes")
    return dest


def split_segments(runner: FfmpegRunner, source: Path, out_dir: Path, segment_seconds: float,
                   *, labels: Sequence[tuple[str, str]] = (),
                   on_tick: Callable[[], None] | None = None,
                   cuts: Sequence[float] | None = None,
                   on_segment: Callable[[int, Path], None] | None = None,
                   codec: Sequence[str] = ("-c", "copy")) -> list[Path]:
    """Cut the video of ``source`` into ``out_dir/00000.mp4, 00001.mp4, ...`` of
    about ``segment_seconds`` each, in order, listed with their start times in
    ``out_dir/segments.csv``, each keeping the source's timestamps (every
    other stream is kept aside whole:
    ``media_worker.side_streams``), each labelled with ``labels`` (the source
    video's language and title: an MP4 source's title, read back as "name",
    would not be copied). ``cuts`` (``cut_plan.plan_cuts``), when given, says
    where instead: one segment more than there are cuts. ``on_segment(index,
    path)`` is called, from another thread, as each segment is finished, while
    the rest is still being cut; when it raises, the split stops (at the next
    ``on_tick``) and its error is raised here. ``codec`` re-encodes on the way
    (:func:`keyframed_codec`: the segments come out while the re-encode runs).
    Raises Ffmpeg*Error, or FfmpegFailedError when ffmpeg produced no segment."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in [*out_dir.glob("*.mp4"), *out_dir.glob(SEGMENT_LIST)]:
        stale.unlink()
    label_args = [arg for key, value in labels for arg in ("-metadata:s:v:0", f"{key}={value}")]
    if cuts is None:
        where = ["-segment_time", f"{segment_seconds:g}", "-segment_time_delta", SEGMENT_TIME_DELTA]
    elif cuts:
        where = ["-segment_times", ",".join(f"{t:.6f}" for t in cuts)]
    else:  # planned as one segment: never cut
        where = ["-segment_time", str(NEVER_S)]

    def run(segment_list: Path, tick: Callable[[], None] | None) -> None:
        runner.run([
            *file_input(source),
            "-map", "0:v:0", *codec, *label_args,
            # no timecode: it travels on the job (Job.source_timecode); a tmcd track
            # in each segment would cost each conversion a mux pass of its own
            "-metadata", "timecode=", "-metadata:s:v:0", "timecode=",
            "-f", "segment", *where,
            "-segment_list", str(segment_list), "-segment_list_type", "csv",
            "-segment_format", "mp4", "-segment_format_options", "movflags=+faststart",
            str(out_dir / SEGMENT_PATTERN),
        ], on_tick=tick, what="split into segments")

    if on_segment is None:
        run(out_dir / SEGMENT_LIST, on_tick)
    else:
        with LiveSegmentList(out_dir, out_dir / SEGMENT_LIST, on_segment) as live:
            def tick() -> None:
                if live.error is not None:
                    raise live.error
                if on_tick is not None:
                    on_tick()

            run(live.path, tick)
        if live.error is not None:
            raise live.error
    # from the muxer's list: a segment handed on may have been moved away already
    with open(out_dir / SEGMENT_LIST, newline="", encoding="utf-8") as f:
        listed = [out_dir / row[0] for row in csv.reader(f) if row]
    segments = [p for p in listed if not p.exists() or p.stat().st_size > 0]
    if not segments:
        raise FfmpegFailedError("split into segments: ffmpeg wrote no segment")
    return segments


def segment_starts(segments_dir: Path) -> list[float]:
    """Start time (s, source timeline) of each segment :func:`split_segments` wrote
    to ``segments_dir``, from the segment muxer's list."""
    with open(segments_dir / SEGMENT_LIST, newline="", encoding="utf-8") as f:
        return [float(row[1]) for row in csv.reader(f) if len(row) >= 3]


def prepare_and_split(runner: FfmpegRunner, source: Path, info: SourceInfo, work: Path,
                      segment_seconds: float, *, job_id: str, limits: ProbeLimits,
                      on_tick: Callable[[], None] | None = None,
                      cuts: Sequence[float] | None = None,
                      on_segment: Callable[[int, Path], None] | None = None) -> list[Path]:
    """Re-encode when keyframes are too sparse (keeping 10-bit and HDR), then
    split. Returns segment paths. With ``cuts`` (``cut_plan.planned_cuts``) and
    ``on_segment`` (see :func:`split_segments`), a re-encode runs in the same
    ffmpeg as the split, so each segment is handed on while the rest of the
    source is still being encoded."""
    why = reencode_reason(info, segment_seconds)
    codec: list[str] = ["-c", "copy"]
    if why is not None:
        log.info("job_id=%s %s: re-encoding once with a keyframe every %.1f s %s", job_id,
                 why, keyframe_interval(segment_seconds),
                 "while splitting" if on_segment else "before splitting")
        color, hdr = probe_colour(source, limits)
        if on_segment is None:
            source = reencode_with_keyframes(runner, source, work / "keyframed.mp4",
                                             segment_seconds, color=color, hdr=hdr,
                                             on_tick=on_tick)
        else:
            codec = keyframed_codec(segment_seconds, color=color, hdr=hdr)
    return split_segments(runner, source, work / "segments", segment_seconds,
                          labels=info.video_labels, on_tick=on_tick, cuts=cuts,
                          on_segment=on_segment, codec=codec)
