"""Pydantic models shared by every service: jobs, segments, messages, records."""

from __future__ import annotations

import time
import uuid
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shared_types.stereo_controls import (  # noqa: F401 (named here for callers too)
    ComfortAction,
    DepthCurve,
    SynthesisedEye,
    ViewingPreset,
)


class Contract(BaseModel):
    """Every model here builds its validator on first use, not at import: the
    engine's CLI, which uses one of them, does not pay ~0.1 s for all of them."""

    model_config = ConfigDict(defer_build=True)


def now() -> float:
    """Seconds since the epoch; every timestamp in StereoSpot uses this unit."""
    return time.time()


def new_job_id() -> str:
    """A fresh job id (UUID4, canonical lowercase form)."""
    return str(uuid.uuid4())


class OutputMode(StrEnum):
    SBS = "sbs"
    HALF_SBS = "half-sbs"
    TB = "tb"
    HALF_TB = "half-tb"
    ANAGLYPH = "anaglyph"
    # equirectangular half-sphere per eye, side by side, with spherical metadata
    VR180 = "vr180"
    # the picture beside its depth (grey, white = near): full width each, or half
    RGBD = "rgbd"
    HALF_RGBD = "half-rgbd"


class Container(StrEnum):
    """The output file format: MP4 plays everywhere; MKV holds every stream as-is."""

    MP4 = "mp4"
    MKV = "mkv"


def packing_of(mode: OutputMode) -> str | None:
    """"sbs" or "tb" for a packed stereo layout, None for anaglyph (players
    read it as 2D, so it carries no stereo signalling)."""
    if mode in (OutputMode.SBS, OutputMode.HALF_SBS, OutputMode.VR180):
        return "sbs"
    if mode in (OutputMode.TB, OutputMode.HALF_TB):
        return "tb"
    return None


# the layouts whose views may be swapped for cross-eyed viewing
CROSS_EYED_MODES = (OutputMode.SBS, OutputMode.HALF_SBS)


def stereo_packing(mode: OutputMode, *, cross_eyed: bool = False) -> str | None:
    """The packing a file of ``mode`` says it has (frame-packing SEI, ``st3d``,
    ``StereoMode``): ``packing_of``, but none for a cross-eyed picture, whose
    right view is on the left (a player told "left-right" would swap the eyes)."""
    return None if cross_eyed else packing_of(mode)


class VideoCodec(StrEnum):
    """The output's video codec: H.264 plays everywhere; HEVC and AV1 are smaller
    for the same quality (AV1 through SVT-AV1, which has no frame-packing SEI:
    its files say they are 3D in the container alone)."""

    X264 = "x264"
    X265 = "x265"
    AV1 = "av1"


class PixelFormat(StrEnum):
    """The output's pixel format: 8-bit or 10-bit 4:2:0."""

    YUV420P = "yuv420p"
    YUV420P10 = "yuv420p10le"


class DynamicRange(StrEnum):
    """What happens to an HDR (PQ or HLG) source: kept as 10-bit HDR, or tone-mapped
    to 8-bit SDR BT.709 (highlights compressed, not clipped) for SDR screens."""

    KEEP = "keep"
    SDR = "sdr"


class AnaglyphMethod(StrEnum):
    DUBOIS = "dubois"
    COLOR = "color"
    GRAY = "gray"
    HALF_COLOR = "half-color"


class DepthModel(StrEnum):
    HEURISTIC = "heuristic"
    DA2_SMALL = "depth-anything-v2-small"
    DA2_BASE = "depth-anything-v2-base"
    DA2_LARGE = "depth-anything-v2-large"
    DAD_SMALL = "distill-any-depth-small"
    DAD_LARGE = "distill-any-depth-large"
    VDA_SMALL = "video-depth-anything-small"  # temporal: steadier from frame to frame
    IW3 = "iw3"


class JobStatus(StrEnum):
    CREATED = "created"
    # Uploaded for a preview: only the thumbnail strip is made; the person converts
    # 10 s clips (clip jobs) until "Convert the whole video" moves it to created.
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    CHUNKING_IN_PROGRESS = "chunking_in_progress"
    CHUNKING_COMPLETE = "chunking_complete"
    REASSEMBLING = "reassembling"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"  # stopped by the person; its files are freed

    @property
    def is_final(self) -> bool:
        return self in (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED)


