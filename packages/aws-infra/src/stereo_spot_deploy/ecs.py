"""Roll an ECS service onto a new image: new task definition revision with the
image swapped, then a forced new deployment, then wait until it is stable."""

from __future__ import annotations

import logging
from typing import Any

from stereo_spot_deploy.errors import DeployError, DeployTimeoutError

log = logging.getLogger(__name__)

# Fields describe_task_definition returns that register_task_definition refuses.
_READ_ONLY = {
    "taskDefinitionArn", "revision", "status", "requiresAttributes", "compatibilities",
    "registeredAt", "registeredBy", "deregisteredAt",
}


def _current_task_definition(ecs: Any, cluster: str, service: str) -> dict:
    found = ecs.describe_services(cluster=cluster, services=[service])
    services = [s for s in found.get("services", []) if s.get("status") == "ACTIVE"]
    if not services:
        raise DeployError(
            f"ECS service {service!r} not found in cluster {cluster!r}; apply aws-infra first"
        )
    arn = services[0]["taskDefinition"]
    return ecs.describe_task_definition(taskDefinition=arn)["taskDefinition"]


def register_with_image(ecs: Any, task_definition: dict, container: str, image: str) -> str:
    """Register a copy of ``task_definition`` whose ``container`` runs ``image``.

    Returns the new revision's ARN. Raises DeployError when no container has that name.
    """
    spec = {k: v for k, v in task_definition.items() if k not in _READ_ONLY}
    containers = [dict(c) for c in spec["containerDefinitions"]]
    matches = [c for c in containers if c["name"] == container]
    if not matches:
        names = ", ".join(c["name"] for c in containers)
        raise DeployError(f"task definition has no container {container!r} (has {names})")
    matches[0]["image"] = image
    spec["containerDefinitions"] = containers
    return ecs.register_task_definition(**spec)["taskDefinition"]["taskDefinitionArn"]


def deploy_service(
    ecs: Any,
    cluster: str,
    service: str,
    image: str,
    *,
    container: str | None = None,
    wait: bool = True,
    wait_delay_s: int = 15,
    wait_max_attempts: int = 80,
) -> str:
    """Point ``service`` at ``image`` and force a new deployment; wait until stable.

    Returns the new task definition ARN. Raises DeployError when the service is
    missing, DeployTimeoutError when it does not stabilise in time.
    """
    current = _current_task_definition(ecs, cluster, service)
    new_arn = register_with_image(ecs, current, container or service, image)
    ecs.update_service(
        cluster=cluster, service=service, taskDefinition=new_arn, forceNewDeployment=True
    )
    log.info("service %s: deploying %s (%s)", service, image, new_arn)
    if wait:
        from botocore.exceptions import WaiterError

        try:
            ecs.get_waiter("services_stable").wait(
                cluster=cluster,
                services=[service],
                WaiterConfig={"Delay": wait_delay_s, "MaxAttempts": wait_max_attempts},
            )
        except WaiterError as exc:
            raise DeployTimeoutError(
                f"service {service} did not stabilise on {image}: {exc}; the deployment "
                "circuit breaker rolls back a failing release (see docs/RUNBOOKS.md)"
            ) from exc
    return new_arn
