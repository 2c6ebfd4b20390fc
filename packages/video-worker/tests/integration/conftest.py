import pytest

from video_worker.settings import VideoWorkerSettings


@pytest.fixture
def settings(tmp_path) -> VideoWorkerSettings:
    return VideoWorkerSettings(_env_file=None, data_dir=tmp_path / "data",
                               work_dir=tmp_path / "work", sqs_wait_s=0.1, visibility_s=30)


@pytest.fixture
def local_backend(settings):
    local_adapters = pytest.importorskip("local_adapters", reason="local-adapters not installed")
    return local_adapters.build_backend(settings)
