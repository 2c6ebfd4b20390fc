"""The JSON API under /api/ (OpenAPI at /openapi.json)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from shared_types.cancel import cancel_job
from shared_types.dtos import (
    CreateJobRequest,
    CreateJobResponse,
    JobListItem,
    JobListResponse,
    JobView,
    PresignedPlaybackResponse,
)
from shared_types.models import Job
from shared_types.ports import Backend

from web_ui import jobs as job_service
from web_ui import lifecycle, uploads, webhooks
from web_ui.dependencies import (
    LIMITED_API,
    SAFE_API,
    BackendDep,
    DepthDefaultsDep,
    EtaDep,
    JobDep,
    SettingsDep,
    UserDep,
)
from web_ui.eta import EtaEstimator
from web_ui.model_choice import resolve_params
from web_ui.progress_snapshot import snapshot

router = APIRouter(prefix="/api", tags=["jobs"])


def job_view(backend: Backend, job: Job, eta: EtaEstimator) -> JobView:
    """The API's view of a job: its fields, progress and, when failed, why."""
    progress = snapshot(backend, job, eta).as_progress()
    return JobView.model_validate({**job.model_dump(), "progress": progress})


def _item(job: Job) -> JobListItem:
    return JobListItem.model_validate(job.model_dump(include=set(JobListItem.model_fields)))


@router.post("/jobs", status_code=201, dependencies=LIMITED_API)
def create_job(
    body: CreateJobRequest, backend: BackendDep, settings: SettingsDep,
    defaults: DepthDefaultsDep, user: UserDep,
) -> CreateJobResponse:
    """Create a job and return the form to POST its source video with (the
    storage refuses a file over ``max_upload_bytes``)."""
    body = body.model_copy(update={"params": resolve_params(body.params, settings, defaults)})
    webhooks.form_url(body.webhook_url, settings.webhook_policy)  # scheme checked before any job
    job = job_service.create_job(backend, body, user,
                                 depth_notice=defaults.notice_for(body.params.depth_model))
    upload = uploads.upload_form(backend, job, max_bytes=settings.max_upload_bytes,
                                 expires_s=settings.upload_url_expires_s)
    return CreateJobResponse(
        job_id=job.job_id, upload_url=upload.url, upload_method=upload.method,
        upload_headers=upload.headers, upload_fields=upload.fields,
        max_upload_bytes=upload.max_bytes or settings.max_upload_bytes,
    )


@router.get("/jobs")
def list_jobs(
    backend: BackendDep, settings: SettingsDep, user: UserDep,
    cursor: Annotated[str | None, Query(max_length=job_service.MAX_CURSOR_LENGTH)] = None,
) -> JobListResponse:
    """In-progress and failed jobs (first page only), then completed jobs, newest
    first: the user's own (every job for an admin)."""
    listing = job_service.list_jobs(backend, user, limit=settings.page_size, cursor=cursor)
    jobs = listing.in_progress + listing.failed + listing.completed
    return JobListResponse(items=[_item(j) for j in jobs], next_cursor=listing.next_cursor)


@router.get("/jobs/{job_id}")
def get_job(job: JobDep, backend: BackendDep, eta: EtaDep) -> JobView:
    """The job with its progress and, when failed, why."""
    return job_view(backend, job, eta)


@router.post("/jobs/{job_id}/cancel", dependencies=SAFE_API)
def cancel(job: JobDep, backend: BackendDep, eta: EtaDep) -> JobView:
    """Stop the job at any stage and free its files; it ends ``cancelled``."""
    job = cancel_job(backend, job)
    lifecycle.discard_clip(backend, job.preview_job_id)  # its preview goes with it
    return job_view(backend, job, eta)


@router.get("/jobs/{job_id}/playback")
def get_playback(
    job: JobDep, backend: BackendDep, settings: SettingsDep
) -> PresignedPlaybackResponse:
    """Presigned stream and download URLs of a completed job."""
    return job_service.playback(backend, job, expires_s=settings.playback_url_expires_s)
