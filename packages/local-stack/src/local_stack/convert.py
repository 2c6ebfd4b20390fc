"""``stereo-spot convert``: one file through the whole pipeline, with worker processes."""

from __future__ import annotations

import logging
import os
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from media_worker.bootstrap import probe_limits
from rich.console import Console
from shared_types.backend_loader import load_backend
from shared_types.cancel import cancel_job
from shared_types.eta_history import learn_machine_rates
from shared_types.job_progress import JobSnapshot
from shared_types.models import Container, ConversionParams, JobStatus, OutputMode, new_job_id
from shared_types.temp_sweep import sweep_stale_temp
from stereo_media.bounded_probe import probe_header
from stereo_media.errors import MediaError
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner
from stereo_media.source_cut import check_span, source_span

from local_stack.convert_owner import JobOwnership, cancel_orphans
from local_stack.filesystems import on_network_share
from local_stack.media_host import HostedMediaWorker
from local_stack.parallelism import shares_cores, workers_for_video
from local_stack.progress_view import JobProgressView
from local_stack.services import media_worker_settings, video_worker_specs
from local_stack.settings import StackSettings
from local_stack.submission import fetch_result, submit_job, wait_for_job
from local_stack.supervisor import Supervisor, not_needed

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ConvertRequest:
    source: Path
    output: Path
    mode: OutputMode
    params: ConversionParams
    container: Container = Container.MP4
    start_s: float | None = None  # the part of the source to convert (``source_cut``)
    end_s: float | None = None


@contextmanager
def temporary_data_dir(output: Path) -> Iterator[Path]:
    """The data folder of a ``convert`` run without ``--data-dir``, removed when
    the block ends: a hidden folder beside ``output``, so that the store shares
    the output's filesystem (the finished video is handed over as a hard link,
    not copied) and a film's copy and segments never sit in a system temp folder
    that may be RAM-backed (tmpfs) or too small. Where ``output``'s folder takes
    no new folder (missing, read-only) or is a network share (its SQLite
    database would be too), the system temp folder instead."""
    scratch = _beside(Path(output).absolute().parent)
    with scratch or tempfile.TemporaryDirectory(prefix="stereo-spot-") as folder:
        yield Path(folder)


def _beside(folder: Path) -> tempfile.TemporaryDirectory | None:
    if on_network_share(folder):
        return None
    try:
        return tempfile.TemporaryDirectory(prefix=".stereo-spot-", dir=folder)
    except OSError:
        return None


def run_convert(settings: StackSettings, request: ConvertRequest, console: Console, *,
                waiting_workers: Sequence[subprocess.Popen] = ()) -> JobSnapshot:
    """Convert ``request.source`` to ``request.output`` and return the final snapshot.

    Starts ``settings.workers`` video-worker processes and the media worker
    (as threads of this process: ``media_host``) on the settings' backend,
    submits the job, shows progress, downloads the result
    and stops the workers. Raises FileNotFoundError for a missing input,
    ConversionFailedError with the pipeline's reason when the job fails, and
    StackTimeoutError after ``settings.job_timeout_s``. ``waiting_workers``,
    video-workers started before the settings were read (``local_stack.launch``),
    become the first ones (one too many is told it is not needed).
    """
    if not request.source.is_file():
        raise FileNotFoundError(f"input file not found: {request.source}")
    if request.start_s is not None or request.end_s is not None:
        check_span(request.start_s, request.end_s)  # before any worker starts
        folder = Path(settings.data_dir) / "tmp"
        folder.mkdir(parents=True, exist_ok=True)
        runner = FfmpegRunner(ffmpeg_path(settings.ffmpeg), timeout_s=settings.job_timeout_s)
        with source_span(runner, request.source, folder, start_s=request.start_s,
                         end_s=request.end_s) as part:
            return run_convert(settings, replace(request, source=part, start_s=None,
                                                 end_s=None), console,
                               waiting_workers=waiting_workers)
    settings = _planned(settings, request.source, console)
    specs = video_worker_specs(settings)
    supervisor = Supervisor(
        specs,
        backoff_base_s=settings.restart_backoff_s,
        backoff_max_s=settings.restart_backoff_max_s,
        drain_timeout_s=settings.drain_timeout_s,
        log_dir=Path(settings.data_dir) / "logs",
        on_event=lambda line: log.info("%s", line),
    )
    for surplus in waiting_workers[len(specs):]:
        not_needed(surplus)  # the end of its input: it exits
    # first: the workers' start-up overlaps this process's own
    supervisor.start(dict(zip((spec.name for spec in specs), waiting_workers, strict=False)))
    media = HostedMediaWorker(settings)  # chunking and reassembly: threads of this process
    owner = JobOwnership(Path(settings.data_dir))  # lets the next convert see this one die
    backend, job = None, None
    try:
        media.start()
        backend = load_backend(settings)
        cancel_orphans(backend, Path(settings.data_dir))  # jobs of a convert SIGKILLed here
        rates = learn_machine_rates(backend)  # this data folder's history
        # claimed before the job exists: a SIGKILL at any moment after leaves its lock
        job_id = new_job_id()
        owner.claim(job_id)
        # the source is linked into a local store, not copied, where it can be
        job = submit_job(backend, request.source, mode=request.mode, params=request.params,
                         container=request.container,
                         link_dir=Path(settings.data_dir) / "tmp", job_id=job_id)
        console.print(f"job {job.job_id}: {request.source.name} -> {request.mode.value}",
                      soft_wrap=True)
        # the frame total comes from the media-worker's probe (no PyAV in this process)
        with JobProgressView(console) as view:
            def on_snapshot(snap: JobSnapshot) -> None:
                view.update(snap)
                if snap.status is JobStatus.REASSEMBLING:
                    # the video-workers' part is over (the media worker took the
                    # reassembly): their drain overlaps it instead of following it
                    supervisor.begin_stop()

            snap = wait_for_job(backend, job.job_id, poll_s=settings.poll_s,
                                busy_poll_s=settings.busy_poll_s,
                                timeout_s=settings.job_timeout_s,
                                on_snapshot=on_snapshot, tick=supervisor.poll, rates=rates)
        fetch_result(backend, snap, request.output)  # before the workers' drain
    except BaseException:  # Ctrl-C or SIGTERM (KeyboardInterrupt), a timeout, a bug
        if job is not None:
            _abandon(backend, job.job_id)  # the workers stop at their next heartbeat
        raise
    finally:
        media.stop(0)  # asks it to drain; the video-workers drain meanwhile
        supervisor.stop()
        media.stop(settings.drain_timeout_s)
        owner.release()
        if job is not None:
            _remove_job_temp(settings, job.job_id)
    return snap


