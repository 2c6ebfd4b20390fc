"""Run ffmpeg safely: an argv list (never a shell), inputs restricted to local
files (or one presigned HTTP(S) URL) and known containers, a wall-clock
timeout, and the stderr tail in the log (its last line in errors, which become
a job's reason). An ffmpeg that stopped on a full disk raises
FfmpegDiskFullError (transient, naming its output's folder), not
FfmpegFailedError: the same command works once space is freed; one whose
decoder gave up on an input raises FfmpegUndecodableError (the video's damage)."""

from __future__ import annotations

import logging
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from shared_types.failure import disk_full_message, is_disk_full
from shared_types.process_exit import exited_within

from stereo_media.demuxers import VIDEO_DEMUXERS, file_only
from stereo_media.errors import (
    FfmpegDiskFullError,
    FfmpegFailedError,
    FfmpegKilledError,
    FfmpegTimeoutError,
    FfmpegUndecodableError,
)
from stereo_media.ffmpeg import QUIET

log = logging.getLogger(__name__)

STDERR_TAIL_CHARS = 2000
# What ffmpeg says when it stops because an input's packets do not decode (its
# -max_error_rate, 2/3 by default): the file is damaged, not the command wrong.
UNDECODABLE = ("Decode error rate",)
# The "[h264 @ 0x55d0...]" context ffmpeg puts before its log lines.
_LOG_CONTEXT = re.compile(r"\[[^\]]*? @ 0x[0-9a-f]+\] ")
SUMMARY_CHARS = 300
URL_REQUEST_BYTES = 1 << 19  # about a second of a typical film per Range request
URL_HEADER_BYTES = 1 << 16  # the requests that read the container's header


def file_input(path: Path, *, demuxer: str | None = None,
               format_whitelist: str = VIDEO_DEMUXERS) -> list[str]:
    """ffmpeg input arguments reading one local file and nothing else."""
    forced = ["-f", demuxer] if demuxer else []
    return [*file_only(format_whitelist), *forced, "-i", str(path)]


def url_input(url: str, *, headers: dict[str, str] | None = None) -> list[str]:
    """ffmpeg input arguments reading one HTTP(S) URL (a presigned GET) and
    nothing else: ffmpeg's http protocol seeks with Range requests, so an input
    seek (``-ss`` before these) reads only the bytes near that moment. Each
    request asks for a bounded range (``-request_size``) on one kept-alive
    connection: an open-ended range would have the store stream the rest of the
    file into the socket buffers before ffmpeg hangs up."""
    sent = (["-headers", "".join(f"{k}: {v}\r\n" for k, v in headers.items())]
            if headers else [])
    return ["-protocol_whitelist", "https,http,tls,tcp", "-format_whitelist", VIDEO_DEMUXERS,
            "-seekable", "1", "-multiple_requests", "1", "-request_size", str(URL_REQUEST_BYTES),
            "-initial_request_size", str(URL_HEADER_BYTES),
            "-reconnect", "1", "-reconnect_on_network_error", "1", "-reconnect_delay_max", "10",
            *sent, "-i", url]


def last_words(stderr: str) -> str:
    """The last line ffmpeg wrote to ``stderr``, without its "[codec @ 0x...]"
    context, cut to SUMMARY_CHARS: the gist of a failure, on one line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "(no message)"
    return _LOG_CONTEXT.sub("", lines[-1])[:SUMMARY_CHARS]


class FfmpegRunner:
    """Runs ffmpeg with a wall-clock limit.

    ``on_tick`` (if given to :meth:`run`) is called about every ``tick_s`` seconds
    while ffmpeg runs, e.g. to renew a lease; an exception from it stops ffmpeg.
    """

    def __init__(self, binary: str, *, timeout_s: float, tick_s: float = 1.0):
        self.binary = binary
        self.timeout_s = timeout_s
        self.tick_s = tick_s

    def run(self, args: Sequence[str], *, on_tick: Callable[[], None] | None = None,
            what: str = "ffmpeg") -> None:
        """Run ``ffmpeg <args>`` (its output last). Raises FfmpegFailedError
        (non-zero exit), FfmpegDiskFullError (the disk filled up), FfmpegTimeoutError
        (over the limit) or FfmpegKilledError (killed by a signal)."""
        argv = [self.binary, *QUIET, *args]
        log.debug("running %s", argv)
        with tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=err)
            try:
                self._wait(proc, on_tick, what)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            if proc.returncode == 0:
                return
            err.seek(0)
            tail = err.read().decode("utf-8", "replace")[-STDERR_TAIL_CHARS:].strip()
        if proc.returncode < 0:
            sig = signal.Signals(-proc.returncode).name
            log.warning("%s: ffmpeg was killed by %s: %s", what, sig, tail)
            raise FfmpegKilledError(f"{what}: ffmpeg was killed by {sig}: {last_words(tail)}")
        if is_disk_full(tail):
            log.warning("%s: ffmpeg found the disk full: %s", what, tail)
            raise FfmpegDiskFullError(disk_full_message(Path(args[-1]).parent,
                                                        doing=f"running ffmpeg ({what})"))
        # the whole tail goes to the log; the error (a job's reason) gets one line
        log.warning("%s: ffmpeg exited with %d: %s", what, proc.returncode, tail)
        if any(sign in tail for sign in UNDECODABLE):
            raise FfmpegUndecodableError(
                f"The video is damaged: too many of its pictures cannot be decoded ({what} "
                "stopped). Players may skip over such damage; converting it cannot.",
                stderr=tail)
        raise FfmpegFailedError(f"{what}: ffmpeg exited with {proc.returncode}: "
                                f"{last_words(tail)}", stderr=tail)

    def _wait(self, proc: subprocess.Popen, on_tick: Callable[[], None] | None,
              what: str) -> None:
        deadline = time.monotonic() + self.timeout_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                proc.kill()
                proc.wait()
                raise FfmpegTimeoutError(
                    f"{what}: ffmpeg took longer than {self.timeout_s:g} s and was stopped")
            if exited_within(proc, min(self.tick_s, remaining)):  # seen when it ends
                return
            if on_tick is not None:
                on_tick()
