"""Preview before converting all: convert 10 s of a held job from a chosen
moment with the chosen settings, then convert the whole video (JSON and form)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form
from fastapi.responses import RedirectResponse, Response
from shared_types.dtos import JobView, PreviewRequest, PreviewSettings
from shared_types.preview import convert_whole, start_clip

from web_ui.dependencies import SAFE_API, SAFE_FORM, BackendDep, EtaDep, JobDep
from web_ui.lifecycle import discard_clip
from web_ui.preview import with_settings
from web_ui.routes.api import job_view

router = APIRouter()

Divergence = Annotated[float, Form(ge=0.0, le=10.0)]
Convergence = Annotated[float, Form(ge=0.0, le=1.0)]


@router.post("/api/jobs/{job_id}/preview", status_code=201, dependencies=SAFE_API,
             tags=["jobs"])
def api_preview(job: JobDep, body: PreviewRequest, backend: BackendDep, eta: EtaDep) -> JobView:
    """Convert 10 s of a held job from ``start_s``; returns the clip job (poll it,
    then play it with its playback URLs)."""
    clip = start_clip(backend, job, body.start_s, with_settings(job.params, body))
    discard_clip(backend, job.preview_job_id)
    return job_view(backend, clip, eta)


@router.post("/api/jobs/{job_id}/convert", dependencies=SAFE_API, tags=["jobs"])
def api_convert(job: JobDep, body: PreviewSettings, backend: BackendDep, eta: EtaDep) -> JobView:
    """Convert the whole held video with these settings."""
    return job_view(backend, convert_whole(backend, job, with_settings(job.params, body)), eta)


@router.post("/jobs/{job_id}/preview", dependencies=SAFE_FORM, include_in_schema=False)
def form_preview(job: JobDep, backend: BackendDep, start_s: Annotated[float, Form(ge=0.0)],
                 divergence: Divergence, convergence: Convergence) -> Response:
    chosen = PreviewSettings(divergence=divergence, convergence=convergence)
    start_clip(backend, job, start_s, with_settings(job.params, chosen))
    discard_clip(backend, job.preview_job_id)
    return RedirectResponse(f"/jobs/{job.job_id}#preview", status_code=303)


@router.post("/jobs/{job_id}/convert", dependencies=SAFE_FORM, include_in_schema=False)
def form_convert(job: JobDep, backend: BackendDep, divergence: Divergence,
                 convergence: Convergence) -> Response:
    chosen = PreviewSettings(divergence=divergence, convergence=convergence)
    convert_whole(backend, job, with_settings(job.params, chosen))
    return RedirectResponse(f"/jobs/{job.job_id}", status_code=303)
