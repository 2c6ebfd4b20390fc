"""Request and response bodies of the web API (FastAPI validates with these)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shared_types.iw3_controls import iw3_refusals
from shared_types.models import (
    CROSS_EYED_MODES,
    Container,
    ConversionParams,
    DepthModel,
    JobError,
    JobStatus,
    OutputMode,
)
from shared_types.stereo_controls import DepthCurve, SynthesisedEye


class CreateJobRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: OutputMode
    title: str | None = Field(None, max_length=200)
    params: ConversionParams = Field(default_factory=ConversionParams)
    container: Container = Container.MP4
    # Called with a signed JSON body when the job ends (http or https only).
    webhook_url: str | None = Field(None, max_length=2000, pattern=r"^https?://[^\s]+$")
    # Hold the job after its upload: preview 10 s clips, then convert the whole video.
    preview: bool = False

    @model_validator(mode="after")
    def _cross_eyed_is_side_by_side(self) -> CreateJobRequest:
        if self.params.cross_eyed and self.mode not in CROSS_EYED_MODES:
            raise ValueError("cross-eyed is for the side-by-side modes (sbs, half-sbs)")
        return self

    @model_validator(mode="after")
    def _iw3_does_what_is_asked(self) -> CreateJobRequest:
        refused = self.params.depth_model is DepthModel.IW3 and iw3_refusals(self.params)
        if refused:
            raise ValueError("; ".join(refused))
        return self


class PreviewSettings(BaseModel):
    """The settings a person adjusts between previews (the rest are the job's)."""

    model_config = ConfigDict(extra="forbid")

    divergence: float = Field(ge=0.0, le=10.0)
    convergence: float = Field(ge=0.0, le=1.0)
    # the comfort controls; None keeps the job's (ConversionParams says what each does)
    auto_convergence: bool | None = None
    foreground_scale: float | None = Field(None, ge=0.0, le=3.0)
    edge_dilation: int | None = Field(None, ge=0, le=8)
    ipd_offset: float | None = Field(None, ge=-2.0, le=2.0)
    floating_window: bool | None = None
    synthesised_eye: SynthesisedEye | None = None
    depth_curve: DepthCurve | None = None
    depth_model: DepthModel | None = None  # None: the job's


class PreviewRequest(PreviewSettings):
    """Convert 10 s of a held job from ``start_s`` with these settings."""

    start_s: float = Field(ge=0.0)


class CreateJobResponse(BaseModel):
    """Where the source goes: a presigned POST form (``upload_fields``, then the
    file as the last field, ``file``) whose signed policy caps its size at
    ``max_upload_bytes``; the storage refuses a larger file."""

    job_id: str
    upload_url: str
    upload_method: str = "POST"
    upload_headers: dict[str, str] = Field(default_factory=dict)
    upload_fields: dict[str, str] = Field(default_factory=dict)
    max_upload_bytes: int


class JobProgress(BaseModel):
    stage: str
    segments_done: int = 0
    segments_total: int | None = None
    percent: float = 0.0
    eta_seconds: float | None = None
    frames_done: int | None = None  # from the workers' heartbeats, while converting
    frames_total: int | None = None
    fps: float | None = None


class JobListItem(BaseModel):
    job_id: str
    mode: OutputMode
    status: JobStatus
    title: str | None = None
    created_at: float
    completed_at: float | None = None


class JobView(JobListItem):
    """A job's list fields plus what its page and the API's job view show."""

    progress: JobProgress
    error: JobError | None = None
    params: ConversionParams
    container: Container = Container.MP4
    left_out: list[str] = Field(default_factory=list)  # what the file could not hold
    # Preview before converting all (shared_types.preview).
    parent_job_id: str | None = None
    clip_start_s: float | None = None
    clip_duration_s: float | None = None
    preview_job_id: str | None = None
    source_duration_s: float | None = None
    thumbnails: int | None = None


class JobListResponse(BaseModel):
    items: list[JobListItem]
    next_cursor: str | None = None


class PresignedPlaybackResponse(BaseModel):
    url: str
    download_url: str
    download_name: str
