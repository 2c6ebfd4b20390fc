"""What moto 5.2 lacks for StereoSpot's tests, each patch as AWS documents it.

The patches fall in two groups, both applied by the one patched server
(``moto_deploy_server``):

IAM checks that read like AWS's (they matter once enforcement is on, as in the
deployment harness):

- DynamoDB requests are authorised against the table ARN (``/index/<name>``
  for an index query); stock moto checks them against ``*``, so a policy that
  names its tables is denied everything and one that grants ``*`` passes all.
- ``GetQueueUrl`` is checked against the queue it names.
- CloudWatch actions are named ``cloudwatch:*`` as IAM does (moto takes the
  prefix from the signing name, ``monitoring``, which no policy can grant).
- A presigned (query-string SigV4) S3 request is authorised as its signer:
  unexpired, the signer's key and session token known to moto, the action
  allowed by the signer's policies (moto fails such a request with a 500 while
  it enforces IAM). As in ``presign_relay``, the signature itself is not
  recomputed. ffmpeg reads a source through such a URL (media-worker's clips).

Calls moto lacks or drops:

- SQS ``RedriveAllowPolicy`` (moto accepts it in ``SetQueueAttributes`` but
  never returns it, so the AWS provider waits for it for ever): it is returned
  by ``GetQueueAttributes`` like every other attribute. moto does not enforce it.
- Application Auto Scaling ``TagResource`` / ``UntagResource`` /
  ``ListTagsForResource`` (moto has none; the AWS provider reads the tags of
  every scalable target it creates and retries until it can). Tags given to
  ``RegisterScalableTarget`` are kept too.
- SageMaker ``UpdateEndpoint`` (moto has none): the endpoint must exist and be
  ``InService`` and the endpoint config must exist; the endpoint then serves the
  new config. The real rollout (``Updating`` for minutes, rollback on a failed
  health check) is not emulated: it is InService on the new config at once.
- CodeBuild's work (moto records a build and reports it SUCCEEDED, nothing
  more): ``StartBuild`` does what the inference project's buildspec ends with,
  ``docker push $REPOSITORY_URL:$IMAGE_TAG``, by putting an image manifest under
  that tag into moto's ECR, with the project's environment variables and the
  build's ``environmentVariablesOverride``. No docker build runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def install(owner: type, name: str, function: Callable[..., Any]) -> None:
    """Put ``function`` on moto's class ``owner`` as its ``name`` (a new or replaced
    method: moto's classes are patched on purpose, which static types cannot say)."""
    setattr(owner, name, function)


def table_resource(params: dict[str, Any], *, account: str, region: str) -> str:
    """The ARN a DynamoDB request is authorised against, or ``*`` for calls on no table."""
    table = params.get("TableName")
    if not table and isinstance(params.get("RequestItems"), dict) and params["RequestItems"]:
        table = sorted(params["RequestItems"])[0]
    if not table:
        return "*"
    arn = f"arn:aws:dynamodb:{region}:{account}:table/{table}"
    return f"{arn}/index/{params['IndexName']}" if params.get("IndexName") else arn


def patch_dynamodb() -> None:
    from moto.dynamodb.responses import DynamoHandler

    def determine_resource(self: Any) -> str:
        return table_resource(getattr(self, "params", None) or {},
                              account=self.current_account, region=self.region)

    install(DynamoHandler, "_determine_resource", determine_resource)


def patch_sqs_queue_names() -> None:
    """GetQueueUrl names its queue by QueueName (moto checks it against ``*``)."""
    from moto.sqs.responses import SQSResponse

    original = SQSResponse._determine_resource

    def determine_resource(self: Any) -> str:
        name = self._get_param("QueueName")
        if name and not self._get_param("QueueUrl"):
            owner = self._get_param("QueueOwnerAWSAccountId") or self.current_account
            return f"arn:aws:sqs:{self.region}:{owner}:{name}"
        return original(self)

    install(SQSResponse, "_determine_resource", determine_resource)


def patch_action_prefixes() -> None:
    from moto.iam.access_control import IAMRequestBase

    original = IAMRequestBase.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if self._action.startswith("monitoring:"):
            self._action = "cloudwatch:" + self._action.removeprefix("monitoring:")

    install(IAMRequestBase, "__init__", init)


# A minimal Docker image manifest (schema 2), enough for ECR's PutImage.
MANIFEST = {
    "schemaVersion": 2,
    "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
    "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "size": 2,
               "digest": "sha256:" + "0" * 64},
    "layers": [],
}


