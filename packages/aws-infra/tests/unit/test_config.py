import pytest

from stereo_spot_deploy.config import DeployConfig
from stereo_spot_deploy.errors import DeployError, MissingSettingError

ENV = {
    "STEREO_SPOT_DEPLOY_REGION": "eu-west-1",
    "STEREO_SPOT_DEPLOY_CLUSTER": "stereo-spot",
    "STEREO_SPOT_DEPLOY_REPO_MEDIA_WORKER": "1.dkr.ecr.eu-west-1.amazonaws.com/"
    "stereo-spot-media-worker",
    "STEREO_SPOT_DEPLOY_SERVICE_MEDIA_WORKER": "media-worker",
    "STEREO_SPOT_DEPLOY_REPO_INFERENCE": "1.dkr.ecr.eu-west-1.amazonaws.com/stereo-spot-inference",
    "STEREO_SPOT_DEPLOY_SAGEMAKER_ENDPOINT": "",
}


def test_names_come_from_the_env_file():
    config = DeployConfig(ENV)
    assert config.region == "eu-west-1"
    assert config.service("media-worker") == "media-worker"
    assert config.repository("media-worker").endswith("/stereo-spot-media-worker")
    assert config.repository("inference").endswith("/stereo-spot-inference")


def test_an_empty_or_missing_value_says_how_to_get_it():
    config = DeployConfig(ENV)
    with pytest.raises(MissingSettingError, match="SAGEMAKER_ENDPOINT.*aws-infra:apply"):
        _ = config.sagemaker_endpoint
    with pytest.raises(MissingSettingError, match="REPO_WEB_UI"):
        config.repository("web-ui")


def test_unknown_service_is_refused_with_the_choices():
    with pytest.raises(DeployError, match="web-ui, media-worker, video-worker"):
        DeployConfig(ENV).service("stereo-inference")
