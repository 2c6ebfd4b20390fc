"""Record every AWS call a process makes (botocore event hooks) to a JSON-lines file.

The deployment harness starts each service with ``recorder_site/`` on
PYTHONPATH and ``STEREO_SPOT_CALL_LOG`` naming a file; the ``sitecustomize``
there calls :func:`install`. Each line holds the service, the operation and the
parameters that name what it touches (bucket, key, prefix, queue, table, index,
endpoint, namespace), which :mod:`iam_requests` turns into IAM requests.
Presigned URLs and POSTs are recorded too: whoever uses them acts with the
signer's rights.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

ENV_VAR = "STEREO_SPOT_CALL_LOG"
_KEPT = ("Bucket", "Key", "Prefix", "QueueUrl", "QueueName", "QueueOwnerAWSAccountId",
         "TableName", "IndexName", "EndpointName", "Namespace")
_lock = threading.Lock()
# botocore resolves a presigned POST's endpoint through a CreateBucket model: not a call.
_inside_presigned_post = threading.local()


def call_record(service: str, operation: str, params: dict[str, Any], *, region: str | None,
                presigned: bool = False) -> dict[str, Any]:
    """One call as a JSON-ready dict: only the parameters that name resources."""
    kept = {k: params[k] for k in _KEPT if isinstance(params.get(k), str)}
    if "RequestItems" in params:
        kept["Tables"] = sorted(params["RequestItems"])
    if params.get("Tagging"):
        kept["Tagging"] = True
    return {"service": service, "operation": operation, "params": kept, "region": region,
            "presigned": presigned}


def _append(path: str, record: dict[str, Any]) -> None:
    line = json.dumps(record, sort_keys=True)
    with _lock, open(path, "a", encoding="utf-8") as out:
        out.write(line + "\n")


def install(path: str | None = None) -> bool:
    """Hook every botocore session created from now on; returns False when no
    log file is configured (nothing is hooked)."""
    path = path or os.environ.get(ENV_VAR)
    if not path:
        return False
    import botocore.session
    import botocore.signers

    def on_params(params, model, context=None, **_kwargs):
        if getattr(_inside_presigned_post, "active", False):
            return
        context = context or {}
        _append(path, call_record(
            model.service_model.service_name, model.name, params,
            region=context.get("client_region"), presigned=bool(context.get("is_presign_request"))))

    original_init = botocore.session.Session.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.register("provide-client-params", on_params)

    botocore.session.Session.__init__ = init

    original_post = botocore.signers.generate_presigned_post

    def presigned_post(self, Bucket, Key, *args, **kwargs):  # noqa: N803 (botocore's names)
        _append(path, call_record("s3", "PostObject", {"Bucket": Bucket, "Key": Key},
                                  region=self.meta.region_name, presigned=True))
        _inside_presigned_post.active = True
        try:
            return original_post(self, Bucket, Key, *args, **kwargs)
        finally:
            _inside_presigned_post.active = False

    botocore.signers.generate_presigned_post = presigned_post
    return True