def patch_presigned_s3() -> None:
    import datetime as dt
    from urllib.parse import parse_qs, urlsplit

    from moto.iam.access_control import S3IAMRequest

    original_init, original_check = S3IAMRequest.__init__, S3IAMRequest.check_signature

    def init(self: Any, account_id: str, method: str, path: str, data: Any, body: bytes,
             headers: Any, action: str) -> None:
        query = parse_qs(urlsplit(path).query)
        self._presigned = None
        if "Authorization" not in headers and "X-Amz-Credential" in query:
            self._presigned = query
            headers = dict(headers)
            headers["Authorization"] = (f"AWS4-HMAC-SHA256 Credential="
                                        f"{query['X-Amz-Credential'][0]}, SignedHeaders=host")
            if "X-Amz-Security-Token" in query:
                headers["X-Amz-Security-Token"] = query["X-Amz-Security-Token"][0]
        original_init(self, account_id, method, path, data, body, headers, action)

    def check_signature(self: Any) -> None:
        if self._presigned is None:
            return original_check(self)
        signed = dt.datetime.strptime(self._presigned["X-Amz-Date"][0], "%Y%m%dT%H%M%SZ")
        expires = dt.timedelta(seconds=int(self._presigned["X-Amz-Expires"][0]))
        if dt.datetime.now(dt.UTC).replace(tzinfo=None) > signed + expires:
            self._raise_access_denied()
        return None

    install(S3IAMRequest, "__init__", init)
    install(S3IAMRequest, "check_signature", check_signature)


def patch_sqs_redrive_allow_policy() -> None:
    from moto.sqs.models import SQSBackend

    original = SQSBackend.get_queue_attributes
    name = "RedriveAllowPolicy"

    def get_queue_attributes(self: Any, queue_name: str, attribute_names: list[str]) -> Any:
        others = [n for n in attribute_names if n != name]
        result = original(self, queue_name, others) if others else {}
        policy = getattr(self.get_queue(queue_name), "redrive_allow_policy", None)
        if policy and (name in attribute_names or "All" in attribute_names):
            result[name] = policy
        return result

    install(SQSBackend, "get_queue_attributes", get_queue_attributes)


def patch_autoscaling_tags() -> None:
    from moto.applicationautoscaling.responses import ApplicationAutoScalingResponse as R

    tags: dict[str, dict[str, str]] = {}
    register = R.register_scalable_target

    def register_scalable_target(self: Any) -> str:
        body = register(self)
        arn = json.loads(body)["ScalableTargetARN"]
        tags.setdefault(arn, {}).update(self._get_param("Tags") or {})
        return body

    def tag_resource(self: Any) -> str:
        tags.setdefault(self._get_param("ResourceARN"), {}).update(self._get_param("Tags") or {})
        return "{}"

    def untag_resource(self: Any) -> str:
        for key in self._get_param("TagKeys") or []:
            tags.get(self._get_param("ResourceARN"), {}).pop(key, None)
        return "{}"

    def list_tags_for_resource(self: Any) -> str:
        return json.dumps({"Tags": tags.get(self._get_param("ResourceARN"), {})})

    install(R, "register_scalable_target", register_scalable_target)
    install(R, "tag_resource", tag_resource)
    install(R, "untag_resource", untag_resource)
    install(R, "list_tags_for_resource", list_tags_for_resource)


def patch_sagemaker_update_endpoint() -> None:
    from moto.core.responses import ActionResult
    from moto.core.utils import utcnow
    from moto.sagemaker.exceptions import ValidationError
    from moto.sagemaker.responses import SageMakerResponse

    def update_endpoint(self: Any) -> ActionResult:
        backend = self.sagemaker_backend
        name = self._get_param("EndpointName")
        backend.describe_endpoint(name)  # ValidationError when it does not exist
        config = backend.describe_endpoint_config(self._get_param("EndpointConfigName"))
        endpoint = backend.endpoints[name]
        if endpoint.endpoint_status != "InService":
            raise ValidationError(
                message=f"Cannot update endpoint {name} in status {endpoint.endpoint_status}")
        endpoint.endpoint_config_name = config["EndpointConfigName"]
        endpoint.production_variants = endpoint._process_production_variants(
            config["ProductionVariants"])
        endpoint.last_modified_time = utcnow()
        return ActionResult({"EndpointArn": endpoint.arn})

    install(SageMakerResponse, "update_endpoint", update_endpoint)


def _build_env(project: dict[str, Any], overrides: list[dict[str, str]]) -> dict[str, str]:
    env = {v["name"]: v["value"] for v in project.get("environment", {})
           .get("environmentVariables", [])}
    env.update({v["name"]: v["value"] for v in overrides})
    return env


def patch_codebuild_push() -> None:
    from moto.codebuild.responses import CodeBuildResponse
    from moto.ecr.models import ecr_backends

    start = CodeBuildResponse.start_build

    def start_build(self: Any) -> Any:
        result = start(self)
        project = self.codebuild_backend.codebuild_projects[self._get_param("projectName")]
        env = _build_env(project.project_metadata,
                         self._get_param("environmentVariablesOverride") or [])
        if env.get("REPOSITORY_URL") and env.get("IMAGE_TAG"):
            repository = env["REPOSITORY_URL"].split("/", 1)[1]
            ecr_backends[self.current_account][self.region].put_image(
                repository, json.dumps(MANIFEST), env["IMAGE_TAG"])
        return result

    install(CodeBuildResponse, "start_build", start_build)


PATCHES = (patch_dynamodb, patch_sqs_queue_names, patch_action_prefixes, patch_presigned_s3,
           patch_sqs_redrive_allow_policy, patch_autoscaling_tags,
           patch_sagemaker_update_endpoint, patch_codebuild_push)


def apply_all() -> None:
    """Patch moto in this process (before its server starts)."""
    for patch in PATCHES:
        patch()
