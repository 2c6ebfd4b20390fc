import base64
import json
from pathlib import Path

import boto3
import pytest
from botocore.stub import Stubber

from stereo_spot_deploy.errors import CommandFailedError, DeployError
from stereo_spot_deploy.images import build_image, dockerfile, image_ref, push_image

REPO_ROOT = Path(__file__).resolve().parents[4]
REPO = "123456789012.dkr.ecr.us-east-1.amazonaws.com/stereo-spot-web-ui"


class FakeDocker:
    """Stands in for the docker CLI: records each call, optionally fails one."""

    def __init__(self, fail_on: str | None = None):
        self.calls: list[tuple[list[str], str | None]] = []
        self.fail_on = fail_on

    def __call__(self, argv, stdin, cwd):
        self.calls.append((list(argv), stdin))
        if self.fail_on and self.fail_on in argv:
            raise CommandFailedError(f"docker {self.fail_on} failed")
        return ""


@pytest.mark.parametrize("service", ["web-ui", "media-worker", "video-worker"])
def test_every_service_has_a_dockerfile_with_an_entry_point(service):
    path = dockerfile(REPO_ROOT, service)
    text = path.read_text()
    assert text.startswith("#") and "FROM python:3.11" in text
    assert f'CMD ["{service}"]' in text
    assert "USER 10001" in text
    assert path.with_name(path.name + ".dockerignore").is_file()


def test_build_uses_the_repo_root_as_context_and_tags_the_release():
    docker = FakeDocker()
    ref = image_ref(REPO, "abc123def456")
    build_image(REPO_ROOT, "web-ui", ref, runner=docker)
    [(argv, _)] = docker.calls
    assert argv[:2] == ["docker", "build"]
    assert argv[argv.index("-t") + 1] == f"{REPO}:abc123def456"
    assert argv[argv.index("-f") + 1].endswith("packages/aws-infra/docker/web-ui.Dockerfile")
    assert argv[-1] == str(REPO_ROOT)


@pytest.mark.parametrize("tag", ["", "-x", "has space", "a" * 129, "tag:colon"])
def test_bad_tags_are_refused(tag):
    with pytest.raises(DeployError, match="invalid image tag"):
        image_ref(REPO, tag)


def _ecr_with_token():
    ecr = boto3.client("ecr", region_name="us-east-1", aws_access_key_id="x",
                       aws_secret_access_key="x")
    stub = Stubber(ecr)
    stub.add_response("get_authorization_token", {"authorizationData": [{
        "authorizationToken": base64.b64encode(b"AWS:s3cret").decode(),
        "proxyEndpoint": "https://123456789012.dkr.ecr.us-east-1.amazonaws.com",
    }]})
    stub.activate()
    return ecr, stub


def test_push_logs_in_with_the_token_on_stdin_then_pushes():
    ecr, stub = _ecr_with_token()
    docker = FakeDocker()
    push_image(ecr, f"{REPO}:abc", runner=docker)
    (login, password), (push, _) = docker.calls
    assert login == ["docker", "login", "--username", "AWS", "--password-stdin",
                     "123456789012.dkr.ecr.us-east-1.amazonaws.com"]
    assert password == "s3cret"
    assert "s3cret" not in login
    assert push == ["docker", "push", f"{REPO}:abc"]
    stub.assert_no_pending_responses()


def test_a_failed_login_never_pushes():
    ecr, _ = _ecr_with_token()
    docker = FakeDocker(fail_on="login")
    with pytest.raises(CommandFailedError):
        push_image(ecr, f"{REPO}:abc", runner=docker)
    assert [argv[1] for argv, _ in docker.calls] == ["login"]


def test_image_exists_asks_ecr_for_the_tag_and_names_a_missing_repository():
    from moto import mock_aws

    from stereo_spot_deploy.images import image_exists
    from stereo_spot_deploy.testing.moto_patches import MANIFEST

    with mock_aws():
        ecr = boto3.client("ecr", region_name="us-east-1", aws_access_key_id="x",
                           aws_secret_access_key="x")
        url = ecr.create_repository(repositoryName="stereo-spot-inference")[
            "repository"]["repositoryUri"]
        ecr.put_image(repositoryName="stereo-spot-inference", imageTag="rel1",
                      imageManifest=json.dumps(MANIFEST))
        assert image_exists(ecr, f"{url}:rel1")
        assert not image_exists(ecr, f"{url}:rel2")
        with pytest.raises(DeployError, match="aws-infra:apply"):
            image_exists(ecr, f"{url.replace('inference', 'nothing')}:rel1")


def _installed(service: str) -> set[str]:
    """The packages/ folders a service's Dockerfile pip-installs."""
    text = dockerfile(REPO_ROOT, service).read_text().replace("\\\n", " ")
    install = next(line for line in text.splitlines() if "pip install -c" in line)
    return {word.split("/src/packages/")[1] for word in install.split()
            if word.startswith("/src/packages/")}


def _ours_needed(folders: set[str]) -> set[str]:
    """The stereo-spot-* packages that ``folders``' pyproject dependencies name."""
    import tomllib

    needed = set()
    for folder in folders:
        project = tomllib.loads((REPO_ROOT / "packages" / folder / "pyproject.toml")
                                .read_text())["project"]
        needed |= {d.removeprefix("stereo-spot-") for d in project["dependencies"]
                   if d.startswith("stereo-spot-")}
    return needed


def test_the_video_worker_image_installs_no_engine_and_no_torch():
    installed = _installed("video-worker")
    text = dockerfile(REPO_ROOT, "video-worker").read_text()
    assert "stereo-inference" not in installed and "media" not in installed
    assert "torch==" not in text and "TORCH_INDEX" not in text
    assert _ours_needed(installed) <= installed  # pip resolves nothing of ours from an index
    # negative control: the engine needs what this image leaves out
    assert not _ours_needed({"stereo-inference"}) <= installed
