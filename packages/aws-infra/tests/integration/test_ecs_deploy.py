"""ECS rollout against moto: a new task definition revision with only the image
changed, a forced deployment, and a clear error for a missing service."""

from __future__ import annotations

import boto3
import pytest
from moto import mock_aws

from stereo_spot_deploy.ecs import deploy_service
from stereo_spot_deploy.errors import DeployError

REPO = "123456789012.dkr.ecr.us-east-1.amazonaws.com/stereo-spot-media-worker"


@pytest.fixture
def ecs(monkeypatch):
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(key, value)
    with mock_aws():
        client = boto3.client("ecs", region_name="us-east-1")
        client.create_cluster(clusterName="stereo-spot")
        arn = client.register_task_definition(
            family="stereo-spot-media-worker", networkMode="awsvpc",
            requiresCompatibilities=["FARGATE"], cpu="2048", memory="4096",
            containerDefinitions=[{
                "name": "media-worker", "image": f"{REPO}:old", "essential": True,
                "environment": [{"name": "STEREO_SPOT_BACKEND", "value": "aws"}],
            }],
        )["taskDefinition"]["taskDefinitionArn"]
        client.create_service(cluster="stereo-spot", serviceName="media-worker",
                              taskDefinition=arn, desiredCount=0, launchType="FARGATE")
        yield client


def test_deploy_registers_a_revision_with_only_the_image_changed(ecs):
    new_arn = deploy_service(ecs, "stereo-spot", "media-worker", f"{REPO}:abc123",
                             wait_delay_s=1, wait_max_attempts=5)
    new = ecs.describe_task_definition(taskDefinition=new_arn)["taskDefinition"]
    assert new["revision"] == 2
    [container] = new["containerDefinitions"]
    assert container["image"] == f"{REPO}:abc123"
    assert container["environment"] == [{"name": "STEREO_SPOT_BACKEND", "value": "aws"}]
    assert (new["cpu"], new["memory"]) == ("2048", "4096")
    [service] = ecs.describe_services(cluster="stereo-spot", services=["media-worker"])["services"]
    assert service["taskDefinition"] == new_arn


def test_deploying_a_missing_service_says_to_apply_first(ecs):
    with pytest.raises(DeployError, match="apply aws-infra first"):
        deploy_service(ecs, "stereo-spot", "web-ui", f"{REPO}:abc123", wait=False)


def test_a_container_name_that_does_not_match_is_refused(ecs):
    with pytest.raises(DeployError, match="no container 'web-ui'"):
        deploy_service(ecs, "stereo-spot", "media-worker", f"{REPO}:abc123",
                       container="web-ui", wait=False)
