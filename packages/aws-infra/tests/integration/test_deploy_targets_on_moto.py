"""The deploy targets an operator runs, run as project.json spells them, in the
order docs/RUNBOOKS.md gives, against moto_server.

`aws-infra:init` and `aws-infra:apply` run the real root module
(packages/aws-infra, unmodified: only backend.hcl and terraform.tfvars are
written, as the runbook says) with ``AWS_ENDPOINT_URL`` pointing the AWS
provider, the S3 backend and boto3 at moto; `sagemaker-build` starts the
Terraform-made CodeBuild project (moto_deploy_server pushes the image its
buildspec would push; no docker runs) and `sagemaker-deploy` rolls the
Terraform-made endpoint. `aws-infra:build` and `aws-infra:deploy` need docker
and running ECS tasks: they are not run here (test_ecs_deploy.py covers the
ECS rollout on moto).
"""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import boto3
import pytest
from aws_adapters.testing.moto_server import FAKE_CREDENTIALS, run_moto_server

from stereo_spot_deploy.envfile import read_env_file
from stereo_spot_deploy.testing.moto_root import MOTO_SERVER
from stereo_spot_deploy.testing.nx_targets import run_target, runbook_targets
from stereo_spot_deploy.testing.tools import REPO_ROOT, copy_config, find_terraform

RUNBOOK = REPO_ROOT / "docs" / "RUNBOOKS.md"
NEEDS_DOCKER = {"aws-infra:build", "aws-infra:deploy"}
REGION = "us-east-1"
ENDPOINT = "stereo-spot-inference"


def _ok(done: subprocess.CompletedProcess, what: str) -> str:
    assert done.returncode == 0, f"{what} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def _aws(service: str, url: str):
    return boto3.client(service, region_name=REGION, endpoint_url=url, aws_access_key_id="t",
                        aws_secret_access_key="t")


def _stack_prerequisites(url: str, infra: Path) -> None:
    """What the runbook has the operator create before `aws-infra:init`: the
    state backend (aws-infra-setup, tested on its own; its TLS-only bucket
    policy refuses moto's plain HTTP), a certificate and terraform.tfvars."""
    _aws("s3", url).create_bucket(Bucket="stereo-spot-tfstate-test")
    _aws("dynamodb", url).create_table(
        TableName="stereo-spot-terraform-locks", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "LockID", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "LockID", "AttributeType": "S"}])
    cert = _aws("acm", url).request_certificate(DomainName="stereo.example.com")
    (infra / "backend.hcl").write_text(
        'bucket = "stereo-spot-tfstate-test"\nkey = "aws-infra/terraform.tfstate"\n'
        'region = "us-east-1"\ndynamodb_table = "stereo-spot-terraform-locks"\nencrypt = true\n')
    (infra / "terraform.tfvars").write_text(
        'region = "us-east-1"\nallowed_ingress_cidrs = ["203.0.113.7/32"]\n'
        f'certificate_arn = "{cert["CertificateArn"]}"\nalarm_email = "ops@example.com"\n'
        'inference_source_repository = "https://git.example.com/ops/stereo-spot.git"\n')


