"""The depth model a conversion uses when the person has not chosen one.

- An installed model: the best one (the person installed it).
- Nothing installed, on a GPU, downloads allowed and the hub answering:
  Depth-Anything-V2-Small (Apache-2.0), downloaded first.
- Nothing installed, on a CPU: the weight-free default, with both choices'
  estimated time for this video (the model is ~100x slower there), so the
  person can pick the model knowingly.
- Nothing installed and no model to be had (the hub does not answer, or
  downloads are off): the weight-free default, with one line that says so and
  names the command that installs a model.

No torch here: whether a GPU can run the engine is asked of a probe the caller
passes (the engine's ``runtime.resolve_device`` in the CLIs; ``gpu_driver_present``
where the engine is not imported; a fake in tests).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shared_types.models import DepthModel

from stereo_models.depth_models import CATALOG, best_installed, install_command

FIRST_MODEL = DepthModel.DA2_SMALL  # the one a GPU downloads on first use (Apache-2.0)
GpuProbe = Callable[[], bool]  # whether the engine here has a CUDA GPU
HubProbe = Callable[[str], bool]  # whether the hub answers for a model (``hub_reachable``)
# (frames, pixels a frame) of the video to convert, (None, None) when it cannot be read
Measure = Callable[[], tuple[int | None, int | None]]

# CPU cost of a conversion, in core-seconds (docs/BENCHMARKS.md): the weight-free
# default converts 720p half-SBS at ~95 frames/s on 2 cores ("convert_throughput",
# 6.28 s for 600 frames: 0.021 core-s a frame at 0.92 megapixels); Depth-Anything-V2-
# Small at 518 px runs at ~0.33 frames/s on the same 2 cores, the rest of the
# conversion a rounding error beside it.
HEURISTIC_CORE_S_PER_MEGAPIXEL = 0.023
MODEL_CORE_S_PER_FRAME = {FIRST_MODEL.value: 6.0}
_GPU_NODES = ("/dev/nvidiactl", "/dev/nvidia0")


@dataclass(frozen=True)
class Estimate:
    model: str
    seconds: float


@dataclass(frozen=True)
class DefaultDepth:
    model: DepthModel
    download: bool = False  # FIRST_MODEL must be downloaded before the conversion
    offline: bool = False  # a model was wanted but none can be had here
    estimates: tuple[Estimate, ...] = ()  # on a CPU: each choice's time for this video

    @property
    def notice(self) -> str | None:
        """The one line a CLI prints and a job page shows, or None."""
        if self.offline:
            return offline_notice()
        if self.download:
            card = CATALOG[FIRST_MODEL.value]
            return (f"depth: {card.name} (downloading it for its first use: "
                    f"{card.size_mb} MB, {card.licence})")
        return None


def offline_notice() -> str:
    """Why the weight-free default runs, and the command that installs a model."""
    return ("depth: the weight-free default (no depth model is installed and none can be "
            f"downloaded now); `{install_command(FIRST_MODEL.value)}` installs one")


def choose_default_depth(models_dir: Path | None, *, has_gpu: GpuProbe, auto_download: bool,
                         hub_answers: HubProbe, measure: Measure | None = None,
                         cores: int | None = None) -> DefaultDepth:
    """The model for a conversion whose depth model the person left unset.

    ``measure`` (the video's frames and pixels) and ``cores`` (default: this
    machine's) give the CPU estimates; without a length there are none. The
    probes are asked only when nothing is installed; the hub only when
    downloads are allowed and there is a models folder; ``measure`` only on a CPU.
    """
    installed = best_installed(models_dir)
    if installed is not DepthModel.HEURISTIC:
        return DefaultDepth(installed)
    online = (auto_download and models_dir is not None
              and hub_answers(FIRST_MODEL.value))
    if not online:
        return DefaultDepth(DepthModel.HEURISTIC, offline=True)
    if has_gpu():
        return DefaultDepth(FIRST_MODEL, download=True)
    frames, pixels = measure() if measure else (None, None)
    return DefaultDepth(DepthModel.HEURISTIC, estimates=cpu_estimates(frames, pixels, cores))


def cpu_estimates(frames: int | None, pixels: int | None,
                  cores: int | None = None) -> tuple[Estimate, ...]:
    """(the weight-free default, FIRST_MODEL) estimated seconds on this CPU for a
    video of ``frames`` frames of ``pixels`` pixels; () when its length is unknown."""
    if not frames:
        return ()
    cores = max(1, cores or os.cpu_count() or 1)
    megapixels = (pixels or 1280 * 720) / 1e6
    heuristic = frames * HEURISTIC_CORE_S_PER_MEGAPIXEL * megapixels / cores
    model = frames * MODEL_CORE_S_PER_FRAME[FIRST_MODEL.value] / cores
    return (Estimate(DepthModel.HEURISTIC.value, heuristic),
            Estimate(FIRST_MODEL.value, model + heuristic))


def gpu_driver_present() -> bool:
    """Whether this machine has an NVIDIA driver's device nodes (a GPU the engine
    can use, short of importing torch to ask it)."""
    return any(os.path.exists(node) for node in _GPU_NODES)


def duration_words(seconds: float) -> str:
    """``seconds`` as a person reads an estimate: "about 40 s", "about 1 h 5 min"."""
    seconds = max(1, round(seconds))
    if seconds < 90:
        return f"about {seconds} s"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"about {minutes} min"
    return f"about {minutes // 60} h {minutes % 60} min"


def choices_line(estimates: tuple[Estimate, ...], *, pick: str) -> str | None:
    """One line offering both choices with their time, ``pick`` saying how to take
    the model (e.g. "--depth depth-anything-v2-small"); None without estimates."""
    if not estimates:
        return None
    default, model = estimates
    return (f"depth: {default.model}, {duration_words(default.seconds)} for this video; "
            f"{model.model} (a learned model, downloads on first use) would take "
            f"{duration_words(model.seconds)} on this CPU: {pick}")


def settle_default_depth(models_dir: Path | None, *, has_gpu: GpuProbe, auto_download: bool,
                         endpoint: str | None, say: Callable[[str], None], pick: str,
                         measure: Measure | None = None, cores: int | None = None,
                         progress=None) -> DepthModel:
    """What a CLI does for a conversion with no depth model named: choose one
    (``choose_default_depth``), say its line (the download, the choices with
    their time, or the offline notice) through ``say``, download the model when
    the choice asks for it (``progress(file, done, total)`` sees the bytes), and
    return the model to convert with. A download that fails falls back to the
    weight-free default with the offline notice: the conversion still runs.
    """
    from shared_types.errors import ModelDownloadError

    from stereo_models.model_install import download_model, hub_reachable

    choice = choose_default_depth(
        models_dir, has_gpu=has_gpu, auto_download=auto_download,
        hub_answers=lambda name: hub_reachable(name, endpoint, timeout_s=3.0),
        measure=measure, cores=cores)
    line = choice.notice or choices_line(choice.estimates, pick=pick)
    if line:
        say(line)
    if not choice.download or models_dir is None:  # (no folder: nothing to download into)
        return choice.model
    try:
        download_model(choice.model.value, models_dir, endpoint=endpoint, progress=progress)
    except ModelDownloadError as exc:
        say(f"{offline_notice()} ({exc})")
        return DepthModel.HEURISTIC
    return choice.model
