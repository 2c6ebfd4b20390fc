"""Rare paths of a service's code, run once as a process of the deployment harness.

Each subcommand calls the very function a service calls on a path the
end-to-end scenario cannot time (a job cancelled in the middle of a worker's
step, a multipart upload that fails half-way); the harness starts it under the
service's own role with the call recorder, like the service itself, so its
calls are evaluated against that role's policy and moto enforces IAM on them.

- ``discard-cancelled JOB_ID``: what media-worker does when its conditional
  update is refused because the job was cancelled meanwhile
  (``shared_types.cancel.discard_if_cancelled``).
- ``failed-upload BUCKET KEY``: ``S3ObjectStorage.put_file`` of a file over the
  multipart threshold whose first part fails (the fault is raised by a botocore
  ``before-call`` hook, before the part is sent); boto3's transfer manager then
  aborts the upload.

The last line printed is a JSON report.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any


class InjectedPartFailure(Exception):
    """The fault this module injects into an upload's first part."""


def discard_cancelled(job_id: str) -> dict[str, Any]:
    from shared_types.backend_loader import load_backend
    from shared_types.cancel import discard_if_cancelled
    from shared_types.settings import BackendSettings

    backend = load_backend(BackendSettings())
    return {"job_id": job_id, "discarded": discard_if_cancelled(backend, job_id)}


def failed_upload(bucket: str, key: str) -> dict[str, Any]:
    from aws_adapters.clients import make_client
    from aws_adapters.s3_storage import MULTIPART_THRESHOLD, S3ObjectStorage
    from shared_types.errors import StereoSpotError
    from shared_types.settings import BackendSettings

    settings = BackendSettings()
    client = make_client("s3", region=settings.aws_region,
                         endpoint_url=settings.aws_endpoint_url)

    def fail_part(**_kwargs: Any) -> None:
        raise InjectedPartFailure("injected: the connection dropped during a part")

    client.meta.events.register("before-call.s3.UploadPart", fail_part)
    storage = S3ObjectStorage(bucket, client=client)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.mp4"
        with path.open("wb") as out:  # sparse: nothing is written to disk
            out.truncate(MULTIPART_THRESHOLD + 1)
        try:
            storage.put_file(key, path, content_type="video/mp4")
        except (StereoSpotError, InjectedPartFailure) as exc:
            return {"bucket": bucket, "key": key, "failed": True, "error": str(exc)[:500]}
    return {"bucket": bucket, "key": key, "failed": False}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="role_paths", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("discard-cancelled").add_argument("job_id")
    upload = sub.add_parser("failed-upload")
    upload.add_argument("bucket")
    upload.add_argument("key")
    args = parser.parse_args(argv)
    if args.command == "discard-cancelled":
        report = discard_cancelled(args.job_id)
    else:
        report = failed_upload(args.bucket, args.key)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
