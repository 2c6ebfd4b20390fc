"""What a converted file does not carry of its source, said in one sentence.

Most of it is what the container cannot hold (DVB subtitles in MP4, a GoPro's
telemetry in MKV): said once, after the list. What the conversion itself leaves
out says why in its own name (:data:`OWN_REASONS`: a second video track, of
which only the first is made 3D; another channel's tracks in a recording of a
whole multiplex). The job page, ``stereo-spot convert`` and the
engine's log all say it this way.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared_types.models import Container

ONLY_FIRST_VIDEO = " (only the first is made 3D)"
OTHER_PROGRAMME = " (another programme of the broadcast)"
OWN_REASONS = (ONLY_FIRST_VIDEO, OTHER_PROGRAMME)
KIND_WORDS = {"audio": "audio track", "subtitle": "subtitle track", "video": "video track"}


def extra_video_name(number: int) -> str:
    """The name of the source's video track ``number`` (2, 3, ...) beside the film."""
    return f"video track {number}{ONLY_FIRST_VIDEO}"


def other_programme_name(kind: str, number: int) -> str:
    """The name of the source's ``kind`` track ``number`` (1, 2, ...) that belongs
    to another programme of a recorded multiplex than the film's."""
    return f"{KIND_WORDS.get(kind, kind + ' track')} {number}{OTHER_PROGRAMME}"


def left_out_sentence(items: Sequence[str], container: Container) -> str:
    """``items`` (names from ``stream_mux``) as one clause: those ``container``
    cannot hold, with that reason once, then those that say their own."""
    held = [item for item in items if not item.endswith(OWN_REASONS)]
    own = [item for item in items if item.endswith(OWN_REASONS)]
    parts = []
    if held:
        pronoun = "it" if len(held) == 1 else "them"
        parts.append(f"{', '.join(held)} (the {container.value.upper()} format cannot hold "
                     f"{pronoun})")
    return "; ".join(parts + own)
