"""Build a service image from the repo and push it to its ECR repository."""

from __future__ import annotations

import base64
import logging
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from stereo_spot_deploy.commands import Runner, run_command
from stereo_spot_deploy.config import check_service
from stereo_spot_deploy.errors import DeployError

log = logging.getLogger(__name__)

DOCKER_DIR = Path("packages/aws-infra/docker")


def dockerfile(repo_root: Path, service: str) -> Path:
    """The Dockerfile of a service. Raises DeployError for an unknown service."""
    return repo_root / DOCKER_DIR / f"{check_service(service)}.Dockerfile"


def image_ref(repository_url: str, tag: str) -> str:
    """``repository:tag``. Raises DeployError for a tag Docker would refuse."""
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
    if not tag or len(tag) > 128 or tag[0] in ".-" or set(tag) - allowed:
        raise DeployError(f"invalid image tag {tag!r}")
    return f"{repository_url}:{tag}"


def image_exists(ecr: Any, ref: str) -> bool:
    """Whether ECR holds ``ref`` (``registry/repository:tag``).

    Raises DeployError when the repository itself is missing (aws-infra not applied).
    """
    from botocore.exceptions import ClientError

    path, _, tag = ref.rpartition(":")
    repository = path.split("/", 1)[1]
    try:
        ecr.describe_images(repositoryName=repository, imageIds=[{"imageTag": tag}])
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code == "ImageNotFoundException":
            return False
        if code == "RepositoryNotFoundException":
            raise DeployError(
                f"ECR repository {repository!r} does not exist; run "
                "`npx nx run aws-infra:apply` first") from exc
        raise DeployError(f"cannot look up {ref} in ECR: {exc}") from exc
    return True


def build_image(
    repo_root: Path, service: str, ref: str, *, runner: Runner = run_command
) -> None:
    """``docker build`` a service's image from the repo root as ``ref``.

    Raises CommandFailedError when docker fails.
    """
    argv = [
        "docker", "build", "--platform", "linux/amd64",
        "-f", str(dockerfile(repo_root, service)), "-t", ref, str(repo_root),
    ]
    runner(argv, None, repo_root)


def ecr_login(ecr: Any, *, runner: Runner = run_command) -> str:
    """Log docker in to the account's ECR registry; returns the registry host.

    Raises DeployError when ECR returns no token, CommandFailedError when docker fails.
    """
    data = ecr.get_authorization_token().get("authorizationData") or []
    if not data:
        raise DeployError("ECR returned no authorization token")
    user, _, password = base64.b64decode(data[0]["authorizationToken"]).decode().partition(":")
    registry = urlparse(data[0]["proxyEndpoint"]).netloc or data[0]["proxyEndpoint"]
    runner(["docker", "login", "--username", user, "--password-stdin", registry], password, None)
    return registry


def push_image(ecr: Any, ref: str, *, runner: Runner = run_command) -> None:
    """Log in to ECR and ``docker push`` ``ref``. Raises CommandFailedError."""
    ecr_login(ecr, runner=runner)
    runner(["docker", "push", ref], None, None)
    log.info("pushed %s", ref)
