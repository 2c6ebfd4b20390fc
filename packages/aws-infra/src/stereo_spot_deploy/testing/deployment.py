"""The deployment harness: the data plane and the IAM roles Terraform deploys,
applied to moto_server with IAM enforcement on, and every service started as its
own process under its own role.

:func:`apply_stack` runs ``terraform apply`` of ``modules/data-plane`` and
``modules/task-roles`` against moto (plus a harness user allowed to assume each
role, through the module's ``extra_trusted_principals``), :func:`enforce_iam`
turns moto's IAM checks on, :func:`assume` gets each role's temporary
credentials with ``sts:AssumeRole`` and :class:`Services` starts web-ui,
media-worker, video-worker, the inference container and the SageMaker async
emulator, each recording its AWS calls (``call_recorder``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from stereo_spot_deploy.testing.call_recorder import ENV_VAR as CALL_LOG_VAR
from stereo_spot_deploy.testing.hcl import load_dir
from stereo_spot_deploy.testing.moto_root import INFRA, REGION, moto_root
from stereo_spot_deploy.testing.tools import Terraform

RECORDER_SITE = Path(__file__).resolve().parent / "recorder_site"
ACCOUNT = "123456789012"  # moto's default account
ENDPOINT_NAME = "stereo-spot-inference"
VENV_BIN = Path(sys.executable).parent
# Lines of the harness's report, shown in the terminal summary (tests/integration/conftest.py).
REPORT = pytest.StashKey[list[str]]()
OPERATOR = "operator"  # the harness user: sets up faults, redrives DLQs; not evaluated

ROLES_CONFIG = """
# The operator of the harness: may assume every role (and do anything else).
resource "aws_iam_user" "harness" {{
  name = "stereo-spot-harness"
}}
resource "aws_iam_user_policy" "harness" {{
  name   = "operator"
  user   = aws_iam_user.harness.name
  policy = jsonencode({{
    Version   = "2012-10-17"
    Statement = [{{ Effect = "Allow", Action = "*", Resource = "*" }}]
  }})
}}
resource "aws_iam_access_key" "harness" {{
  user = aws_iam_user.harness.name
}}
module "roles" {{
  source                   = "{infra}/modules/task-roles"
  region                   = "{region}"
  endpoint_name            = "{endpoint}"
  inference_repository_arn = "arn:aws:ecr:{region}:{account}:repository/stereo-spot-inference"
  extra_trusted_principals = [aws_iam_user.harness.arn]
  data_plane = {{
    buckets     = module.data_plane.buckets
    bucket_arns = module.data_plane.bucket_arns
    queue_arns  = module.data_plane.queue_arns
    dlq_arns    = module.data_plane.dlq_arns
    table_arns  = module.data_plane.table_arns
  }}
}}
output "roles" {{
  value = module.roles
}}
output "harness_key" {{
  value     = {{ id = aws_iam_access_key.harness.id, secret = aws_iam_access_key.harness.secret }}
  sensitive = true
}}
"""


@dataclass
class Stack:
    """What ``terraform apply`` created on moto."""

    url: str
    data_plane: dict[str, Any]
    role_arns: dict[str, str]  # web-ui, media-worker, video-worker, sagemaker
    policies: dict[str, dict[str, Any]]  # same keys: the deployed identity policy
    operator: dict[str, str]  # AWS_* env of the harness user

    def backend_env(self) -> dict[str, str]:
        """The STEREO_SPOT_* settings every service reads (as ECS passes them)."""
        dp = self.data_plane
        return {
            "STEREO_SPOT_BACKEND": "aws", "STEREO_SPOT_AWS_REGION": REGION,
            "STEREO_SPOT_AWS_ENDPOINT_URL": self.url,
            "STEREO_SPOT_INPUT_BUCKET": dp["buckets"]["input"],
            "STEREO_SPOT_OUTPUT_BUCKET": dp["buckets"]["output"],
            "STEREO_SPOT_JOBS_TABLE": dp["tables"]["jobs"],
            "STEREO_SPOT_SEGMENT_COMPLETIONS_TABLE": dp["tables"]["segment-completions"],
            "STEREO_SPOT_SEGMENT_STATUS_TABLE": dp["tables"]["segment-status"],
            "STEREO_SPOT_REASSEMBLY_TABLE": dp["tables"]["reassembly-triggered"],
            "STEREO_SPOT_CHUNKING_QUEUE_URL": dp["queue_urls"]["chunking"],
            "STEREO_SPOT_VIDEO_WORKER_QUEUE_URL": dp["queue_urls"]["video-worker"],
            "STEREO_SPOT_SEGMENT_OUTPUT_QUEUE_URL": dp["queue_urls"]["segment-output"],
            "STEREO_SPOT_REASSEMBLY_QUEUE_URL": dp["queue_urls"]["reassembly"],
        }


def apply_stack(terraform: Terraform, workdir: Path, url: str) -> Stack:
    """``terraform apply`` the data plane and the roles to moto at ``url``."""
    (workdir / "main.tf").write_text(moto_root(url, workdir) + ROLES_CONFIG.format(
        infra=INFRA, region=REGION, account=ACCOUNT, endpoint=ENDPOINT_NAME))
    terraform.init_offline(workdir)
    done = terraform.run(workdir, "apply", "-auto-approve", "-parallelism=30", timeout=280)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    (workdir / "apply.log").write_text(done.stdout)
    out = json.loads(terraform.run(workdir, "output", "-json").stdout)
    roles = out["roles"]["value"]
    key = out["harness_key"]["value"]
    return Stack(
        url=url, data_plane=out["data_plane"]["value"],
        role_arns={**roles["task_role_arns"], "sagemaker": roles["sagemaker_role_arn"]},
        policies={k: json.loads(v) for k, v in roles["policies"].items()},
        operator={"AWS_ACCESS_KEY_ID": key["id"], "AWS_SECRET_ACCESS_KEY": key["secret"],
                  "AWS_DEFAULT_REGION": REGION})


def enforce_iam(url: str) -> None:
    """From now on moto authenticates every request and checks it against IAM."""
    request = urllib.request.Request(f"{url}/moto-api/reset-auth", data=b"0", method="POST",
                                     headers={"Content-Type": "text/plain"})
    with urllib.request.urlopen(request, timeout=10):
        pass


def assume(stack: Stack, role: str) -> dict[str, str]:
    """AWS_* environment with temporary credentials of ``role`` (sts:AssumeRole
    as the harness user, which moto checks against the role's trust policy)."""
    import boto3

    sts = boto3.client("sts", region_name=REGION, endpoint_url=stack.url,
                       aws_access_key_id=stack.operator["AWS_ACCESS_KEY_ID"],
                       aws_secret_access_key=stack.operator["AWS_SECRET_ACCESS_KEY"])
    creds = sts.assume_role(RoleArn=stack.role_arns[role],
                            RoleSessionName=f"harness-{role}")["Credentials"]
    return {"AWS_ACCESS_KEY_ID": creds["AccessKeyId"],
            "AWS_SECRET_ACCESS_KEY": creds["SecretAccessKey"],
            "AWS_SESSION_TOKEN": creds["SessionToken"], "AWS_DEFAULT_REGION": REGION}


def endpoint_paths(output_bucket: str) -> tuple[str, str]:
    """The async endpoint's output and failure paths as modules/compute configures them."""
    compute = load_dir(INFRA / "modules" / "compute")
    config = compute.resource("aws_sagemaker_endpoint_configuration", "this")
    output = config["async_inference_config"][0]["output_config"][0]
    placeholder = '${local.dp.buckets["output"]}'
    return (output["s3_output_path"].replace(placeholder, output_bucket),
            output["s3_failure_path"].replace(placeholder, output_bucket))


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status < 500
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except OSError:
        return False


@dataclass
class Process:
    name: str
    proc: subprocess.Popen
    log: Path
    log_file: Any = None


@dataclass
class Services:
    """Service processes, each under its own role, each recording its AWS calls."""

    stack: Stack
    workdir: Path
    processes: list[Process] = field(default_factory=list)
    credentials: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def calls_dir(self) -> Path:
        return self.workdir / "calls"

    def env_for(self, role: str, extra: dict[str, str]) -> dict[str, str]:
        """Environment of a process running as ``role`` ("operator": the harness user)."""
        if role not in self.credentials:
            self.credentials[role] = (self.stack.operator if role == OPERATOR
                                      else assume(self.stack, role))
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("AWS_", "STEREO_SPOT_"))}
        self.calls_dir.mkdir(exist_ok=True)
        env.update(self.stack.backend_env())
        env.update(self.credentials[role])
        env.update(PYTHONPATH=str(RECORDER_SITE), PYTHONUNBUFFERED="1",
                   **{CALL_LOG_VAR: str(self.calls_dir / f"{role}.jsonl")})
        env.update(extra)
        return env

    def start(self, name: str, role: str, argv: list[str], extra: dict[str, str],
              ready_url: str | None = None) -> Process:
        """Start ``argv`` as role ``role``; wait until ``ready_url`` answers if given."""
        log = self.workdir / f"{name}.log"
        log_file = log.open("wb")
        proc = subprocess.Popen(argv, env=self.env_for(role, extra), stdin=subprocess.DEVNULL,
                                stdout=log_file, stderr=subprocess.STDOUT, cwd=self.workdir)
        started = Process(name, proc, log, log_file)
        self.processes.append(started)
        if ready_url:
            wait_for(lambda: _answers(ready_url), 120, f"{name} to answer at {ready_url}",
                     lambda: self._tail(started))
        return started

    def run(self, name: str, role: str, argv: list[str], extra: dict[str, str],
            timeout: float = 180) -> subprocess.CompletedProcess:
        """Run a one-shot command as role ``role`` (recording its calls too)."""
        return subprocess.run(argv, env=self.env_for(role, extra), capture_output=True,
                               text=True, timeout=timeout, check=False, cwd=self.workdir)

    def _tail(self, process: Process) -> str:
        return process.log.read_text(errors="replace")[-6000:]

    def logs(self) -> str:
        """The last lines of every process's log (for failure messages)."""
        return "\n".join(f"--- {p.name} (rc={p.proc.poll()})\n{self._tail(p)}"
                         for p in self.processes)

    def signal(self, name: str, signum: int) -> None:
        """Send ``signum`` to the process ``name`` (SIGSTOP/SIGCONT pause a worker)."""
        [process] = [p for p in self.processes if p.name == name]
        process.proc.send_signal(signum)

    def stop(self) -> None:
        for p in self.processes:
            if p.proc.poll() is None:
                p.proc.terminate()
        for p in self.processes:
            try:
                p.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                p.proc.kill()
                p.proc.wait(timeout=10)
            p.log_file.close()

    def recorded_calls(self) -> dict[str, list[dict[str, Any]]]:
        """Every recorded call by role, as far as its line is written: a
        service may be half way through appending one (read under load, a
        line cut off after 154 characters failed the whole harness)."""
        out: dict[str, list[dict[str, Any]]] = {}
        for file in sorted(self.calls_dir.glob("*.jsonl")):
            complete, _, _ = file.read_text(encoding="utf-8").rpartition("\n")
            out[file.stem] = [json.loads(line) for line in complete.split("\n") if line.strip()]
        return out


