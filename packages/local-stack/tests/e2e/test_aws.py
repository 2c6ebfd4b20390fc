"""The same pipeline on the AWS adapters: moto_server, S3 notifications, worker processes."""

import os
from pathlib import Path

import pytest

from local_stack.testing.media import video_facts

aws_testing = pytest.importorskip("aws_adapters.testing.moto_server",
                                  reason="aws-adapters is not installed")


@pytest.fixture(scope="module")
def aws_settings_env():
    from aws_adapters.provision import create_data_plane
    from shared_types.settings import BackendSettings

    with aws_testing.fake_aws_credentials(), aws_testing.run_moto_server() as url:
        settings = create_data_plane(
            BackendSettings(backend="aws", aws_endpoint_url=url), max_receives=5)
        env = {
            "STEREO_SPOT_BACKEND": "aws",
            "STEREO_SPOT_AWS_ENDPOINT_URL": url,
            "STEREO_SPOT_CHUNKING_QUEUE_URL": settings.chunking_queue_url,
            "STEREO_SPOT_VIDEO_WORKER_QUEUE_URL": settings.video_worker_queue_url,
            "STEREO_SPOT_SEGMENT_OUTPUT_QUEUE_URL": settings.segment_output_queue_url,
            "STEREO_SPOT_REASSEMBLY_QUEUE_URL": settings.reassembly_queue_url,
            **aws_testing.FAKE_CREDENTIALS,
        }
        yield env, dict(os.environ)


def test_convert_on_aws_adapters_against_moto_server(
    aws_settings_env, clip_4s, tmp_path: Path, stack_env, run_cli
):
    aws_env, _ = aws_settings_env
    out = tmp_path / "out.mp4"
    env = stack_env(tmp_path / "data", **aws_env)
    result = run_cli(["convert", str(clip_4s), "-o", str(out), "--mode", "half-tb",
                      "--workers", "2", "--segment-seconds", "2"], env)
    assert result.returncode == 0, result.stderr + result.stdout
    facts = video_facts(out)
    assert (facts.width, facts.height, facts.frames) == (160, 96, 96)
    assert facts.has_audio
    assert "2 segment(s)" in result.stdout
