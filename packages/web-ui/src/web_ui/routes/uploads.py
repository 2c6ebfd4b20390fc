"""The resumable upload API under /api/jobs/{job_id}/uploads (see web_ui.uploads)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, File, Path, UploadFile
from fastapi.responses import Response
from shared_types.models import PresignedRequest

from web_ui import uploads
from web_ui.dependencies import (
    LIMITED_API,
    SAFE_FORM,
    BackendDep,
    JobDep,
    SettingsDep,
    same_origin,
)
from web_ui.depth_upload import store_depth_video

router = APIRouter(prefix="/api/jobs/{job_id}/uploads", tags=["uploads"])
depth_router = APIRouter(tags=["uploads"])

UploadId = Annotated[str, Path(pattern=uploads.UPLOAD_ID_PATTERN)]


@router.post("", status_code=201, dependencies=LIMITED_API)
def start(job: JobDep, body: uploads.StartUpload, backend: BackendDep,
          settings: SettingsDep) -> uploads.UploadPlan:
    """Open a multipart upload of the job's source; says how to cut the file."""
    return uploads.start_upload(backend, job, body, max_bytes=settings.max_upload_bytes,
                                preferred_part_bytes=settings.upload_part_bytes,
                                max_in_flight=settings.max_bytes_in_flight)


@router.post("/form", dependencies=LIMITED_API)
def form(job: JobDep, body: uploads.StartUpload, backend: BackendDep,
         settings: SettingsDep) -> PresignedRequest:
    """A presigned POST form for a file small enough for one request; the
    storage refuses a file over its signed cap."""
    return uploads.start_form_upload(backend, job, body, max_bytes=settings.max_upload_bytes,
                                     max_in_flight=settings.max_bytes_in_flight,
                                     expires_s=settings.upload_url_expires_s)


@router.get("/{upload_id}")
def state(job: JobDep, upload_id: UploadId, backend: BackendDep) -> uploads.UploadState:
    """The parts already stored (a resumed upload sends only the others)."""
    return uploads.upload_state(backend, job, upload_id)


@router.post("/{upload_id}/parts", dependencies=LIMITED_API)
def part_urls(job: JobDep, upload_id: UploadId, body: uploads.PartUrlsRequest,
              backend: BackendDep, settings: SettingsDep) -> uploads.PartUrls:
    """Presigned PUT URLs for some parts."""
    return uploads.part_urls(backend, job, upload_id, body.part_numbers,
                             preferred_part_bytes=settings.upload_part_bytes,
                             expires_s=settings.upload_url_expires_s)


@router.post("/{upload_id}/complete", dependencies=LIMITED_API)
def complete(job: JobDep, upload_id: UploadId, backend: BackendDep,
             settings: SettingsDep) -> dict[str, int]:
    """Join the parts into the job's source; the conversion starts."""
    size = uploads.complete_upload(backend, job, upload_id, max_bytes=settings.max_upload_bytes)
    return {"size": size}


@router.delete("/{upload_id}", status_code=204, dependencies=[Depends(same_origin)])
def abort(job: JobDep, upload_id: UploadId, backend: BackendDep) -> Response:
    """Cancel the upload and free what was sent."""
    uploads.abort_upload(backend, job, upload_id)
    return Response(status_code=204)


@depth_router.post("/jobs/{job_id}/depth", status_code=204, dependencies=SAFE_FORM)
def upload_depth(job: JobDep, file: Annotated[UploadFile, File()], backend: BackendDep,
                 settings: SettingsDep) -> Response:
    """Store the job's depth video (before its source): the video is then converted
    with that depth, in one piece (``web_ui.depth_upload``)."""
    store_depth_video(backend, job, file, max_bytes=settings.max_upload_bytes)
    return Response(status_code=204)