def operator_client(stack: Stack, service: str) -> Any:
    """A boto3 client on moto as the harness user."""
    import boto3

    return boto3.client(service, endpoint_url=stack.url, region_name=REGION,
                        aws_access_key_id=stack.operator["AWS_ACCESS_KEY_ID"],
                        aws_secret_access_key=stack.operator["AWS_SECRET_ACCESS_KEY"])


def operator_backend(stack: Stack) -> Any:
    """The ports on moto as the harness user (to set up faults the way they happen)."""
    from aws_adapters import build_backend
    from shared_types.settings import BackendSettings

    env = stack.backend_env()
    # exactly the stack's values (and the defaults), not this process's environment
    settings = BackendSettings.model_validate({k.removeprefix("STEREO_SPOT_").lower(): v
                                               for k, v in env.items()})
    return build_backend(settings, client=lambda service: operator_client(stack, service))


def wait_for(condition: Callable[[], Any], timeout_s: float, what: str,
             explain: Callable[[], str] = lambda: "") -> Any:
    """Poll ``condition`` until it is truthy (returned); fail naming ``what``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{explain()}")
        time.sleep(0.3)


def bin_path(name: str) -> str:
    """A console script of this environment (web-ui, media-worker, ...)."""
    return str(VENV_BIN / name)


@contextmanager
def running(services: Services) -> Iterator[Services]:
    try:
        yield services
    finally:
        services.stop()
