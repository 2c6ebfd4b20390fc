"""Where a held source is read by its played times: the preview's strip and clips.

The strip and a preview clip read a source where it lies and seek by time
(``source_file.locate_source``). A transport stream whose clock jumps (two
recordings joined, ``stereo_media.clock_jumps``) may have no such times: a
backward jump or a wrapped clock makes a 6 s file "26 hours" long, more than
any limit, so its strip failed. Chunking converts a continuous copy of it; the
preview then reads one too (picture and sound, in Matroska, which seeks by its
index). Only a header that says too long, from a transport or program stream,
triggers it, locally and on S3 alike: the header costs a few reads, where
finding every jump reads the whole file, which a two-hour recording's strip
and every clip would wait for. A forward jump that stays under the limit is
previewed on the source's own clock, the strip and the clips alike, so the
moment a person picks is still the moment the clip starts at. A raw H.264/HEVC
stream (``stereo_media.raw_video``) has no clock at all: no demuxer of the
header probe opens it, and when its first bytes say it is one, it is
downloaded and read through a timed copy as well.
"""

from __future__ import annotations

import logging
from pathlib import Path

from shared_types.models import ObjectInfo
from stereo_media.bounded_probe import SourceHeader, probe_header, refuse_by_signature
from stereo_media.clock_jumps import JUMPING_FORMATS, continuous_source
from stereo_media.errors import TooLongError, UnknownFormatError
from stereo_media.raw_video import HEAD_BYTES, starts_as_elementary_stream

from media_worker.deps import MediaDeps
from media_worker.source_file import SourceLocation, locate_source, source_file

log = logging.getLogger(__name__)


def played_source(deps: MediaDeps, info: ObjectInfo, work: Path
                  ) -> tuple[SourceLocation, SourceHeader | None]:
    """Where to read the source ``info`` names by its played times, with ``work``
    for a copy, and its header when it is read where it lies (None for a copy).
    Raises like :func:`locate_source` and :func:`probe_header`
    (UnusableVideoError), and Ffmpeg*Error from the copy."""
    storage = deps.backend.input_storage
    where = locate_source(storage, info, work / "source.mp4", urls=deps.source_urls)
    try:
        return where, probe_header(where.target, deps.limits, headers=where.headers)
    except TooLongError as exc:
        if exc.container not in JUMPING_FORMATS.split(","):
            raise
    except UnknownFormatError:
        if not _raw(where):
            _refuse_what_it_is(where)  # a playlist, picture or song: said as such
            raise
    if where.is_url:
        where = SourceLocation(str(source_file(storage, info, work / "source.ts")))

    def run(args):
        deps.runner.run(args, what="putting the source on one timeline")

    source = Path(where.target)
    continuous = continuous_source(source, work, run, stem="played", to_seek=True)
    if continuous != source:
        log.info("source %s: not on one timeline; the preview reads a copy that is", info.key)
    return SourceLocation(str(continuous)), None


def _refuse_what_it_is(where: SourceLocation) -> None:
    """Raise the probe's named refusal when the first bytes of a source no video
    demuxer opens say what it is (as the full probe does for a local file)."""
    try:
        head = where.head(64)
    except OSError:
        return
    refuse_by_signature(head)


def _raw(where: SourceLocation) -> bool:
    """Whether the source begins as a raw H.264/HEVC stream (its first bytes
    only: anything else that no demuxer opens is not downloaded to find out)."""
    try:
        return starts_as_elementary_stream(where.head(HEAD_BYTES))
    except OSError:
        return False
