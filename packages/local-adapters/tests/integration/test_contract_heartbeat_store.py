"""The SegmentHeartbeatStore contract on SQLite (``backend`` from conftest)."""

from shared_types.testing.contracts.heartbeat_store import *  # noqa: F403
