"""Build the inference image on CodeBuild (it is too big to build and upload
from a laptop): start the project with IMAGE_TAG, wait for the result."""

from __future__ import annotations

import logging
from typing import Any

from stereo_spot_deploy.errors import DeployError
from stereo_spot_deploy.images import image_exists
from stereo_spot_deploy.polling import Poller

log = logging.getLogger(__name__)

FAILED = {"FAILED", "FAULT", "STOPPED", "TIMED_OUT"}


def start_image_build(
    codebuild: Any, project: str, tag: str, *, source_version: str | None = None
) -> str:
    """Start ``project`` building the image tagged ``tag``; returns the build id."""
    kwargs: dict[str, Any] = {
        "projectName": project,
        "environmentVariablesOverride": [
            {"name": "IMAGE_TAG", "value": tag, "type": "PLAINTEXT"}
        ],
    }
    if source_version:
        kwargs["sourceVersion"] = source_version
    build_id = codebuild.start_build(**kwargs)["build"]["id"]
    log.info("started CodeBuild %s for tag %s", build_id, tag)
    return build_id


def wait_for_build(codebuild: Any, build_id: str, poller: Poller) -> dict:
    """Poll until the build ends; returns it when it SUCCEEDED.

    Raises DeployError (with the logs link) when it failed, DeployTimeoutError
    when it is still running at the poller's timeout.
    """
    def probe() -> dict | None:
        builds = codebuild.batch_get_builds(ids=[build_id]).get("builds", [])
        if not builds:
            raise DeployError(f"CodeBuild has no build {build_id}")
        build = builds[0]
        return None if build["buildStatus"] == "IN_PROGRESS" else build

    build = poller.until(probe, f"CodeBuild {build_id}")
    status = build["buildStatus"]
    if status != "SUCCEEDED":
        link = build.get("logs", {}).get("deepLink", "the CodeBuild console")
        phase = build.get("currentPhase", "?")
        raise DeployError(f"CodeBuild {build_id} ended {status} in phase {phase}; logs: {link}")
    log.info("CodeBuild %s succeeded", build_id)
    return build


def build_inference_image(
    codebuild: Any, ecr: Any, project: str, ref: str, tag: str, poller: Poller,
    *, source_version: str | None = None,
) -> bool:
    """Have CodeBuild build and push ``ref`` (tag ``tag``) unless ECR already has it.

    ECR tags are immutable, so an image that is there is the release's image:
    returns False without starting a build (re-running is safe); True after a
    build. Raises DeployError when the build fails or succeeds without pushing
    ``ref``, DeployTimeoutError when it outlives the poller.
    """
    if image_exists(ecr, ref):
        log.info("%s is already in ECR (tags are immutable): nothing to build", ref)
        return False
    build_id = start_image_build(codebuild, project, tag, source_version=source_version)
    wait_for_build(codebuild, build_id, poller)
    if not image_exists(ecr, ref):
        raise DeployError(f"CodeBuild {build_id} succeeded but {ref} is not in ECR; "
                          "check the project's REPOSITORY_URL and its buildspec's push")
    return True
