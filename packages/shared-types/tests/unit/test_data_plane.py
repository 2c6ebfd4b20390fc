import json

import pytest
from pydantic import ValidationError

from shared_types.consumer import ConsumerConfig
from shared_types.data_plane import DATA_PLANE, DEFINITION, DataPlane
from shared_types.ports import QUEUE_NAMES
from shared_types.testing.memory import memory_backend


def test_the_queue_names_are_the_definitions_and_each_is_a_backend_queue():
    assert QUEUE_NAMES == ("chunking", "video-worker", "segment-output", "reassembly")
    backend = memory_backend()
    assert {backend.queue(name).name for name in QUEUE_NAMES} == set(DATA_PLANE.queues)


def test_a_consumer_fails_a_job_on_the_queues_last_receive_by_default():
    assert ConsumerConfig().max_attempts == DATA_PLANE.max_receives == 5


def test_segment_output_visibility_covers_the_workers_receive_lease():
    # video-worker leases its segment-output messages for 120 s (its visibility_s)
    assert DATA_PLANE.queues["segment-output"].visibility_s == 120


def test_a_definition_with_an_unknown_key_is_refused():
    raw = json.loads(DEFINITION.read_text())
    raw["queues"]["chunking"]["visibilty_s"] = 30  # a typo must not pass silently
    with pytest.raises(ValidationError, match="visibilty_s"):
        DataPlane.model_validate(raw)


def test_a_zero_retry_limit_is_refused():
    raw = json.loads(DEFINITION.read_text()) | {"max_receives": 0}
    with pytest.raises(ValidationError, match="max_receives"):
        DataPlane.model_validate(raw)
