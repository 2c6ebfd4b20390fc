"""``stereo-spot serve``: the whole stack on this machine, supervised until a signal."""

from __future__ import annotations

import logging
import signal

from rich.console import Console
from shared_types.stop_event import StopEvent

from local_stack.exposure import expose
from local_stack.port_check import ensure_port_free
from local_stack.services import stack_specs
from local_stack.settings import StackSettings
from local_stack.supervisor import Supervisor

log = logging.getLogger(__name__)


def run_serve(settings: StackSettings, console: Console) -> int:
    """Start web-ui, media-worker and the video-workers; on SIGINT/SIGTERM drain
    them and return 0 (1 when a child had to be killed). Raises
    ServiceMissingError when a service package is not installed, ExposureError
    when asked to listen beyond loopback with no host name to answer,
    PortInUseError at once when another program listens on ``settings.port``."""
    exposure = expose(settings)  # beyond loopback: a login and a Host check, or an error
    settings = exposure.settings
    ensure_port_free(settings.host, settings.port)  # before any service starts
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    stop = StopEvent()  # set in the signal handler: safe there (see its module)

    def _drain(signum: int, _frame: object) -> None:
        console.print(f"signal {signal.Signals(signum).name}: draining workers...")
        stop.set()

    signal.signal(signal.SIGTERM, _drain)
    signal.signal(signal.SIGINT, _drain)
    supervisor = Supervisor(
        stack_specs(settings),
        backoff_base_s=settings.restart_backoff_s,
        backoff_max_s=settings.restart_backoff_max_s,
        drain_timeout_s=settings.drain_timeout_s,
        on_event=lambda line: console.print(f"[dim]{line}[/dim]"),
    )
    supervisor.start()
    console.print(f"StereoSpot is running at [bold]http://{settings.host}:{settings.port}[/bold] "
                  f"(data in {settings.data_dir.resolve()}, {settings.workers} video-worker(s)); "
                  "Ctrl-C stops it.")
    if exposure.new_password is not None:
        console.print(f"Log in as [bold]{settings.basic_auth_user}[/bold] with the password "
                      f"[bold]{exposure.new_password}[/bold] (made for this run; set "
                      "STEREO_SPOT_BASIC_AUTH_PASSWORD to choose one). Host names answered: "
                      f"{', '.join(settings.allowed_hosts)}.", soft_wrap=True)
    clean = supervisor.run(stop)
    console.print("stopped" if clean else "stopped (some workers had to be killed)")
    return 0 if clean else 1
