"""Which depth models a job may ask for here, and the job-creation check.

The form offers the default first and selected (``depth_defaults``: the best
installed; on a GPU with nothing installed, Depth-Anything-V2-Small, downloaded
on first use; on a CPU each choice says its time), installed models next, then
the others: marked "to download" when downloads are
on, else "not installed". A job asking for a model that cannot run here is
refused when it is created, before any upload, with the command that installs it.
iw3 is offered only where it runs: on the local backend the engine converts
in-process, in this environment, so its package must import here; on AWS the
GPU image converts, and it has iw3.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared_types.models import ConversionParams, DepthModel
from stereo_models.depth_models import CATALOG, is_installed, iw3_installed
from stereo_models.model_install import check_model_available

from web_ui.depth_defaults import DepthDefaults
from web_ui.settings import WebSettings


@dataclass(frozen=True)
class ModelOption:
    name: str
    label: str
    is_default: bool
    is_installed: bool


def _engine_here(settings: WebSettings) -> bool:
    """Whether jobs are converted in this environment (the local stack's workers)."""
    return settings.backend == "local"


def model_options(settings: WebSettings, defaults: DepthDefaults) -> list[ModelOption]:
    """Every frame model that can run for the form's select: installed first, best
    first; the default is ``defaults``' (a GPU's first model, downloaded on first
    use), and on a CPU the weight-free default and the model say their time."""
    default = defaults.choice().model
    times = defaults.form_notes()
    names = [card.name for card in sorted(CATALOG.values(), key=lambda c: -c.quality)]
    names.append(DepthModel.HEURISTIC.value)
    if not _engine_here(settings) or iw3_installed():
        names.append(DepthModel.IW3.value)
    options = []
    for name in names:
        installed = name not in CATALOG or is_installed(name, settings.models_dir)
        notes = []
        if name == default:
            notes.append("default")
        if not installed:
            # a model the catalogue does not pin is never downloaded (model_install)
            notes.append("to download"
                         if settings.model_auto_download and CATALOG[name].pinned
                         else "not installed")
        if name in times:
            notes.append(times[name])
        note = f" ({', '.join(notes)})" if notes else ""
        options.append(ModelOption(name, name + note, name == default, installed))
    return sorted(options, key=lambda o: (not o.is_default, not o.is_installed))


def resolve_params(params: ConversionParams, settings: WebSettings,
                   defaults: DepthDefaults) -> ConversionParams:
    """``params`` with ``defaults``' model when none was asked for, checked.

    Raises ModelUnavailableError when the model cannot run here.
    """
    if "depth_model" not in params.model_fields_set:
        params = params.model_copy(update={"depth_model": defaults.choice().model})
    check_model_available(params.depth_model, settings.models_dir,
                          auto_download=settings.model_auto_download,
                          endpoint=settings.hub_endpoint, engine_here=_engine_here(settings))
    return params
