"""Which object writes raise an event into which queue: the one definition.

The local backend's notifier, ``aws_adapters.provision`` and Terraform's
``modules/data-plane/notifications.tf`` all route by these rows (a test in
aws-infra checks the Terraform filters against them). Within a bucket the
filters must not overlap: S3 rejects overlapping notification filters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from shared_types.keys import INPUT_PREFIX, OUTPUT_PREFIX, SEGMENTS_PREFIX
from shared_types.settings import BackendSettings


@dataclass(frozen=True)
class NotificationRoute:
    """Objects created in ``bucket`` whose key has ``prefix`` and ``suffix`` notify ``queue``."""

    queue: str  # a name in shared_types.ports.QUEUE_NAMES
    bucket: Literal["input", "output"]
    prefix: str
    suffix: str

    def matches(self, bucket: Literal["input", "output"], key: str) -> bool:
        """True when writing ``key`` to the ``bucket`` role raises this route's event."""
        return bucket == self.bucket and key.startswith(self.prefix) and key.endswith(self.suffix)

    def bucket_name(self, settings: BackendSettings) -> str:
        """The configured name of this route's bucket."""
        return settings.input_bucket if self.bucket == "input" else settings.output_bucket


NOTIFICATION_ROUTES = (
    NotificationRoute("chunking", "input", INPUT_PREFIX, "/source.mp4"),
    NotificationRoute("video-worker", "input", SEGMENTS_PREFIX, ".mp4"),
    # final.mp4 reaches segment-output too; its parser ignores it.
    NotificationRoute("segment-output", "output", OUTPUT_PREFIX, ".mp4"),
)
