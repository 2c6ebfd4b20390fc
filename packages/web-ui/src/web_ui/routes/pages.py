"""Server-rendered pages and the HTML form actions."""

from __future__ import annotations

from contextlib import suppress
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from shared_types.cancel import cancel_job
from shared_types.dtos import CreateJobRequest
from shared_types.failure import retry_refusal
from shared_types.models import (
    CROSS_EYED_MODES,
    AnaglyphMethod,
    Container,
    ConversionParams,
    DepthModel,
    DynamicRange,
    JobStatus,
    OutputMode,
    VideoCodec,
)
from shared_types.retry import retry_job

from web_ui import jobs as job_service
from web_ui import lifecycle, uploads, webhooks
from web_ui.comfort_chart import job_comfort_chart
from web_ui.comfort_form import ComfortFields, ViewingFields, form_model
from web_ui.dependencies import (
    LIMITED_FORM,
    SAFE_FORM,
    BackendDep,
    DepthDefaultsDep,
    EtaDep,
    JobDep,
    SettingsDep,
    TemplatesDep,
    UserDep,
)
from web_ui.errors import JobStateError
from web_ui.model_choice import resolve_params
from web_ui.preview import preview_panel, takes_upload
from web_ui.progress_snapshot import snapshot
from web_ui.templating import render

router = APIRouter(include_in_schema=False)

RECENT_JOBS = 10


@router.get("/")
def dashboard(request: Request, backend: BackendDep, settings: SettingsDep,
              templates: TemplatesDep, user: UserDep) -> Response:
    listing = job_service.list_jobs(backend, user, limit=RECENT_JOBS)
    recent = listing.recent(RECENT_JOBS)
    posters = job_service.poster_urls(recent)
    return render(templates, request, "index.html",
                  {"listing": listing, "recent": recent, "posters": posters,
                   "max_upload_bytes": settings.max_upload_bytes,
                   "single_upload_bytes": settings.upload_part_bytes,
                   "webhooks_enabled": settings.webhook_secret is not None})


@router.get("/jobs")
def job_list(
    request: Request, backend: BackendDep, settings: SettingsDep, templates: TemplatesDep,
    user: UserDep,
    cursor: Annotated[str | None, Query(max_length=job_service.MAX_CURSOR_LENGTH)] = None,
) -> Response:
    listing = job_service.list_jobs(backend, user, limit=settings.page_size, cursor=cursor)
    posters = job_service.poster_urls(listing.jobs)
    return render(templates, request, "jobs.html",
                  {"listing": listing, "cursor": cursor, "posters": posters})


@router.post("/jobs", dependencies=LIMITED_FORM)
def create_job(
    backend: BackendDep,
    settings: SettingsDep,
    user: UserDep,
    defaults: DepthDefaultsDep,
    comfort: ComfortFields,
    viewing: ViewingFields,
    mode: Annotated[OutputMode, Form()],
    title: Annotated[str | None, Form(max_length=200)] = None,
    divergence: Annotated[float, Form(ge=0.0, le=10.0)] = 2.0,
    convergence: Annotated[float, Form(ge=0.0, le=1.0)] = 0.5,
    depth_model: Annotated[DepthModel | None, Form()] = None,
    anaglyph_method: Annotated[AnaglyphMethod, Form()] = AnaglyphMethod.DUBOIS,
    container: Annotated[Container, Form()] = Container.MP4,
    dynamic_range: Annotated[DynamicRange, Form()] = DynamicRange.KEEP,
    subtitles_3d: Annotated[bool, Form()] = False,
    codec: Annotated[VideoCodec, Form()] = VideoCodec.X264,
    cross_eyed: Annotated[bool, Form()] = False,
    start_s: Annotated[float | None, Form(ge=0.0)] = None,
    end_s: Annotated[float | None, Form(gt=0.0)] = None,
    webhook_url: Annotated[str | None, Form(max_length=2000)] = None,
    preview: Annotated[bool, Form()] = False,
) -> Response:
    chosen = {"depth_model": depth_model} if depth_model else {}
    params = resolve_params(form_model(
        ConversionParams, divergence=divergence, convergence=convergence,
        anaglyph_method=anaglyph_method, dynamic_range=dynamic_range,
        subtitles_3d=subtitles_3d, codec=codec,
        cross_eyed=cross_eyed, start_s=start_s, end_s=end_s, **chosen, **comfort, **viewing,
    ), settings, defaults)
    if cross_eyed and mode not in CROSS_EYED_MODES:  # said on the form, not after the upload
        raise RequestValidationError([{
            "type": "value_error", "loc": ("body", "cross_eyed"), "input": cross_eyed,
            "msg": "cross-eyed is for the side-by-side formats (full or half width)"}])
    hook = webhooks.form_url(webhook_url, settings.webhook_policy)
    job = job_service.create_job(
        backend, form_model(CreateJobRequest, mode=mode, title=title, params=params,
                             container=container, webhook_url=hook, preview=preview),
        user, depth_notice=defaults.notice_for(params.depth_model),
    )
    return RedirectResponse(f"/jobs/{job.job_id}", status_code=303)


