"""Roll the SageMaker endpoint onto a new inference image: a new model and
endpoint config (copied from the live one, model swapped), update the
endpoint, wait until it is InService again."""

from __future__ import annotations

import logging
import re
from typing import Any

from stereo_spot_deploy.errors import DeployError
from stereo_spot_deploy.polling import Poller

log = logging.getLogger(__name__)

# Keys of describe_endpoint_config that create_endpoint_config accepts as they are.
_CONFIG_FIELDS = ("AsyncInferenceConfig", "DataCaptureConfig", "KmsKeyId")


def resource_name(endpoint: str, tag: str, suffix: str) -> str:
    """A SageMaker name (max 63 chars, [a-zA-Z0-9-]) for this release's model or config."""
    clean = re.sub(r"[^a-zA-Z0-9-]", "-", f"{endpoint}-{tag}-{suffix}")
    return clean[-63:].lstrip("-")


def _describe_endpoint(sm: Any, endpoint: str) -> dict:
    from botocore.exceptions import ClientError

    try:
        live = sm.describe_endpoint(EndpointName=endpoint)
    except ClientError as exc:
        raise DeployError(
            f"SageMaker endpoint {endpoint!r} not found ({exc}); apply aws-infra with "
            "inference_backend = sagemaker first"
        ) from exc
    status = live["EndpointStatus"]
    if status == "Failed":
        # An endpoint that failed to create cannot be updated, only replaced.
        raise DeployError(
            f"endpoint {endpoint} is Failed ({live.get('FailureReason', 'no reason given')}); "
            "run `npx nx run aws-infra:apply` again to recreate it (after sagemaker-build)")
    if status != "InService":
        raise DeployError(f"endpoint {endpoint} is {status}; retry once it is InService")
    return live


def deploy_endpoint(
    sm: Any,
    endpoint: str,
    image: str,
    role_arn: str,
    tag: str,
    poller: Poller,
    *,
    stamp: str,
) -> str:
    """Serve ``image`` from ``endpoint``; returns the new endpoint config name.

    ``stamp`` makes names unique per attempt (e.g. a UTC timestamp). When the
    endpoint already serves ``image`` under ``role_arn`` nothing changes (its
    config name is returned), so a re-run is safe. Raises DeployError when the
    endpoint is missing, not InService, or ends up Failed,
    DeployTimeoutError when it is not InService within the poller's timeout.
    """
    live = _describe_endpoint(sm, endpoint)
    old_config = sm.describe_endpoint_config(EndpointConfigName=live["EndpointConfigName"])
    old_model = sm.describe_model(ModelName=old_config["ProductionVariants"][0]["ModelName"])

    if (old_model["PrimaryContainer"].get("Image") == image
            and old_model.get("ExecutionRoleArn") == role_arn):
        log.info("endpoint %s already serves %s: nothing to deploy", endpoint, image)
        return live["EndpointConfigName"]

    model_name = resource_name(endpoint, tag, stamp)
    container = dict(old_model["PrimaryContainer"])
    container["Image"] = image
    sm.create_model(
        ModelName=model_name, ExecutionRoleArn=role_arn, PrimaryContainer=container
    )

    variants = []
    for variant in old_config["ProductionVariants"]:
        new = {k: v for k, v in variant.items() if k not in {"DeployedImages", "CurrentWeight"}}
        new["ModelName"] = model_name
        variants.append(new)
    config_name = resource_name(endpoint, tag, stamp + "-cfg")
    extra = {k: old_config[k] for k in _CONFIG_FIELDS if old_config.get(k)}
    sm.create_endpoint_config(
        EndpointConfigName=config_name, ProductionVariants=variants, **extra
    )
    sm.update_endpoint(EndpointName=endpoint, EndpointConfigName=config_name)
    log.info("endpoint %s: updating to %s (%s)", endpoint, config_name, image)

    def probe() -> dict | None:
        state = sm.describe_endpoint(EndpointName=endpoint)
        status = state["EndpointStatus"]
        if status == "Failed":
            raise DeployError(
                f"endpoint {endpoint} failed: {state.get('FailureReason', 'no reason given')}"
            )
        on_new = state.get("EndpointConfigName") == config_name
        if status == "InService" and not on_new and state.get("FailureReason"):
            # A failed update rolls back to the old config and says why.
            raise DeployError(f"endpoint {endpoint} rolled back: {state['FailureReason']}")
        return state if status == "InService" and on_new else None

    poller.until(probe, f"SageMaker endpoint {endpoint} update")
    return config_name