# Every status that is not terminal: each has an owner and a sweep (the table in
# ``shared_types.lifecycle``). Derived, so a new terminal status never needs a second list.
IN_PROGRESS_STATUSES: tuple[JobStatus, ...] = tuple(s for s in JobStatus if not s.is_final)

ENCODER_PRESETS = (
    "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower",
)

# VR players detect the layout from these tags in the file name.
LAYOUT_TAGS: dict[OutputMode, str] = {
    OutputMode.SBS: "LRF_Full_SBS",
    OutputMode.HALF_SBS: "Half_SBS",
    OutputMode.TB: "TB",
    OutputMode.HALF_TB: "Half_TB",
    OutputMode.ANAGLYPH: "Anaglyph",
    OutputMode.VR180: "180x180_3dh_LR",
    OutputMode.RGBD: "RGBD",
    OutputMode.HALF_RGBD: "Half_RGBD",
}


class ConversionParams(Contract):
    """How a 2D video becomes 3D; bounded so no input can ask for nonsense."""

    model_config = ConfigDict(extra="forbid")

    divergence: float = Field(2.0, ge=0.0, le=10.0, description="Max disparity, % of width")
    convergence: float = Field(0.5, ge=0.0, le=1.0, description="Screen plane, 0 near .. 1 far")
    depth_model: DepthModel = DepthModel.HEURISTIC
    anaglyph_method: AnaglyphMethod = AnaglyphMethod.DUBOIS
    crf: int = Field(20, ge=0, le=51)
    preset: str = Field("veryfast", pattern="^(" + "|".join(ENCODER_PRESETS) + ")$")
    subtitles_3d: bool = Field(
        False, description="Burn the first text subtitle track into both views, in front")
    dynamic_range: DynamicRange = Field(
        DynamicRange.KEEP, description="keep HDR as it is, or tone-map it to SDR")
    # layouts and encoding (stereo_inference.codecs, stereo_inference.layouts)
    codec: VideoCodec = VideoCodec.X264
    pix_fmt: PixelFormat | None = Field(
        None, description="None: 8-bit, or 10-bit for an HDR source kept as HDR")
    bitrate_kbps: int | None = Field(
        None, ge=100, le=500_000, description="average bitrate; None: constant quality (crf)")
    max_fps: float | None = Field(
        None, gt=0.0, le=240.0, description="drop frames above this rate; None: keep all")
    cross_eyed: bool = Field(False, description="SBS layouts: the right view on the left")
    # the part of the source converted (seconds from its beginning; None: its start/end):
    # the chunker cuts it first (stereo_media.source_cut); the CLIs cut before the upload
    start_s: float | None = Field(None, ge=0.0, le=864_000.0)
    end_s: float | None = Field(None, gt=0.0, le=864_000.0)
    # Comfort controls (shared_types.stereo_controls; what they do: stereo_inference.shaping)
    auto_convergence: bool = Field(
        False, description="screen plane per shot from the depth, smoothed, reset at cuts")
    foreground_scale: float = Field(
        1.0, ge=0.0, le=3.0, description="scales the disparity in front of the screen")
    edge_dilation: int = Field(
        0, ge=0, le=8, description="grow near depth by this many depth pixels at object edges")
    ipd_offset: float = Field(
        0.0, ge=-2.0, le=2.0, description="disparity added everywhere, % of width (+ = further)")
    floating_window: bool = Field(
        False, description="mask the frame edge an object in front of the screen crosses")
    synthesised_eye: SynthesisedEye = SynthesisedEye.BOTH
    depth_curve: DepthCurve = DepthCurve.LINEAR
    viewing: ViewingPreset | None = Field(None, description="where the 3D is watched")
    viewer_ipd_mm: float = Field(63.0, ge=45.0, le=80.0)
    screen_width_m: float | None = Field(None, gt=0.05, le=30.0, description="custom viewing")
    viewing_distance_m: float | None = Field(None, gt=0.1, le=50.0, description="custom viewing")
    fit_strength: bool = Field(
        True, description="with a viewing preset, its strength replaces divergence/convergence")
    comfort: ComfortAction = ComfortAction.REPORT

    @model_validator(mode="after")
    def _custom_viewing_is_measured(self) -> ConversionParams:
        if self.viewing is ViewingPreset.CUSTOM and (
                self.screen_width_m is None or self.viewing_distance_m is None):
            raise ValueError("custom viewing needs the screen width and the viewing distance "
                             "(screen_width_m, viewing_distance_m)")
        return self

    @model_validator(mode="after")
    def _end_after_start(self) -> ConversionParams:
        if self.end_s is not None and self.end_s <= (self.start_s or 0.0):
            raise ValueError(f"the end ({self.end_s:g} s) must come after the start "
                             f"({self.start_s or 0:g} s)")
        return self


