"""Interlaced sources made progressive before depth and warp.

A DVD, a broadcast recording or a camcorder's 1080i stores two fields, half
a frame-time apart, woven into each frame. Warped and encoded as progressive
(which the output is), every moving edge keeps its comb, now shifted row by
row with the depth, and a top-bottom layout mixes the two fields. So from
the first frame the decoder marks interlaced, frames go through FFmpeg's
``bwdif`` (motion-adaptive, one output frame per input frame: the frame count
and timestamps stay the source's, as segments and the audio expect); frames
marked progressive pass through it untouched (``deint=interlaced``), and a
progressive source never meets it.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import av

FILTER = ("bwdif", "mode=send_frame:parity=auto:deint=interlaced")


def progressive_frames(frames: Iterator[av.VideoFrame], stream) -> Iterator[av.VideoFrame]:
    """``frames`` of the PyAV video ``stream``, deinterlaced from the first one
    marked interlaced on, each at its own timestamp in the stream's time base."""
    graph = None
    for frame in frames:
        if graph is None and not frame.interlaced_frame:
            yield frame
            continue
        if graph is None:
            graph = _graph(stream)
        graph.push(frame)
        yield from _pulled(graph, stream.time_base)
    if graph is not None:
        graph.push(None)  # the last frame waits for a next one that never comes
        yield from _pulled(graph, stream.time_base)


def _graph(stream) -> av.filter.Graph:
    graph = av.filter.Graph()
    source = graph.add_buffer(template=stream)
    deinterlace = graph.add(*FILTER)
    sink = graph.add("buffersink")
    source.link_to(deinterlace)
    deinterlace.link_to(sink)
    graph.configure()
    return graph


def _pulled(graph: av.filter.Graph, time_base: Fraction) -> Iterator[av.VideoFrame]:
    while True:
        try:
            frame = graph.pull()
        except (BlockingIOError, EOFError):  # needs another frame / flushed
            return
        if not isinstance(frame, av.VideoFrame):
            raise TypeError(f"a video filter graph gave {type(frame).__name__}")
        if frame.time_base is not None and frame.time_base != time_base:
            # bwdif halves it (room for field rate)
            scale = frame.time_base / time_base
            frame.pts = round(frame.pts * scale) if frame.pts is not None else None
            frame.duration = round(frame.duration * scale) if frame.duration else frame.duration
            frame.time_base = time_base
        yield frame
