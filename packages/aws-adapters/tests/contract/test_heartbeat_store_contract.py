"""The SegmentHeartbeatStore contract on DynamoDB (moto)."""

from shared_types.testing.contracts.heartbeat_store import *  # noqa: F401,F403