class JobError(Contract):
    """Why a job failed, in words a person understands."""

    code: str = Field(max_length=64)
    message: str = Field(max_length=2000)
    stage: str = Field(max_length=64)
    at: float = Field(default_factory=now)


class Job(Contract):
    job_id: str
    mode: OutputMode
    # The user who created it (the identity provider's ``sub``): only they, and
    # admins, see it. None: created before users existed (admins only).
    owner: str | None = Field(None, max_length=256)
    container: Container = Container.MP4
    status: JobStatus = JobStatus.CREATED
    created_at: float = Field(default_factory=now)
    title: str | None = Field(None, max_length=200)
    source_size_bytes: int | None = None
    # What the chunker's probe found (for the ETA and a frame-weighted percent).
    source_frames: int | None = Field(None, ge=0)
    source_width: int | None = Field(None, ge=0)
    source_height: int | None = Field(None, ge=0)
    # The source's start timecode (a camera's), put back on the final video.
    source_timecode: str | None = Field(None, max_length=32)
    # What of the source the output could not hold, named for people (ARIB captions,
    # Blu-ray subtitles in an MP4, telemetry in an MKV): the job page says so.
    left_out: list[str] = Field(default_factory=list, max_length=32)
    # What the job's page says about its depth model, in one line: e.g. that the
    # weight-free default runs because no model can be had, and how to install one.
    depth_notice: str | None = Field(None, max_length=500)
    # When the chunker claimed the upload: the conversion's clock starts here.
    started_at: float | None = None
    total_segments: int | None = None
    completed_at: float | None = None
    final_key: str | None = None
    error: JobError | None = None
    params: ConversionParams = Field(default_factory=ConversionParams)
    # Liveness proof of the job's current owner: every step refreshes it while it works.
    updated_at: float = Field(default_factory=now)
    # How many times a sweep re-sent this job's work; bounded, then the job fails.
    resends: int = Field(0, ge=0)
    # Bumped by every Retry: the reassembly trigger fires once per epoch.
    epoch: int = Field(0, ge=0)
    # The ETag of the one upload this job converts (claimed by the first chunker).
    source_etag: str | None = Field(None, max_length=200)
    # The chunking run whose segments this job converts: every chunker's claim takes the
    # next number (0: never chunked). Segment keys, converted-segment keys and
    # completions carry it; anything of another run is never joined (shared_types.runs).
    run: int = Field(0, ge=0)
    # Called with a signed JSON body when the job ends; notified_at once delivered.
    webhook_url: str | None = Field(None, max_length=2000)
    notified_at: float | None = None
    # Failed deliveries so far (bounded; web_ui.webhooks backs off between them).
    webhook_attempts: int = Field(0, ge=0)
    # Preview before converting all (shared_types.preview): a clip job converts
    # clip_duration_s of its parent's source from clip_start_s; a held parent
    # knows its latest clip, its source's duration and how many strip thumbnails exist.
    parent_job_id: str | None = Field(None, max_length=64)
    clip_start_s: float | None = Field(None, ge=0.0)
    clip_duration_s: float | None = Field(None, gt=0.0)
    preview_job_id: str | None = Field(None, max_length=64)
    source_duration_s: float | None = Field(None, ge=0.0)
    thumbnails: int | None = Field(None, ge=0)

    @property
    def is_clip(self) -> bool:
        return self.parent_job_id is not None


class JobUpdate(Contract):
    """The fields a conditional job update may set; None means unchanged."""

    status: JobStatus | None = None
    total_segments: int | None = None
    completed_at: float | None = None
    final_key: str | None = None
    error: JobError | None = None
    clear_error: bool = False
    source_size_bytes: int | None = None
    source_frames: int | None = Field(None, ge=0)
    source_width: int | None = Field(None, ge=0)
    source_height: int | None = Field(None, ge=0)
    source_timecode: str | None = Field(None, max_length=32)
    left_out: list[str] | None = Field(None, max_length=32)
    started_at: float | None = None
    title: str | None = None
    resends: int | None = Field(None, ge=0)
    epoch: int | None = Field(None, ge=0)
    source_etag: str | None = Field(None, max_length=200)
    run: int | None = Field(None, ge=0)
    notified_at: float | None = None
    webhook_attempts: int | None = Field(None, ge=0)
    params: ConversionParams | None = None
    preview_job_id: str | None = Field(None, max_length=64)
    source_duration_s: float | None = Field(None, ge=0.0)
    thumbnails: int | None = Field(None, ge=0)


