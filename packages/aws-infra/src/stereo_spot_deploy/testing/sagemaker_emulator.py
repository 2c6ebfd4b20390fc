"""A SageMaker async endpoint for the deployment harness (one process, stdlib HTTP).

It does what ``InvokeEndpointAsync`` does that video-worker relies on: answer
202 with the invocation's own output and failure locations, then read the
request object from S3, POST it to the container's ``/invocations`` and write
the container's answer to the output location (2xx) or the failure location.
S3 is reached with the credentials in the environment: the harness starts it
with the SageMaker execution role's, so a missing right fails as on AWS.

    python -m stereo_spot_deploy.testing.sagemaker_emulator --port 8090 \
        --container http://127.0.0.1:8080 --endpoint stereo-spot-inference \
        --output-path s3://out/sagemaker-async/responses/ \
        --failure-path s3://out/sagemaker-async/failures/ --aws-endpoint-url http://...
"""

from __future__ import annotations

import argparse
import json
import logging
import threading
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

log = logging.getLogger("sagemaker_emulator")


def split_s3(uri: str) -> tuple[str, str]:
    """(bucket, key) of ``s3://bucket/key``. Raises ValueError for anything else."""
    parts = urlsplit(uri)
    if parts.scheme != "s3" or not parts.netloc:
        raise ValueError(f"not an S3 URI: {uri!r}")
    return parts.netloc, parts.path.lstrip("/")


class Endpoint:
    """One async endpoint in front of one container."""

    def __init__(self, name: str, container_url: str, output_path: str, failure_path: str,
                 s3: Any, *, invocation_timeout_s: float = 600) -> None:
        self.name, self.container_url = name, container_url.rstrip("/")
        self.output_path, self.failure_path = output_path, failure_path
        self.s3, self.timeout_s = s3, invocation_timeout_s
        self.one_at_a_time = threading.Lock()  # max_concurrent_invocations_per_instance = 1

    def accept(self, input_location: str, content_type: str) -> tuple[str, str, str]:
        """Queue one invocation; returns (inference id, output URI, failure URI)."""
        inference_id = str(uuid.uuid4())
        output_uri = f"{self.output_path}{inference_id}.out"
        failure_uri = f"{self.failure_path}{inference_id}-error.out"
        threading.Thread(target=self._run, daemon=True, name=f"invoke-{inference_id[:8]}",
                         args=(input_location, content_type, output_uri, failure_uri)).start()
        return inference_id, output_uri, failure_uri

    def _put(self, uri: str, body: bytes) -> None:
        bucket, key = split_s3(uri)
        self.s3.put_object(Bucket=bucket, Key=key, Body=body)

    def _run(self, input_location: str, content_type: str, output_uri: str,
             failure_uri: str) -> None:
        try:
            bucket, key = split_s3(input_location)
            body = self.s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        except Exception as exc:  # the request object is unreadable: a failure
            log.warning("cannot read %s: %s", input_location, exc)
            self._put(failure_uri, json.dumps({"error": {"code": "input_unreadable",
                                                         "message": str(exc)}}).encode())
            return
        request = urllib.request.Request(f"{self.container_url}/invocations", data=body,
                                         headers={"Content-Type": content_type}, method="POST")
        with self.one_at_a_time:
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as resp:
                    answer, ok = resp.read(), True
            except urllib.error.HTTPError as exc:
                answer, ok = exc.read(), False
            except OSError as exc:
                answer = json.dumps({"error": {"code": "container_unreachable",
                                               "message": str(exc)}}).encode()
                ok = False
        self._put(output_uri if ok else failure_uri, answer)
        log.info("invocation of %s done: %s", input_location, "output" if ok else "failure")


def make_handler(endpoint: Endpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            # Not a SageMaker API: the harness's readiness probe.
            self._answer(200 if self.path == "/ping" else 404, {"endpoint": endpoint.name})

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            parts = self.path.strip("/").split("/")
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            if len(parts) != 3 or parts[0] != "endpoints" or parts[2] != "async-invocations":
                return self._answer(404, {"message": f"unknown path {self.path}"})
            if unquote(parts[1]) != endpoint.name:
                return self._answer(400, {"__type": "ValidationError",
                                          "message": f"Endpoint {parts[1]} not found."})
            location = self.headers.get("X-Amzn-SageMaker-InputLocation", "")
            content_type = self.headers.get("X-Amzn-SageMaker-Content-Type", "application/json")
            try:
                split_s3(location)
            except ValueError as exc:
                return self._answer(400, {"__type": "ValidationError", "message": str(exc)})
            inference_id, output_uri, failure_uri = endpoint.accept(location, content_type)
            self._answer(202, {"InferenceId": inference_id}, {
                "X-Amzn-SageMaker-OutputLocation": output_uri,
                "X-Amzn-SageMaker-FailureLocation": failure_uri})

        def _answer(self, status: int, body: dict, headers: dict | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, fmt: str, *args: Any) -> None:
            log.info(fmt, *args)

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sagemaker_emulator")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--container", required=True)
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--output-path", required=True)
    parser.add_argument("--failure-path", required=True)
    parser.add_argument("--aws-endpoint-url", default=None)
    parser.add_argument("--region", default="us-east-1")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    import boto3
    from botocore.config import Config

    s3 = boto3.client("s3", region_name=args.region, endpoint_url=args.aws_endpoint_url,
                      config=Config(s3={"addressing_style": "path"}))
    endpoint = Endpoint(args.endpoint, args.container, args.output_path, args.failure_path, s3)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(endpoint))
    log.info("SageMaker async emulator for %s on port %d", args.endpoint, args.port)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