@dataclass
class Deployed:
    url: str
    env_file: Path
    run: Callable[..., subprocess.CompletedProcess]
    steps: list[str]
    results: dict[str, subprocess.CompletedProcess] = field(default_factory=dict)

    def client(self, service: str):
        return _aws(service, self.url)

    def live(self) -> tuple[dict, dict, dict]:
        """(endpoint, its endpoint config, its model) as SageMaker describes them."""
        sm = self.client("sagemaker")
        endpoint = sm.describe_endpoint(EndpointName=ENDPOINT)
        config = sm.describe_endpoint_config(EndpointConfigName=endpoint["EndpointConfigName"])
        model = sm.describe_model(ModelName=config["ProductionVariants"][0]["ModelName"])
        return endpoint, config, model


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """Run the runbook's first-time targets (and each deploy target once more)."""
    work = tmp_path_factory.mktemp("deploy-targets")
    terraform = find_terraform(os.environ, work)
    checkout = work / "checkout"
    copy_config(REPO_ROOT / "packages" / "aws-infra", checkout / "packages" / "aws-infra")
    (checkout / ".venv").symlink_to(REPO_ROOT / ".venv")
    with run_moto_server(command=MOTO_SERVER, startup_timeout_s=60) as url:
        env = {**terraform.env(), **FAKE_CREDENTIALS, "AWS_ENDPOINT_URL": url,
               "TF_PLUGIN_DIR": str(terraform.plugin_dir),
               "STEREO_SPOT_DEPLOY_ENV_FILE": str(work / "deploy.env"),
               "STEREO_SPOT_IMAGE_TAG": "rel1"}

        def run(ref: str, **extra: str) -> subprocess.CompletedProcess:
            # stdin answers terraform apply's approval prompt, as the operator does.
            return run_target(checkout, REPO_ROOT, ref, {**env, **extra}, stdin="yes\n")

        deployed = Deployed(url, work / "deploy.env", run,
                            runbook_targets(RUNBOOK, "### First time, per stack"))
        results = deployed.results
        results["deploy before apply"] = run("aws-infra:sagemaker-deploy")
        _stack_prerequisites(url, checkout / "packages" / "aws-infra")
        for ref in deployed.steps:
            if ref in NEEDS_DOCKER:
                continue
            if ref == "aws-infra:sagemaker-build":
                results["deploy before build"] = run("aws-infra:sagemaker-deploy")
            results[ref] = _ok(run(ref), ref)
        results["deploy again"] = _ok(run("aws-infra:sagemaker-deploy"), "second deploy")
        results["build again"] = _ok(run("aws-infra:sagemaker-build"), "second build")
        yield deployed


def test_the_runbook_gives_the_deploy_targets_in_a_working_order(stack):
    wanted = ["aws-infra:init", "aws-infra:apply", "aws-infra:sagemaker-build",
              "aws-infra:sagemaker-deploy"]
    assert [s for s in stack.steps if s in wanted] == wanted
    assert set(stack.steps) - set(wanted) <= NEEDS_DOCKER


def test_deploy_targets_refuse_to_run_before_their_preconditions(stack):
    before_apply = stack.results["deploy before apply"]
    before_build = stack.results["deploy before build"]
    assert before_apply.returncode == 1
    assert "run `npx nx run aws-infra:apply`" in before_apply.stderr
    assert before_build.returncode == 1
    assert "stereo-spot-inference:rel1 is not in ECR" in before_build.stderr
    assert "sagemaker-build" in before_build.stderr
    assert "Traceback" not in before_apply.stderr + before_build.stderr


def test_apply_writes_the_env_file_the_deploy_targets_read(stack):
    env = read_env_file(stack.env_file)
    assert env["STEREO_SPOT_DEPLOY_SAGEMAKER_ENDPOINT"] == ENDPOINT
    assert env["STEREO_SPOT_DEPLOY_IMAGE_TAG"] == "rel1"
    role = stack.client("iam").get_role(RoleName="stereo-spot-sagemaker")["Role"]
    assert env["STEREO_SPOT_DEPLOY_SAGEMAKER_ROLE_ARN"] == role["Arn"]
    assert env["STEREO_SPOT_DEPLOY_APP_URL"].startswith("https://")


def test_sagemaker_build_has_codebuild_push_the_release_tag_of_this_commit(stack):
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    cb = stack.client("codebuild")
    ids = cb.list_builds_for_project(projectName="stereo-spot-inference-image")["ids"]
    assert len(ids) == 1, "the second sagemaker-build of the same tag must not build again"
    [build] = cb.batch_get_builds(ids=ids)["builds"]
    assert build["sourceVersion"] == head
    images = stack.client("ecr").describe_images(repositoryName="stereo-spot-inference")
    assert [i["imageTags"] for i in images["imageDetails"]] == [["rel1"]]
    assert "already in ECR" in stack.results["build again"]


