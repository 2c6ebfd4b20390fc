"""Preview before converting all: convert 10 s of a held job from a chosen
moment with the chosen settings, then convert the whole video (JSON and form)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form
from fastapi.responses import RedirectResponse, Response
from shared_types.dtos import JobView, PreviewRequest, PreviewSettings
from shared_types.models import DepthModel
from shared_types.preview import convert_whole, start_clip

from web_ui.comfort_form import ComfortFields
from web_ui.dependencies import (
    SAFE_API,
    SAFE_FORM,
    BackendDep,
    DepthDefaultsDep,
    EtaDep,
    JobDep,
    SettingsDep,
)
from web_ui.depth_upload import has_depth_video
from web_ui.errors import JobStateError
from web_ui.lifecycle import discard_clip
from web_ui.model_choice import resolve_params
from web_ui.preview import with_settings
from web_ui.routes.api import job_view

router = APIRouter()

Divergence = Annotated[float, Form(ge=0.0, le=10.0)]
Convergence = Annotated[float, Form(ge=0.0, le=1.0)]
Chosen = Annotated[DepthModel | None, Form()]  # the depth model picked in the preview


@router.post("/api/jobs/{job_id}/preview", status_code=201, dependencies=SAFE_API,
             tags=["jobs"])
def api_preview(job: JobDep, body: PreviewRequest, backend: BackendDep, eta: EtaDep,
                settings: SettingsDep, defaults: DepthDefaultsDep) -> JobView:
    """Convert 10 s of a held job from ``start_s``; returns the clip job (poll it,
    then play it with its playback URLs)."""
    refuse_clips_of_imported_depth(backend, job)
    params = resolve_params(with_settings(job.params, body), settings, defaults)
    clip = start_clip(backend, job, body.start_s, params)
    discard_clip(backend, job.preview_job_id)
    return job_view(backend, clip, eta)


@router.post("/api/jobs/{job_id}/convert", dependencies=SAFE_API, tags=["jobs"])
def api_convert(job: JobDep, body: PreviewSettings, backend: BackendDep, eta: EtaDep,
                settings: SettingsDep, defaults: DepthDefaultsDep) -> JobView:
    """Convert the whole held video with these settings."""
    params = resolve_params(with_settings(job.params, body), settings, defaults)
    return job_view(backend, convert_whole(backend, job, params), eta)


@router.post("/jobs/{job_id}/preview", dependencies=SAFE_FORM, include_in_schema=False)
def form_preview(job: JobDep, backend: BackendDep, start_s: Annotated[float, Form(ge=0.0)],
                 divergence: Divergence, convergence: Convergence,
                 comfort: ComfortFields, settings: SettingsDep, defaults: DepthDefaultsDep,
                 depth_model: Chosen = None) -> Response:
    refuse_clips_of_imported_depth(backend, job)
    chosen = PreviewSettings(divergence=divergence, convergence=convergence,
                             depth_model=depth_model, **comfort)
    start_clip(backend, job, start_s,
               resolve_params(with_settings(job.params, chosen), settings, defaults))
    discard_clip(backend, job.preview_job_id)
    return RedirectResponse(f"/jobs/{job.job_id}#preview", status_code=303)


@router.post("/jobs/{job_id}/convert", dependencies=SAFE_FORM, include_in_schema=False)
def form_convert(job: JobDep, backend: BackendDep, divergence: Divergence,
                 convergence: Convergence, comfort: ComfortFields, settings: SettingsDep,
                 defaults: DepthDefaultsDep, depth_model: Chosen = None) -> Response:
    chosen = PreviewSettings(divergence=divergence, convergence=convergence,
                             depth_model=depth_model, **comfort)
    convert_whole(backend, job,
                  resolve_params(with_settings(job.params, chosen), settings, defaults))
    return RedirectResponse(f"/jobs/{job.job_id}", status_code=303)


def refuse_clips_of_imported_depth(backend, job) -> None:
    """A clip would need its part of the imported depth: not offered (yet)."""
    if has_depth_video(backend, job):
        raise JobStateError("This video converts with an imported depth video, which is "
                            "followed frame for frame over the whole video: convert it whole.")
