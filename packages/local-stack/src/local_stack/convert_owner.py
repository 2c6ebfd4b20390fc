"""Which ``stereo-spot convert`` owns a job in a kept data folder, and whether it lives.

``convert`` runs its job's workers itself: once the command is gone nobody
works on the job. Ctrl-C and SIGTERM cancel it on the way out
(``convert._abandon``); a SIGKILL (the OOM killer, ``kill -9``) gives no way
out, and with ``--data-dir`` the job stayed in progress there for good. So the
command holds an exclusive ``flock`` on ``{data_dir}/owners/{job_id}.lock``
while its job runs: the kernel lets go of it when the process dies, however
it dies. The next ``convert`` on that folder cancels every job whose lock it
can take (its command is dead) and removes the file. Jobs without a lock file
(``serve``'s, whose janitor sweeps them) are never touched.
"""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path

from shared_types import keys
from shared_types.cancel import cancel_job
from shared_types.errors import ConditionFailedError, JobStateError
from shared_types.ports import Backend

log = logging.getLogger(__name__)


def _folder(data_dir: Path) -> Path:
    return Path(data_dir) / "owners"


def _take(path: Path) -> int | None:
    """An open descriptor of ``path`` holding its exclusive lock, or None when
    another process holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


class JobOwnership:
    """This process's claim on the job it converts (``claim`` .. ``release``)."""

    def __init__(self, data_dir: Path) -> None:
        self._folder = _folder(data_dir)
        self._held: tuple[Path, int] | None = None

    def claim(self, job_id: str) -> None:
        """Hold the job's lock for as long as this process lives (or ``release``)."""
        self._folder.mkdir(parents=True, exist_ok=True)
        path = self._folder / f"{job_id}.lock"
        fd = _take(path)
        if fd is None:  # a fresh job id: nobody else can hold it
            raise RuntimeError(f"job {job_id} is already owned by another process")
        self._held = (path, fd)

    def release(self) -> None:
        """Let go of the job (it ended, or was cancelled on the way out)."""
        if self._held is None:
            return
        path, fd = self._held
        path.unlink(missing_ok=True)
        os.close(fd)
        self._held = None


def cancel_orphans(backend: Backend, data_dir: Path) -> list[str]:
    """Cancel each job a dead ``convert`` left in progress in ``data_dir``;
    returns their ids. Store errors propagate."""
    folder = _folder(data_dir)
    if not folder.is_dir():
        return []
    cancelled = []
    for path in sorted(folder.glob("*.lock")):
        job_id = path.stem
        if not keys.is_valid_job_id(job_id):
            continue
        fd = _take(path)
        if fd is None:
            continue  # its command is alive
        try:
            job = backend.jobs.get(job_id)
            if job is not None and not job.status.is_final:
                try:
                    cancel_job(backend, job)
                except (ConditionFailedError, JobStateError):
                    pass  # it ended meanwhile
                else:
                    cancelled.append(job_id)
                    log.warning("job_id=%s cancelled: the convert that ran it was killed",
                                job_id)
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)
    return cancelled