class JobPage(Contract):
    items: list[Job]
    next_cursor: str | None = None


class SegmentPayload(Contract):
    """The canonical video-worker payload parsed from a segment key."""

    job_id: str
    segment_index: int
    total_segments: int
    mode: OutputMode
    bucket: str
    key: str
    run: int = 0  # the chunking run that wrote it (Job.run)


class SegmentOutput(Contract):
    """A converted segment parsed from an output-bucket key."""

    job_id: str
    segment_index: int
    bucket: str
    key: str
    run: int = 0  # the chunking run of the segment it converts (Job.run)


class SegmentCompletion(Contract):
    job_id: str
    segment_index: int
    output_key: str
    completed_at: float = Field(default_factory=now)
    total_segments: int | None = None
    run: int = Field(0, ge=0)  # the chunking run of the converted segment (Job.run)


class SegmentState(StrEnum):
    PENDING = "pending"
    COMPLETE = "complete"
    FAILED = "failed"


class SegmentStatus(Contract):
    job_id: str
    segment_index: int
    state: SegmentState
    attempts: int = 0
    last_error: str | None = None
    updated_at: float = Field(default_factory=now)
    run: int = Field(0, ge=0)  # the chunking run this row speaks for (Job.run)


class SegmentHeartbeat(Contract):
    """A worker's live report on one segment it is converting: how many frames
    are done and when it last said so (a silent heartbeat means a dead worker)."""

    job_id: str
    segment_index: int = Field(ge=0)
    worker: str = Field(max_length=200)
    frames_done: int = Field(ge=0)
    frames_total: int | None = Field(None, ge=0)
    started_at: float
    last_heartbeat: float = Field(default_factory=now)

    @property
    def fps(self) -> float | None:
        """Frames per second of this attempt so far (None before the first second)."""
        elapsed = self.last_heartbeat - self.started_at
        return self.frames_done / elapsed if elapsed >= 1.0 and self.frames_done else None


class ClipMessage(Contract):
    """Chunking-queue message that starts a clip job (its source is its parent's)."""

    model_config = ConfigDict(extra="forbid")

    clip_job_id: str = Field(max_length=64)


class ReassemblyMessage(Contract):
    model_config = ConfigDict(extra="ignore")

    job_id: str


class Lease(Contract):
    """A time-limited claim; ``token`` grows with every take (a fencing token)."""

    job_id: str
    owner: str
    token: int
    expires_at: float


class ObjectInfo(Contract):
    key: str
    size: int
    etag: str | None = None
    last_modified: float | None = None
    content_type: str | None = None


class PresignedRequest(Contract):
    """How a browser uploads or downloads without credentials."""

    url: str
    method: str = "PUT"
    headers: dict[str, str] = Field(default_factory=dict)
    fields: dict[str, str] = Field(default_factory=dict)
    expires_at: float
    max_bytes: int | None = None


# S3's rules for multipart uploads, kept by every backend so code that works
# locally works on S3: parts are numbered 1..10000 and all but the last are at
# least 5 MiB.
MIN_PART_BYTES = 5 * 1024 * 1024
MAX_PARTS = 10_000
# The most one request may upload (a PUT or a POST form): S3's limit.
MAX_SINGLE_UPLOAD_BYTES = 5 * 1024**3


class UploadedPart(Contract):
    """One part of a multipart upload as the storage holds it."""

    part_number: int = Field(ge=1, le=MAX_PARTS)
    size: int = Field(ge=0)
    etag: str | None = None


class S3EventRecord(Contract):
    bucket: str
    key: str
    size: int | None = None
    etag: str | None = None
    sequencer: str | None = None
    event_name: str = "ObjectCreated:Put"


class Message(Contract):
    """A leased queue message; ``receipt`` identifies this lease, not the message."""

    message_id: str
    body: str
    receipt: str
    receive_count: int = 1
    # why it was dead-lettered, as ``Queue.dead_letter`` recorded it (listed by
    # ``Queue.dead_letters``); None when unknown (SQS's own redrive records none)
    dead_reason: str | None = None


class QueueStats(Contract):
    visible: int
    in_flight: int
    dead_letters: int
