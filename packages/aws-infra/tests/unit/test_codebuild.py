import boto3
import pytest
from botocore.stub import Stubber
from shared_types.testing.clock import ManualClock

from stereo_spot_deploy.codebuild import build_inference_image, start_image_build, wait_for_build
from stereo_spot_deploy.errors import DeployError, DeployTimeoutError
from stereo_spot_deploy.polling import Poller

BUILD_ID = "stereo-spot-inference-image:0b1c"


def _client():
    client = boto3.client("codebuild", region_name="us-east-1", aws_access_key_id="x",
                          aws_secret_access_key="x")
    return client, Stubber(client)


def _build(status, **extra):
    return {"builds": [{"id": BUILD_ID, "buildStatus": status, **extra}]}


def _poller(timeout_s=600.0):
    clock = ManualClock()
    return Poller(interval_s=10, timeout_s=timeout_s, sleep=clock.sleep, clock=clock), clock


def test_start_passes_the_release_tag_to_the_build():
    client, stub = _client()
    stub.add_response("start_build", {"build": {"id": BUILD_ID}}, {
        "projectName": "stereo-spot-inference-image",
        "environmentVariablesOverride": [
            {"name": "IMAGE_TAG", "value": "abc123", "type": "PLAINTEXT"}],
        "sourceVersion": "abc123",
    })
    with stub:
        assert start_image_build(client, "stereo-spot-inference-image", "abc123",
                                 source_version="abc123") == BUILD_ID


def test_wait_polls_until_the_build_succeeds():
    client, stub = _client()
    for status in ("IN_PROGRESS", "IN_PROGRESS", "SUCCEEDED"):
        stub.add_response("batch_get_builds", _build(status), {"ids": [BUILD_ID]})
    poller, clock = _poller()
    with stub:
        assert wait_for_build(client, BUILD_ID, poller)["buildStatus"] == "SUCCEEDED"
    assert clock.sleeps == [10, 10]


def test_a_failed_build_reports_phase_and_logs():
    client, stub = _client()
    stub.add_response("batch_get_builds", _build(
        "FAILED", currentPhase="BUILD", logs={"deepLink": "https://console/logs/1"}))
    poller, _ = _poller()
    with stub, pytest.raises(DeployError, match=r"FAILED in phase BUILD; logs: https://console"):
        wait_for_build(client, BUILD_ID, poller)


def test_a_build_still_running_at_the_deadline_times_out():
    client, stub = _client()
    for _ in range(4):
        stub.add_response("batch_get_builds", _build("IN_PROGRESS"))
    poller, _ = _poller(timeout_s=30)
    with stub, pytest.raises(DeployTimeoutError, match="did not finish within 30 s"):
        wait_for_build(client, BUILD_ID, poller)


def _ecr(*found: bool):
    ecr = boto3.client("ecr", region_name="us-east-1", aws_access_key_id="x",
                       aws_secret_access_key="x")
    stub = Stubber(ecr)
    for present in found:
        if present:
            stub.add_response("describe_images", {"imageDetails": [{"imageTags": ["abc123"]}]})
        else:
            stub.add_client_error("describe_images", "ImageNotFoundException")
    return ecr, stub


REF = "1.dkr.ecr.us-east-1.amazonaws.com/stereo-spot-inference:abc123"


def test_a_tag_already_in_ecr_is_not_built_again():
    client, stub = _client()
    ecr, ecr_stub = _ecr(True)
    with stub, ecr_stub:  # no start_build stubbed: starting one would fail
        assert not build_inference_image(client, ecr, "p", REF, "abc123", _poller()[0])


def test_a_build_that_pushes_nothing_is_an_error():
    client, stub = _client()
    stub.add_response("start_build", {"build": {"id": BUILD_ID}})
    stub.add_response("batch_get_builds", _build("SUCCEEDED"))
    ecr, ecr_stub = _ecr(False, False)
    with stub, ecr_stub, pytest.raises(DeployError, match="abc123 is not in ECR"):
        build_inference_image(client, ecr, "p", REF, "abc123", _poller()[0])
