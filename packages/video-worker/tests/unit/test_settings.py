import pytest
from pydantic import ValidationError

from video_worker.settings import VideoWorkerSettings


def test_a_stuck_threshold_shorter_than_an_inference_wait_is_refused():
    with pytest.raises(ValidationError, match="stuck_after_s"):
        VideoWorkerSettings(inference_backend="sagemaker", sagemaker_endpoint="e",
                            inference_timeout_s=3600, stuck_after_s=1800)


def test_the_defaults_outlast_every_inference_wait():
    for kind in ("local", "http", "sagemaker"):
        s = VideoWorkerSettings(inference_backend=kind)
        assert s.stuck_after_s > max(s.inference_timeout_s, s.inference_http_timeout_s)
