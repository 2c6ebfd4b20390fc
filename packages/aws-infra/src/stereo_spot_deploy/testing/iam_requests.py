"""Turn recorded AWS calls into the IAM requests AWS authorises them as.

An operation's IAM action is not always its name (``HeadObject`` is
``s3:GetObject``, ``ListObjectsV2`` is ``s3:ListBucket`` with the ``s3:prefix``
condition key, batch SQS calls are their single forms), and a ``PutObject``
with tags also needs ``s3:PutObjectTagging``. Calls the harness itself makes
to get credentials (STS) are not requests of a service.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

_S3_ACTIONS = {
    "HeadObject": "s3:GetObject", "GetObject": "s3:GetObject", "PutObject": "s3:PutObject",
    "PostObject": "s3:PutObject", "DeleteObject": "s3:DeleteObject",
    "ListObjectsV2": "s3:ListBucket", "ListObjects": "s3:ListBucket",
    "HeadBucket": "s3:ListBucket",
    "CreateMultipartUpload": "s3:PutObject", "UploadPart": "s3:PutObject",
    "CompleteMultipartUpload": "s3:PutObject", "AbortMultipartUpload": "s3:AbortMultipartUpload",
    "ListParts": "s3:ListMultipartUploadParts", "PutObjectTagging": "s3:PutObjectTagging",
    "GetObjectTagging": "s3:GetObjectTagging",
    "ListMultipartUploads": "s3:ListBucketMultipartUploads",
}
_S3_BUCKET_ACTIONS = ("s3:ListBucket", "s3:ListBucketMultipartUploads")
_S3_PREFIX_KEYED = ("s3:ListBucket",)  # IAM gives s3:prefix to these only
_SKIPPED_SERVICES = {"sts"}
_SERVICE_PREFIX = {"sagemaker-runtime": "sagemaker", "monitoring": "cloudwatch"}


@dataclass(frozen=True)
class IamRequest:
    """One authorisation AWS makes: an action on a resource with context keys."""

    action: str
    resource: str
    context: dict[str, str] = field(default_factory=dict)
    operation: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"action": self.action, "resource": self.resource, "context": self.context,
                "operation": self.operation}

    def __hash__(self) -> int:
        return hash((self.action, self.resource, tuple(sorted(self.context.items()))))


def _queue_arn(params: dict[str, Any], account: str, region: str) -> str:
    if "QueueUrl" in params:
        path = urlsplit(params["QueueUrl"]).path.strip("/").split("/")
        owner, name = (path[-2], path[-1]) if len(path) >= 2 else (account, path[-1])
    else:
        owner, name = params.get("QueueOwnerAWSAccountId", account), params["QueueName"]
    return f"arn:aws:sqs:{region}:{owner}:{name}"


def _s3(op: str, params: dict[str, Any]) -> list[IamRequest]:
    action = _S3_ACTIONS.get(op, f"s3:{op}")
    bucket = f"arn:aws:s3:::{params['Bucket']}"
    if action in _S3_BUCKET_ACTIONS:
        keyed = action in _S3_PREFIX_KEYED and "Prefix" in params
        context = {"s3:prefix": params["Prefix"]} if keyed else {}
        return [IamRequest(action, bucket, context, op)]
    obj = f"{bucket}/{params['Key']}"
    out = [IamRequest(action, obj, {}, op)]
    if params.get("Tagging") and action == "s3:PutObject":
        out.append(IamRequest("s3:PutObjectTagging", obj, {}, op))
    return out


def _dynamodb(op: str, params: dict[str, Any], account: str, region: str) -> list[IamRequest]:
    prefix = f"arn:aws:dynamodb:{region}:{account}:table/"
    tables = params.get("Tables") or [params["TableName"]]
    out = []
    for table in tables:
        resource = prefix + table
        if params.get("IndexName"):
            resource += f"/index/{params['IndexName']}"
        out.append(IamRequest(f"dynamodb:{op}", resource, {}, op))
    return out


def iam_requests(call: dict[str, Any], *, account: str, default_region: str) -> list[IamRequest]:
    """The IAM requests of one recorded call (empty for the harness's own STS calls)."""
    service, op, params = call["service"], call["operation"], call["params"]
    region = call.get("region") or default_region
    if service in _SKIPPED_SERVICES:
        return []
    if service == "s3":
        return _s3(op, params)
    if service == "sqs":
        action = f"sqs:{op.removesuffix('Batch')}"
        return [IamRequest(action, _queue_arn(params, account, region), {}, op)]
    if service == "dynamodb":
        return _dynamodb(op, params, account, region)
    if service == "sagemaker-runtime":
        arn = f"arn:aws:sagemaker:{region}:{account}:endpoint/{params['EndpointName'].lower()}"
        return [IamRequest(f"sagemaker:{op}", arn, {}, op)]
    if service == "cloudwatch":
        context = {"cloudwatch:namespace": params["Namespace"]} if "Namespace" in params else {}
        return [IamRequest(f"cloudwatch:{op}", "*", context, op)]
    return [IamRequest(f"{_SERVICE_PREFIX.get(service, service)}:{op}", "*", {}, op)]
