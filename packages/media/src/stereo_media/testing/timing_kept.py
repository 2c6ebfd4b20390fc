"""The assertion every fidelity test makes about a converted file's timing."""

from __future__ import annotations

from stereo_media.testing.media_facts import MediaFacts
from stereo_media.testing.rich_media import RichSource


def assert_timing_kept(out: MediaFacts, src: MediaFacts, source: RichSource, fps: float) -> None:
    """``out`` (the converted ``source``, whose own facts are ``src``) has every
    subtitle cue at its time to the millisecond, every frame, and the length to
    within one frame."""
    assert len(out.cues) == len(source.cues)
    for (start, end), cue in zip(out.cues, source.cues, strict=True):
        assert abs(start - cue.start_s) <= 0.001
        assert abs(end - cue.end_s) <= 0.001
    assert out.frames == src.frames
    assert abs(out.duration_s - src.duration_s) <= 1 / fps
