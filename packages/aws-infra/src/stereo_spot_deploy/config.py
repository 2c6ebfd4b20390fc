"""What the deploy commands need to know about a stack, from its env file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from stereo_spot_deploy.errors import DeployError, MissingSettingError

SERVICES = ("web-ui", "media-worker", "video-worker")
PREFIX = "STEREO_SPOT_DEPLOY_"


def _suffix(service: str) -> str:
    return service.upper().replace("-", "_")


@dataclass(frozen=True)
class DeployConfig:
    """A stack's names, as `terraform apply` reported them."""

    env: Mapping[str, str]

    def _get(self, name: str) -> str:
        value = self.env.get(PREFIX + name, "")
        if not value:
            raise MissingSettingError(
                f"{PREFIX}{name} is not set in the env file; "
                "run `npx nx run aws-infra:apply` to (re)write it"
            )
        return value

    @property
    def region(self) -> str:
        return self._get("REGION")

    @property
    def cluster(self) -> str:
        return self._get("CLUSTER")

    @property
    def codebuild_project(self) -> str:
        return self._get("CODEBUILD_PROJECT")

    @property
    def sagemaker_endpoint(self) -> str:
        return self._get("SAGEMAKER_ENDPOINT")

    @property
    def sagemaker_role_arn(self) -> str:
        return self._get("SAGEMAKER_ROLE_ARN")

    def repository(self, image: str) -> str:
        """ECR repository URL of an image (a service or ``inference``)."""
        check_image(image)
        return self._get("REPO_" + _suffix(image))

    def service(self, service: str) -> str:
        """ECS service name of a service."""
        check_service(service)
        return self._get("SERVICE_" + _suffix(service))


def check_service(service: str) -> str:
    """``service`` if it is one of SERVICES; raises DeployError otherwise."""
    if service not in SERVICES:
        raise DeployError(f"unknown service {service!r}; expected one of {', '.join(SERVICES)}")
    return service


def check_image(image: str) -> str:
    """``image`` if it is a service or ``inference``; raises DeployError otherwise."""
    if image != "inference":
        check_service(image)
    return image
