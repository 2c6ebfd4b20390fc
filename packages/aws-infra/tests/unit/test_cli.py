import io
import json

from stereo_spot_deploy.cli import main
from stereo_spot_deploy.envfile import read_env_file


def test_write_env_turns_terraform_outputs_into_the_env_file(tmp_path, monkeypatch):
    outputs = {"deploy_env": {"value": {"STEREO_SPOT_DEPLOY_CLUSTER": "stereo-spot",
                                        "STEREO_SPOT_JOBS_TABLE": "stereo-spot-jobs"}}}
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(outputs)))
    path = tmp_path / ".deploy.env"
    assert main(["write-env", "--env-file", str(path)]) == 0
    assert read_env_file(path)["STEREO_SPOT_JOBS_TABLE"] == "stereo-spot-jobs"


def test_a_deploy_without_an_env_file_fails_with_the_fix(tmp_path, capsys):
    assert main(["deploy", "web-ui", "--env-file", str(tmp_path / "none"), "--tag", "t1"]) == 1
    assert "npx nx run aws-infra:apply" in capsys.readouterr().err


def test_a_missing_repository_is_reported_before_any_docker_call(tmp_path, capsys):
    path = tmp_path / ".deploy.env"
    path.write_text("STEREO_SPOT_DEPLOY_REGION=us-east-1\n")
    assert main(["build", "web-ui", "--env-file", str(path), "--tag", "t1"]) == 1
    assert "STEREO_SPOT_DEPLOY_REPO_WEB_UI" in capsys.readouterr().err


def test_the_env_file_and_tag_can_come_from_the_environment(tmp_path, monkeypatch, capsys):
    path = tmp_path / "stack-b.env"
    path.write_text("STEREO_SPOT_DEPLOY_REGION=us-east-1\n")
    monkeypatch.setenv("STEREO_SPOT_DEPLOY_ENV_FILE", str(path))
    monkeypatch.setenv("STEREO_SPOT_IMAGE_TAG", "bad tag")
    assert main(["build", "web-ui"]) == 1
    assert "STEREO_SPOT_DEPLOY_REPO_WEB_UI" in capsys.readouterr().err  # read stack-b.env
    path.write_text("STEREO_SPOT_DEPLOY_REGION=us-east-1\n"
                    "STEREO_SPOT_DEPLOY_REPO_WEB_UI=1.dkr.ecr.us-east-1.amazonaws.com/web\n")
    assert main(["build", "web-ui"]) == 1
    assert "invalid image tag 'bad tag'" in capsys.readouterr().err
