"""Ports on DynamoDB, SQS and S3 (boto3).

``build_backend(settings)`` wires every port; the adapters live in
``dynamo_jobs``, ``dynamo_completions``, ``dynamo_segment_status``,
``dynamo_reassembly``, ``sqs_queue`` and ``s3_storage``; ``provision`` creates
the data plane on moto or a sandbox account. boto3 is imported only when an
adapter is used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["build_backend"]


def __getattr__(name: str) -> Any:
    if name == "build_backend":
        from aws_adapters.backend import build_backend

        return build_backend
    raise AttributeError(f"module 'aws_adapters' has no attribute {name!r}")
