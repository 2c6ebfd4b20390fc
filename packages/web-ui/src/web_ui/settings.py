"""Settings of the web UI service (read once in the entry point)."""

from __future__ import annotations

from pydantic import AliasChoices, Field, SecretStr
from shared_types.settings import BackendSettings, SharedSecret

from web_ui.outbound import OutboundPolicy

MB = 1024 * 1024
GB = 1024 * MB


class WebSettings(BackendSettings):
    """Backend settings plus what the web server needs (env prefix ``STEREO_SPOT_``)."""

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    # Proxies whose X-Forwarded-* headers are believed (IPs or CIDRs, comma-separated):
    # the ALB's addresses (the VPC CIDR) on AWS, so cookies are Secure behind HTTPS.
    forwarded_allow_ips: str = "127.0.0.1"

    # Cap on a source video, enforced by the storage (multipart uploads).
    max_upload_bytes: int = Field(20 * GB, gt=0, le=5 * 1024 * GB)
    # Preferred multipart part size (S3's minimum is 5 MiB; grown for huge files).
    upload_part_bytes: int = Field(16 * MB, ge=5 * MB, le=5 * GB)
    max_body_bytes: int = Field(64 * 1024, gt=0, description="cap on form/JSON request bodies")
    upload_url_expires_s: int = Field(3600, ge=60, le=7 * 24 * 3600)
    playback_url_expires_s: int = Field(3600, ge=60, le=7 * 24 * 3600)

    # Seconds of conversion per MB of source; unset means learn it from completed jobs.
    eta_seconds_per_mb: float | None = Field(
        None,
        gt=0,
        validation_alias=AliasChoices(
            "eta_seconds_per_mb", "STEREO_SPOT_ETA_SECONDS_PER_MB", "ETA_SECONDS_PER_MB"
        ),
    )

    # Signs job-ended webhooks (HMAC-SHA256); unset: webhooks are off.
    webhook_secret: SharedSecret | None = None
    webhook_poll_s: float = Field(2.0, gt=0, le=300)
    # One deadline for a whole delivery (connect to answer), whatever the receiver does.
    webhook_timeout_s: float = Field(5.0, gt=0, le=60)
    webhook_workers: int = Field(4, ge=1, le=64)
    # Receivers on plain http://, and on loopback/private networks (a LAN, tests):
    # off by default, so a webhook cannot reach the server's own network (SSRF).
    webhook_allow_http: bool = False
    webhook_allow_private: bool = False
    # Names this deployment in every webhook (body and X-StereoSpot-Deployment);
    # default: public_base_url.
    deployment_name: str | None = Field(None, max_length=200)

    basic_auth_user: str | None = None
    basic_auth_password: SecretStr | None = None

    sse_poll_s: float = Field(1.0, gt=0, le=60)
    sse_ping_s: float = Field(15.0, gt=0, le=300)
    page_size: int = Field(25, ge=1, le=200)

    # Mount local-adapters' signed /storage routes when the backend is local.
    serve_storage: bool = True

    # Host names accepted besides loopback and public_base_url's host, when the UI
    # listens on loopback only (the DNS-rebinding guard, web_ui.security.trusted_hosts).
    allowed_hosts: list[str] = Field(default_factory=list)

    @property
    def webhook_policy(self) -> OutboundPolicy:
        return OutboundPolicy(allow_http=self.webhook_allow_http,
                              allow_private=self.webhook_allow_private)

    @property
    def basic_auth_enabled(self) -> bool:
        return self.basic_auth is not None

    @property
    def basic_auth(self) -> tuple[str, str] | None:
        """(user, password) when both are set, else None (no basic auth)."""
        if self.basic_auth_user and self.basic_auth_password:
            return self.basic_auth_user, self.basic_auth_password.get_secret_value()
        return None
