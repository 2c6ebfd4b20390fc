import pytest
from shared_types.ports import Backend
from shared_types.testing.memory import memory_backend

from video_worker.testing import RecordingInference


@pytest.fixture
def backend() -> Backend:
    return memory_backend()


@pytest.fixture
def inference(backend: Backend) -> RecordingInference:
    return RecordingInference(backend)
