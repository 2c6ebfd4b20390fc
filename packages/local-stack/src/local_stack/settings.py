"""Settings of the stereo-spot CLI (env prefix ``STEREO_SPOT_``), read once in ``cli.main``."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import Field, SecretStr
from shared_types.settings import BackendSettings, ToolSettings

from local_stack.parallelism import default_workers


class StackSettings(ToolSettings, BackendSettings):
    """Backend settings plus how the CLI runs and supervises the services.

    Command-line options override these; children get them back as
    ``STEREO_SPOT_*`` environment variables.
    """

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    workers: int = Field(default_factory=lambda: default_workers(os.cpu_count() or 1), ge=1,
                         le=64, description="video-worker processes (default: one per two "
                                            "cores, local_stack.parallelism)")
    fit_workers: bool = Field(
        True, description="convert: run only as many of the video-workers as the video is "
                          "worth (a short one is faster without workers sharing cores)")
    seamless_segments: bool = Field(
        True, description="seed each segment's depth normalisation from the previous one")
    media_workers: int = Field(1, ge=1, le=16,
                               description="media-worker processes of `serve` (`convert` "
                                           "runs one as threads of its own process)")
    segment_seconds: float = Field(10.0, gt=0, le=3600)
    visibility_s: float = Field(60.0, gt=0, description="queue lease of a worker message")
    lease_s: float = Field(60.0, gt=0, description="reassembly lease")
    poll_s: float = Field(0.05, gt=0, le=10,
                          description="how often convert reads progress once every segment is done")
    busy_poll_s: float = Field(0.25, gt=0, le=10,
                               description="how often convert reads progress while segments run")
    job_timeout_s: float = Field(6 * 3600.0, gt=0, description="convert gives up after this")
    restart_backoff_s: float = Field(0.5, gt=0, description="first restart delay")
    restart_backoff_max_s: float = Field(30.0, gt=0)
    drain_timeout_s: float = Field(30.0, gt=0, description="SIGTERM grace before SIGKILL")
    depth_stride: int = Field(
        1, ge=1, description="video-workers run a learned depth model on every n-th frame")
    # `serve` beyond loopback (local_stack.exposure): the web UI's login and the
    # Host names it answers; a password is made and printed when none is set.
    basic_auth_user: str = "stereo-spot"
    basic_auth_password: SecretStr | None = None
    allowed_hosts: list[str] = Field(default_factory=list)

    @property
    def work_folder(self) -> Path:
        """The workers' temp folders: ``work_dir``, else ``{data_dir}/work``: on the
        store's filesystem, so what a worker makes is moved into the store, not
        copied, and a film's pieces never fill a RAM-backed /tmp."""
        return self.work_folder_or(Path(self.data_dir) / "work")
