"""The SSE progress stream of one job."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sse_starlette import EventSourceResponse

from web_ui.dependencies import BackendDep, EtaDep, JobDep, SettingsDep
from web_ui.sse import progress_response

router = APIRouter()


@router.get("/jobs/{job_id}/events", include_in_schema=False)
async def job_events(
    request: Request, job: JobDep, backend: BackendDep, settings: SettingsDep, eta: EtaDep,
) -> EventSourceResponse:
    return progress_response(
        request, backend, job.job_id, eta, poll_s=settings.sse_poll_s, ping_s=settings.sse_ping_s
    )
