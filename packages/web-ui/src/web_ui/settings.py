"""Settings of the web UI service (read once in the entry point)."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, model_validator
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

    # Who the user is: "local" (one user, no sign-in) or "alb" (the signed identity an
    # AWS load balancer's OIDC sign-in forwards; web_ui.identity). For "alb":
    # the load balancer's ARN (the only signer believed) and its region.
    identity: Literal["local", "alb"] = "local"
    alb_arn: str | None = None
    alb_region: str | None = None
    alb_keys_url: str = "https://public-keys.auth.elb.{region}.amazonaws.com/{kid}"
    # Members of this group (named by this claim of the provider) see every job.
    admin_claim: str = Field("cognito:groups", min_length=1)
    admin_group: str = Field("admins", min_length=1)

    # Per client (user and address): upload and job-creation requests per second,
    # with a burst; and the declared bytes of its uploads not yet stored.
    client_requests_per_s: float = Field(2.0, gt=0)
    client_request_burst: int = Field(60, ge=1)
    max_bytes_in_flight: int = Field(40 * GB, gt=0)

    @model_validator(mode="after")
    def _alb_identity_is_complete(self) -> WebSettings:
        if self.identity == "alb" and not (self.alb_arn and self.alb_region):
            raise ValueError("identity 'alb' needs alb_arn and alb_region "
                             "(STEREO_SPOT_ALB_ARN, STEREO_SPOT_ALB_REGION)")
        return self

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