def _planned(settings: StackSettings, source: Path, console: Console) -> StackSettings:
    """``settings`` with as many video-workers as ``source`` is worth on this
    machine (``parallelism.workers_for_video``): a short video converts faster
    without the workers that would share its cores. The header is read only
    when there are such workers; a header that cannot be read keeps them all
    (the media worker's probe then says what is wrong with the file).
    ``settings.fit_workers`` false runs them all."""
    cpus = os.cpu_count() or 1
    if not settings.fit_workers or not shares_cores(settings.workers, cpus):
        return settings
    try:
        header = probe_header(str(source), probe_limits(media_worker_settings(settings)))
    except MediaError as exc:
        log.info("header of %s not read (%s): %d video-workers", source.name, exc,
                 settings.workers)
        return settings
    workers = workers_for_video(settings.workers, cpus, header.frames)
    if workers == settings.workers:
        return settings
    console.print(f"[dim]{workers} video-worker(s) instead of {settings.workers}: a "
                  f"{header.duration_s:.0f} s video converts faster without workers sharing "
                  f"these {cpus} cores[/dim]", soft_wrap=True)
    return settings.model_copy(update={"workers": workers})


def _remove_job_temp(settings: StackSettings, job_id: str) -> None:
    """Remove the temp folders of this command's job that a worker killed
    mid-step (SIGKILL, the OOM killer) left behind: its workers have stopped,
    and the names carry the job id, so nobody else's are touched (the start-up
    sweep of ``serve``'s long-lived workers waits 6 h instead)."""
    folders = {media_worker_settings(settings).work_dir, Path(tempfile.gettempdir())}
    prefixes = (f"chunk-{job_id}-", f"join-{job_id}-", f"vw-{job_id}-")
    for folder in folders:
        for entry in sweep_stale_temp(folder, prefixes, older_than_s=0):
            log.info("job_id=%s removed %s a killed worker left", job_id, entry)


def _abandon(backend, job_id: str) -> None:
    """Cancel the job this command gives up on, so that it does not stay in
    progress with no worker left to finish it (a kept ``--data-dir`` outlives
    the command). Never raises: the reason the command stops matters more."""
    try:
        job = backend.jobs.get(job_id)
        if job is not None and not job.status.is_final:
            cancel_job(backend, job)
            log.info("job_id=%s cancelled: the command stopped before it ended", job_id)
    except Exception:  # noqa: BLE001 (a store error or a race with its end)
        log.warning("job_id=%s could not be cancelled", job_id, exc_info=True)
