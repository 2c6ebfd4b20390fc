"""Backend settings shared by every service; read once in an entry point."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def default_models_dir() -> Path:
    """The per-user models folder, ``~/.cache/stereo-spot/models`` (the default
    of ``models_dir``; ``stereo_models.depth_models`` looks there)."""
    return Path.home() / ".cache" / "stereo-spot" / "models"

MIN_SECRET_CHARS = 16


def _long_enough(secret: SecretStr) -> SecretStr:
    if len(secret.get_secret_value().strip()) < MIN_SECRET_CHARS:
        raise ValueError(f"a shared secret must be at least {MIN_SECRET_CHARS} characters "
                         "(an empty or short one is refused, never taken as 'no secret')")
    return secret


# A secret two services share (the inference server's, the webhooks' key): set
# means at least MIN_SECRET_CHARS characters; "" is refused, not taken as unset.
SharedSecret = Annotated[SecretStr, AfterValidator(_long_enough)]


class StereoSpotSettings(BaseSettings):
    """The base of every settings class: ``STEREO_SPOT_*`` variables, others ignored.
    A service's class is composed of the groups below that it uses."""

    model_config = SettingsConfigDict(env_prefix="STEREO_SPOT_", extra="ignore")


class ModelSettings(StereoSpotSettings):
    """Where depth models live and whether a missing one is fetched (every service
    and command that runs or offers a model)."""

    # Depth model weights, one folder for every command and service.
    models_dir: Path = Field(default_factory=default_models_dir)
    # A job asking for a missing model: download it on first use (True) or refuse the job.
    model_auto_download: bool = True
    hub_endpoint: str | None = None  # a Hugging Face hub mirror; default huggingface.co


class ToolSettings(StereoSpotSettings):
    """The ffmpeg a service runs and the folder its temporary files go to."""

    # STEREO_SPOT_FFMPEG: an explicit ffmpeg binary (else stereo_media.ffmpeg finds one)
    ffmpeg: str | None = None
    # temporary files; unset: the service's own default (``work_folder``)
    work_dir: Path | None = None

    def work_folder_or(self, default: Path) -> Path:
        """``work_dir`` when set, else ``default``."""
        return Path(self.work_dir) if self.work_dir else default


class BackendSettings(ModelSettings):
    """Which backend to use and where it lives (env prefix ``STEREO_SPOT_``)."""

    backend: Literal["local", "aws"] = "local"
    data_dir: Path = Path(".stereo-spot")
    signing_secret: str | None = None  # local presigned URLs; generated into data_dir if unset
    public_base_url: str = "http://127.0.0.1:8000"  # where web-ui serves local /storage
    # Local backend: how long a job's segments stay once the job has ended
    # (S3: the lifecycle rules' segment_retention_days).
    segment_retention_s: float = Field(86400.0, ge=0)

    aws_region: str = "us-east-1"
    aws_endpoint_url: str | None = None  # moto_server, LocalStack, MinIO
    input_bucket: str = "stereo-spot-input"
    output_bucket: str = "stereo-spot-output"
    jobs_table: str = "stereo-spot-jobs"
    segment_completions_table: str = "stereo-spot-segment-completions"
    segment_status_table: str = "stereo-spot-segment-status"
    reassembly_table: str = "stereo-spot-reassembly-triggered"
    chunking_queue_url: str | None = None
    video_worker_queue_url: str | None = None
    segment_output_queue_url: str | None = None
    reassembly_queue_url: str | None = None
    sqs_wait_s: float = 20.0
