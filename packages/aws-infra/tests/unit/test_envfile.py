import json

import pytest

from stereo_spot_deploy.envfile import deploy_env_from_outputs, read_env_file, write_env_file
from stereo_spot_deploy.errors import DeployError


def test_env_file_round_trips_plain_and_awkward_values(tmp_path):
    env = {
        "STEREO_SPOT_CHUNKING_QUEUE_URL": "https://sqs.us-east-1.amazonaws.com/1/stereo-spot-chunking",
        "STEREO_SPOT_DEPLOY_APP_URL": "http://alb-1.elb.amazonaws.com",
        "WITH_SPACE": "two words",
        "WITH_QUOTE": "it's",
        "EMPTY": "",
    }
    path = tmp_path / ".deploy.env"
    write_env_file(env, path)
    assert read_env_file(path) == env
    assert "WITH_SPACE='two words'" in path.read_text()


def test_outputs_json_gives_the_deploy_env_map():
    text = json.dumps({"deploy_env": {"sensitive": False, "type": ["map", "string"],
                                      "value": {"STEREO_SPOT_DEPLOY_CLUSTER": "stereo-spot"}},
                       "app_url": {"value": "http://x"}})
    assert deploy_env_from_outputs(text) == {"STEREO_SPOT_DEPLOY_CLUSTER": "stereo-spot"}


@pytest.mark.parametrize("text", ["", "{}", '{"deploy_env": {"value": ["a"]}}', "not json"])
def test_outputs_without_deploy_env_are_refused(text):
    with pytest.raises(DeployError):
        deploy_env_from_outputs(text)


def test_missing_env_file_says_which_target_writes_it(tmp_path):
    with pytest.raises(DeployError, match="aws-infra:apply"):
        read_env_file(tmp_path / "absent.env")


def test_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.env"
    path.write_text("# comment\nGOOD=1\nnot a pair\n")
    with pytest.raises(DeployError, match=r"bad\.env:3"):
        read_env_file(path)


@pytest.mark.parametrize("env", [{"lower": "x"}, {"OK": "two\nlines"}])
def test_unsafe_keys_and_values_are_not_written(tmp_path, env):
    with pytest.raises(DeployError):
        write_env_file(env, tmp_path / "x.env")
