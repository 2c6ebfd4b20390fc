"""What a held job's page shows: its thumbnail strip (with the moment each
thumbnail shows) and its latest preview clip, playable once converted."""

from __future__ import annotations

from dataclasses import dataclass

from shared_types.dtos import PresignedPlaybackResponse, PreviewSettings
from shared_types.iw3_controls import iw3_refusals
from shared_types.keys import source_key, thumbnail_key
from shared_types.models import ConversionParams, DepthModel, Job, JobStatus
from shared_types.ports import Backend
from shared_types.preview import CLIP_SECONDS, thumbnail_times

from web_ui.errors import BadRequestError
from web_ui.jobs import playback


@dataclass(frozen=True)
class Thumbnail:
    at_s: float
    url: str


@dataclass(frozen=True)
class PreviewPanel:
    duration_s: float
    thumbnails: list[Thumbnail]
    clip: Job | None
    clip_playback: PresignedPlaybackResponse | None
    clip_seconds: float = CLIP_SECONDS


def with_settings(params: ConversionParams, chosen: PreviewSettings) -> ConversionParams:
    """The job's params with the strength, screen plane, comfort controls and
    depth model the person chose (those left out stay the job's). A strength
    changed here is the person's: a viewing preset no longer sets it. Raises
    BadRequestError for a control the chosen depth (iw3) cannot carry out."""
    update = chosen.model_dump(exclude_none=True, include=set(PreviewSettings.model_fields))
    if (chosen.divergence, chosen.convergence) != (params.divergence, params.convergence):
        update["fit_strength"] = False
    chosen_params = ConversionParams.model_validate({**params.model_dump(), **update})
    refused = chosen_params.depth_model is DepthModel.IW3 and iw3_refusals(chosen_params)
    if refused:
        raise BadRequestError("; ".join(refused))
    return chosen_params


def takes_upload(backend: Backend, job: Job) -> bool:
    """Whether the job page offers the upload form: a created job, or a held
    one whose video has not arrived yet."""
    if job.status == JobStatus.CREATED:
        return True
    return (job.status == JobStatus.AWAITING_CONFIRMATION and job.source_etag is None
            and not backend.input_storage.exists(source_key(job.job_id)))


def preview_panel(backend: Backend, job: Job, *, expires_s: int) -> PreviewPanel | None:
    """The preview panel of a held job whose video was read; None otherwise."""
    if job.status != JobStatus.AWAITING_CONFIRMATION or job.source_duration_s is None:
        return None
    count = job.thumbnails or 0
    thumbs = [Thumbnail(at, backend.output_storage.presign_get(thumbnail_key(job.job_id, i),
                                                               expires_s=expires_s))
              for i, at in enumerate(thumbnail_times(job.source_duration_s, count))]
    clip = backend.jobs.get(job.preview_job_id) if job.preview_job_id else None
    urls = (playback(backend, clip, expires_s=expires_s)
            if clip is not None and clip.status == JobStatus.COMPLETED else None)
    return PreviewPanel(job.source_duration_s, thumbs, clip, urls)
