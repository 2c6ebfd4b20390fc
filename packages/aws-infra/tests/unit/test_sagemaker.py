import boto3
import pytest
from botocore.stub import ANY, Stubber

from stereo_spot_deploy.errors import DeployError
from stereo_spot_deploy.polling import Poller
from stereo_spot_deploy.sagemaker import deploy_endpoint, resource_name

ENDPOINT = "stereo-spot-inference"
IMAGE = "1.dkr.ecr.us-east-1.amazonaws.com/stereo-spot-inference:abc123"
ROLE = "arn:aws:iam::1:role/stereo-spot-sagemaker"
ARN = "arn:aws:sagemaker:us-east-1:1:"
ASYNC = {"OutputConfig": {"S3OutputPath": "s3://stereo-spot-output/sagemaker-async/responses/"}}


def _client():
    sm = boto3.client("sagemaker", region_name="us-east-1", aws_access_key_id="x",
                      aws_secret_access_key="x")
    return sm, Stubber(sm)


def _endpoint(status, config, **extra):
    return {"EndpointName": ENDPOINT, "EndpointArn": "arn:aws:sagemaker:us-east-1:1:endpoint/x",
            "EndpointConfigName": config, "EndpointStatus": status,
            "CreationTime": "2026-01-01T00:00:00Z", "LastModifiedTime": "2026-01-01T00:00:00Z",
            **extra}


def _stub_rollout(stub, new_config):
    stub.add_response("describe_endpoint", _endpoint("InService", "old-cfg"),
                      {"EndpointName": ENDPOINT})
    stub.add_response("describe_endpoint_config", {
        "EndpointConfigName": "old-cfg", "EndpointConfigArn": ARN + "endpoint-config/old",
        "CreationTime": "2026-01-01T00:00:00Z", "AsyncInferenceConfig": ASYNC,
        "ProductionVariants": [{"VariantName": "primary", "ModelName": "old-model",
                                "InstanceType": "ml.g4dn.xlarge", "InitialInstanceCount": 1}],
    }, {"EndpointConfigName": "old-cfg"})
    stub.add_response("describe_model", {
        "ModelName": "old-model", "ModelArn": ARN + "model/old-model",
        "CreationTime": "2026-01-01T00:00:00Z",
        "ExecutionRoleArn": ROLE,
        "PrimaryContainer": {"Image": "old:image", "Environment": {"STEREO_SPOT_X": "1"}},
    }, {"ModelName": "old-model"})
    stub.add_response("create_model", {"ModelArn": ARN + "model/new-model"}, {
        "ModelName": f"{ENDPOINT}-abc123-20260101", "ExecutionRoleArn": ROLE,
        "PrimaryContainer": {"Image": IMAGE, "Environment": {"STEREO_SPOT_X": "1"}},
    })
    new_arn = {"EndpointConfigArn": ARN + "endpoint-config/new"}
    stub.add_response("create_endpoint_config", new_arn, {
        "EndpointConfigName": new_config,
        "ProductionVariants": [{"VariantName": "primary",
                                "ModelName": f"{ENDPOINT}-abc123-20260101",
                                "InstanceType": "ml.g4dn.xlarge", "InitialInstanceCount": 1}],
        "AsyncInferenceConfig": ASYNC,
    })
    stub.add_response("update_endpoint", {"EndpointArn": ARN + "endpoint/inference"},
                      {"EndpointName": ENDPOINT, "EndpointConfigName": new_config})


def _poller():
    return Poller(interval_s=1, timeout_s=100, sleep=lambda s: None)


def test_rollout_copies_the_live_config_with_the_new_model_and_waits_in_service():
    sm, stub = _client()
    new_config = f"{ENDPOINT}-abc123-20260101-cfg"
    _stub_rollout(stub, new_config)
    stub.add_response("describe_endpoint", _endpoint("Updating", "old-cfg"))
    stub.add_response("describe_endpoint", _endpoint("InService", new_config))
    with stub:
        assert deploy_endpoint(sm, ENDPOINT, IMAGE, ROLE, "abc123", _poller(),
                               stamp="20260101") == new_config
    stub.assert_no_pending_responses()


def test_a_rolled_back_update_is_reported_with_its_reason():
    sm, stub = _client()
    _stub_rollout(stub, f"{ENDPOINT}-abc123-20260101-cfg")
    stub.add_response("describe_endpoint", _endpoint(
        "InService", "old-cfg", FailureReason="image pull failed"))
    with stub, pytest.raises(DeployError, match="rolled back: image pull failed"):
        deploy_endpoint(sm, ENDPOINT, IMAGE, ROLE, "abc123", _poller(), stamp="20260101")


def test_a_missing_endpoint_says_to_apply_terraform():
    sm, stub = _client()
    stub.add_client_error("describe_endpoint", "ValidationException", "Could not find endpoint",
                          expected_params={"EndpointName": ANY})
    with stub, pytest.raises(DeployError, match="inference_backend = sagemaker"):
        deploy_endpoint(sm, ENDPOINT, IMAGE, ROLE, "abc123", _poller(), stamp="1")


def test_names_are_valid_sagemaker_names():
    name = resource_name("x" * 60, "feature/branch_1", "20260101120000")
    assert len(name) <= 63
    assert all(c.isalnum() or c == "-" for c in name)
    assert not name.startswith("-")


def test_a_failed_endpoint_says_to_apply_again_and_changes_nothing():
    sm, stub = _client()
    stub.add_response("describe_endpoint", _endpoint(
        "Failed", "old-cfg", FailureReason="image not found"), {"EndpointName": ENDPOINT})
    with stub, pytest.raises(DeployError, match="image not found.*aws-infra:apply"):
        deploy_endpoint(sm, ENDPOINT, IMAGE, ROLE, "abc123", _poller(), stamp="1")
    stub.assert_no_pending_responses()


def test_an_endpoint_already_serving_the_image_is_left_alone():
    sm, stub = _client()
    stub.add_response("describe_endpoint", _endpoint("InService", "live-cfg"))
    stub.add_response("describe_endpoint_config", {
        "EndpointConfigName": "live-cfg", "EndpointConfigArn": ARN + "endpoint-config/live",
        "CreationTime": "2026-01-01T00:00:00Z",
        "ProductionVariants": [{"VariantName": "primary", "ModelName": "live-model"}],
    })
    stub.add_response("describe_model", {
        "ModelName": "live-model", "ModelArn": ARN + "model/live-model",
        "CreationTime": "2026-01-01T00:00:00Z", "ExecutionRoleArn": ROLE,
        "PrimaryContainer": {"Image": IMAGE},
    })
    with stub:  # no create_model / update_endpoint stubbed: calling them would fail
        assert deploy_endpoint(sm, ENDPOINT, IMAGE, ROLE, "abc123", _poller(),
                               stamp="1") == "live-cfg"
    stub.assert_no_pending_responses()