@router.get("/jobs/{job_id}")
def job_page(
    request: Request, job: JobDep, backend: BackendDep, settings: SettingsDep, eta: EtaDep,
    templates: TemplatesDep, defaults: DepthDefaultsDep,
) -> Response:
    context: dict = {
        "job": job,
        "progress": snapshot(backend, job, eta),
        "max_upload_bytes": settings.max_upload_bytes,
        "eta_seconds_per_mb": eta.seconds_per_mb(),
        "eta_fixed_s": round(eta.fixed_seconds(), 1),
    }
    if job.status in job_service.WAITING_FOR_UPLOAD:
        # The form posts straight to storage, so uploading works without
        # JavaScript; the storage sends the browser back here afterwards.
        context["single_upload_bytes"] = settings.upload_part_bytes
        context["form_cap_bytes"] = uploads.single_request_cap(settings.max_upload_bytes)
        with suppress(JobStateError):
            context["upload_form"] = uploads.upload_form(
                backend, job, max_bytes=settings.max_upload_bytes,
                expires_s=settings.upload_url_expires_s,
                redirect=str(request.url_for("job_page", job_id=job.job_id)))
    if job.status == JobStatus.COMPLETED:
        context["playback"] = job_service.playback(
            backend, job, expires_s=settings.playback_url_expires_s
        )
    context["comfort_chart"] = job_comfort_chart(backend, job)
    context["preview"] = preview_panel(backend, job, expires_s=settings.playback_url_expires_s)
    if context["preview"] is not None:
        context["depth_choices"] = defaults.preview_choices(job)
    context["takes_upload"] = takes_upload(backend, job)
    # a job that failed for its own input would fail again: no Retry, and why
    context["retry_refusal"] = retry_refusal(job)
    return render(templates, request, "job.html", context)


@router.get("/jobs/{job_id}/play")
def play(job: JobDep, backend: BackendDep, settings: SettingsDep) -> Response:
    urls = job_service.playback(backend, job, expires_s=settings.playback_url_expires_s)
    return RedirectResponse(urls.url, status_code=307)


@router.get("/jobs/{job_id}/poster")
def poster(job: JobDep, backend: BackendDep, settings: SettingsDep) -> Response:
    location = job_service.poster_location(backend, job,
                                           expires_s=settings.playback_url_expires_s)
    # briefly cached: a running job's poster appears once its source is probed
    return RedirectResponse(location, status_code=307,
                            headers={"Cache-Control": "private, max-age=30"})


@router.post("/jobs/{job_id}/cancel", dependencies=SAFE_FORM)
def cancel(job: JobDep, backend: BackendDep) -> Response:
    cancel_job(backend, job)
    lifecycle.discard_clip(backend, job.preview_job_id)  # its preview goes with it
    return RedirectResponse(f"/jobs/{job.job_id}", status_code=303)


@router.post("/jobs/{job_id}/retry", dependencies=SAFE_FORM)
def retry(job: JobDep, backend: BackendDep) -> Response:
    retry_job(backend, job)
    return RedirectResponse(f"/jobs/{job.job_id}", status_code=303)


@router.post("/jobs/{job_id}/delete", dependencies=SAFE_FORM)
def delete(job: JobDep, backend: BackendDep) -> Response:
    lifecycle.delete_job(backend, job.job_id)
    lifecycle.discard_clip(backend, job.preview_job_id)
    return RedirectResponse("/jobs", status_code=303)


@router.get("/healthz", include_in_schema=True)
def healthz() -> dict[str, str]:
    return {"status": "ok"}



