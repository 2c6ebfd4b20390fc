"""Where a held source is read by its played times: the preview's strip and clips.

The strip and a preview clip read a source where it lies and seek by time
(``source_file.locate_source``). A transport stream whose clock jumps (two
recordings joined, ``shared_types.clock_jumps``) has no such times: its own
clock makes a 6 s file "26 hours" long, and a seek lands in the wrong part.
Chunking converts a continuous copy of it; the preview must read the same copy,
so the moment a person picks on the strip is the moment the clip starts at and
the moment of the whole film. A local file is checked (MPEG-TS/PS only: a demux
of its video packets) and copied when its clock jumps; a presigned URL is
downloaded only when its header says more than the limit and it is a transport
or program stream (any other reads in place, as before).
"""

from __future__ import annotations

import logging
from pathlib import Path

from shared_types.clock_jumps import JUMPING_FORMATS, continuous_source
from shared_types.models import ObjectInfo

from media_worker.bounded_probe import probe_header
from media_worker.deps import MediaDeps
from media_worker.errors import TooLongError
from media_worker.source_file import SourceLocation, locate_source, source_file

log = logging.getLogger(__name__)


def played_source(deps: MediaDeps, info: ObjectInfo, work: Path) -> SourceLocation:
    """Where to read the source ``info`` names by its played times, with ``work``
    for a copy. Raises like :func:`locate_source` and :func:`probe_header`
    (UnusableVideoError), and Ffmpeg*Error from the copy."""
    storage = deps.backend.input_storage
    where = locate_source(storage, info, work / "source.mp4", urls=deps.source_urls)
    if where.is_url:
        try:
            probe_header(where.target, deps.limits, headers=where.headers)
            return where
        except TooLongError as exc:
            if exc.container not in JUMPING_FORMATS.split(","):
                raise
        where = SourceLocation(str(source_file(storage, info, work / "source.ts")))
    source = Path(where.target)

    def run(args):
        deps.runner.run(args, what="putting the source on one timeline")

    continuous = continuous_source(source, work, run, stem="played", to_seek=True)
    if continuous == source:
        return where
    log.info("source %s: its clock jumps; the preview reads a continuous copy", info.key)
    return SourceLocation(str(continuous))