def test_the_endpoint_serves_the_release_under_the_terraform_role(stack):
    endpoint, config, model = stack.live()
    env = read_env_file(stack.env_file)
    assert endpoint["EndpointStatus"] == "InService"
    assert model["PrimaryContainer"]["Image"] == f"{env['STEREO_SPOT_DEPLOY_REPO_INFERENCE']}:rel1"
    assert model["ExecutionRoleArn"] == env["STEREO_SPOT_DEPLOY_SAGEMAKER_ROLE_ARN"]
    container_env = model["PrimaryContainer"]["Environment"]
    assert container_env["STEREO_SPOT_METRICS"] == "cloudwatch"
    # Inside SageMaker the container runs `serve --sagemaker`: no shared secret.
    assert not any("SECRET" in k for k in container_env)
    output = config["AsyncInferenceConfig"]["OutputConfig"]
    bucket = env["STEREO_SPOT_OUTPUT_BUCKET"]
    assert output["S3OutputPath"] == f"s3://{bucket}/sagemaker-async/responses/"
    assert output["S3FailurePath"] == f"s3://{bucket}/sagemaker-async/failures/"
    assert "already serves" in stack.results["deploy again"]


def _allows(iam, role: str, action: str, resource: str) -> bool:
    for name in iam.list_role_policies(RoleName=role)["PolicyNames"]:
        document = iam.get_role_policy(RoleName=role, PolicyName=name)["PolicyDocument"]
        document = json.loads(document) if isinstance(document, str) else document
        for statement in document["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) \
                else [statement["Action"]]
            resources = statement["Resource"] if isinstance(statement["Resource"], list) \
                else [statement["Resource"]]
            if statement["Effect"] == "Allow" and action in actions and any(
                    fnmatch.fnmatchcase(resource, r) for r in resources):
                return True
    return False


def test_the_video_worker_is_wired_to_the_endpoint_and_may_read_its_answers(stack):
    _, config, _ = stack.live()
    ecs = stack.client("ecs")
    [service] = ecs.describe_services(cluster="stereo-spot", services=["video-worker"])["services"]
    task = ecs.describe_task_definition(taskDefinition=service["taskDefinition"])
    [container] = task["taskDefinition"]["containerDefinitions"]
    env = {e["name"]: e["value"] for e in container["environment"]}
    assert env["STEREO_SPOT_INFERENCE_BACKEND"] == "sagemaker"
    assert env["STEREO_SPOT_SAGEMAKER_ENDPOINT"] == ENDPOINT
    assert not any("SECRET" in e["name"] for e in container.get("secrets", []))
    role = task["taskDefinition"]["taskRoleArn"].rsplit("/", 1)[1]
    iam = stack.client("iam")
    output = config["AsyncInferenceConfig"]["OutputConfig"]
    for path in (output["S3OutputPath"], output["S3FailurePath"]):
        answer = "arn:aws:s3:::" + path.removeprefix("s3://") + "job-1.out"
        assert _allows(iam, role, "s3:GetObject", answer), (role, answer)
    assert not _allows(iam, role, "s3:GetObject", "arn:aws:s3:::stereo-spot-output/jobs/x")


def test_a_new_release_through_the_stereo_inference_targets_updates_the_endpoint(stack):
    before, before_config, _ = stack.live()
    models = len(stack.client("sagemaker").list_models()["Models"])
    _ok(stack.run("stereo-inference:sagemaker-build", STEREO_SPOT_IMAGE_TAG="rel2"), "build")
    _ok(stack.run("stereo-inference:sagemaker-deploy", STEREO_SPOT_IMAGE_TAG="rel2"), "deploy")
    after, config, model = stack.live()
    env = read_env_file(stack.env_file)
    assert after["EndpointConfigName"] != before["EndpointConfigName"]
    assert after["EndpointStatus"] == "InService"
    assert model["PrimaryContainer"]["Image"] == f"{env['STEREO_SPOT_DEPLOY_REPO_INFERENCE']}:rel2"
    assert model["ExecutionRoleArn"] == env["STEREO_SPOT_DEPLOY_SAGEMAKER_ROLE_ARN"]
    assert config["AsyncInferenceConfig"] == before_config["AsyncInferenceConfig"]
    assert len(stack.client("sagemaker").list_models()["Models"]) == models + 1
    again = _ok(stack.run("stereo-inference:sagemaker-deploy", STEREO_SPOT_IMAGE_TAG="rel2"), "")
    assert "already serves" in again
    assert stack.live()[0]["EndpointConfigName"] == after["EndpointConfigName"]

