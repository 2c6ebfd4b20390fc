"""What the web UI does when a person leaves the depth model to it
(``stereo_models.default_depth``): the form's default, the job page's line when
no model can be had, and both choices with their time for a held job's video.

Only where the engine converts in this environment (the local backend): the
GPU asked of ``has_gpu`` (the driver's device nodes, short of importing torch;
a fake in tests), the hub's answer kept for a minute so that rendering a page
does not wait on the network each time. Elsewhere (AWS: the GPU image converts)
the default stays the best installed model.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from shared_types.models import DepthModel, Job
from stereo_models.default_depth import (
    FIRST_MODEL,
    DefaultDepth,
    Estimate,
    GpuProbe,
    choose_default_depth,
    duration_words,
)
from stereo_models.depth_models import best_installed
from stereo_models.model_install import hub_reachable

from web_ui.settings import WebSettings

HUB_ANSWER_TTL_S = 60.0
REFERENCE_MINUTE = (60 * 30, 1920 * 1080)  # a minute of 1080p30: the form's yardstick


@dataclass(frozen=True)
class DepthChoice:
    """One choice a held job's preview offers, with its time for that video."""

    name: str
    label: str
    is_default: bool


class DepthDefaults:
    def __init__(self, settings: WebSettings, has_gpu: GpuProbe, *,
                 clock=time.monotonic) -> None:
        self.settings, self.has_gpu, self._clock = settings, has_gpu, clock
        self._answer: tuple[float, bool] | None = None
        self._lock = threading.Lock()

    def choice(self, measure=None) -> DefaultDepth:
        """The default for a job (``measure``: its video's frames and pixels)."""
        if self.settings.backend != "local":
            return DefaultDepth(best_installed(self.settings.models_dir))
        return choose_default_depth(
            self.settings.models_dir, has_gpu=self.has_gpu,
            auto_download=self.settings.model_auto_download, hub_answers=self._hub_answers,
            measure=measure)

    def notice_for(self, model: DepthModel | str) -> str | None:
        """The line a new job's page shows about the default it got: the weight-free
        one because no model can be had here, or the model its first use downloads
        (the worker downloads it; ``/models`` shows a download started there)."""
        choice = self.choice()
        return choice.notice if str(model) == choice.model else None

    def form_notes(self) -> dict[str, str]:
        """Per model name, what the form says beside it on a CPU: its time for a
        minute of 1080p here (empty where there is nothing to weigh)."""
        estimates = self.choice(measure=lambda: REFERENCE_MINUTE).estimates
        return {e.model: f"{duration_words(e.seconds)} a minute of 1080p video here"
                for e in estimates}

    def preview_choices(self, job: Job) -> list[DepthChoice]:
        """Both choices with their time for ``job``'s video, where the person has
        something to weigh (a CPU, nothing installed, the model to be had)."""
        if not job.source_frames:
            return []
        pixels = (job.source_width or 0) * (job.source_height or 0) or None
        estimates = self.choice(measure=lambda: (job.source_frames, pixels)).estimates
        return [_preview_choice(e, job) for e in estimates]

    def _hub_answers(self, name: str) -> bool:
        with self._lock:
            if self._answer and self._clock() - self._answer[0] < HUB_ANSWER_TTL_S:
                return self._answer[1]
        answer = hub_reachable(name, self.settings.hub_endpoint, timeout_s=3.0)
        with self._lock:
            self._answer = (self._clock(), answer)
        return answer


def _preview_choice(estimate: Estimate, job: Job) -> DepthChoice:
    learned = estimate.model == FIRST_MODEL.value
    note = " on this CPU, downloads on first use" if learned else ""
    return DepthChoice(estimate.model,
                       f"{estimate.model}: {duration_words(estimate.seconds)} for this video{note}",
                       estimate.model == str(job.params.depth_model))

