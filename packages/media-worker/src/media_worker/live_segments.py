"""The segment muxer's list, read while ffmpeg writes it: each segment as it is cut.

FFmpeg's segment muxer writes a line of its CSV list (name, start, end) when it
closes a segment, and flushes it. The list is a FIFO here, read by a thread of
ours, so a finished segment is known at once (no polling of the folder); each
line is also copied into the ordinary list file (``splitting.SEGMENT_LIST``)
that later steps read. Where the work folder holds no FIFO, the segments are
handed on once the split has ended, from the list file.
"""

from __future__ import annotations

import csv
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

FIFO_NAME = "segments.fifo"


class LiveSegmentList:
    """Calls ``on_segment(index, path)`` from its own thread for every segment the
    muxer finishes in ``out_dir``, in order. Use it as a context manager around
    the ffmpeg run that writes to :attr:`path`."""

    def __init__(self, out_dir: Path, list_file: Path,
                 on_segment: Callable[[int, Path], None]) -> None:
        self.path = out_dir / FIFO_NAME
        self._out_dir, self._list_file, self._on_segment = out_dir, list_file, on_segment
        self.error: BaseException | None = None  # the first raised by ``on_segment``

    def __enter__(self) -> LiveSegmentList:
        self.path.unlink(missing_ok=True)
        try:
            os.mkfifo(self.path)
        except OSError:  # a folder that holds no FIFO: the segments come at the end
            log.warning("no FIFO in %s: segments are handed on once the split ends",
                        self._out_dir)
            self.path = self._list_file
            return self
        # Both ends opened here, before ffmpeg starts: the reader never waits for
        # a writer that may not come (ffmpeg failing first), and reads no end of
        # file before ours closes, whenever ffmpeg opens and closes its own.
        reader = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        self._writer = os.open(self.path, os.O_WRONLY)
        os.set_blocking(reader, True)
        self._thread = threading.Thread(target=self._read, args=(reader,), name="segment-list",
                                        daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.path == self._list_file:  # no FIFO: the list as written, now
            if exc[0] is None:
                with open(self._list_file, newline="", encoding="utf-8") as written:
                    self._hand_on(row for row in csv.reader(written) if row)
            return
        os.close(self._writer)  # ffmpeg has exited: the reader reads to the end
        self._thread.join()
        self.path.unlink(missing_ok=True)

    def _read(self, reader: int) -> None:
        with open(reader, newline="", encoding="utf-8") as fifo, \
                open(self._list_file, "w", newline="", encoding="utf-8") as copy:
            writer = csv.writer(copy, lineterminator="\n")

            def copied(rows):
                for row in rows:
                    writer.writerow(row)
                    copy.flush()
                    yield row

            self._hand_on(copied(row for row in csv.reader(fifo) if row))

    def _hand_on(self, rows) -> None:
        for index, row in enumerate(rows):
            if self.error is not None:
                continue  # keep reading: ffmpeg must never block on a full pipe
            try:
                self._on_segment(index, self._out_dir / row[0])
            except BaseException as exc:  # handed to the caller, which stops the split
                self.error = exc
