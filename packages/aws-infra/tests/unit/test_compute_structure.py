"""Structural rules of modules/compute and the root module, read with python-hcl2."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest
from shared_types.settings import BackendSettings

from stereo_spot_deploy.testing.hcl import TerraformDir, load_dir

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ("web-ui", "media-worker", "video-worker")


@pytest.fixture(scope="module")
def compute() -> TerraformDir:
    return load_dir(ROOT / "modules" / "compute")


@pytest.fixture(scope="module")
def root() -> TerraformDir:
    return load_dir(ROOT)


@pytest.fixture(scope="module")
def roles() -> TerraformDir:
    return load_dir(ROOT / "modules" / "task-roles")


def _statements(roles: TerraformDir, service: str) -> list[dict]:
    if service == "video-worker":
        return (roles.locals["video_worker_statements"]
                + roles.locals["video_worker_sagemaker_statements"])
    if service == "sagemaker":
        return roles.locals["sagemaker_statements"]
    return roles.locals["statements"][service]


def _resources(statement: dict) -> list[str]:
    res = statement["Resource"]
    return [res] if isinstance(res, str) else res


def test_every_role_names_its_resources(roles):
    for service in (*SERVICES, "sagemaker"):
        for statement in _statements(roles, service):
            if statement["Action"] == ["cloudwatch:PutMetricData"]:
                # No resource-level permissions: limited to one namespace instead.
                assert statement["Resource"] == ["*"] and statement["Condition"]
                continue
            for resource in _resources(statement):
                assert resource != "*", f"{service}: wildcard resource"
                assert re.match(r"^\$\{local\.(table|queue|dlq|input|output|endpoint_arn"
                                r"|by_created|by_completed)\b",
                                resource), f"{service}: {resource} is not a named resource"
                # Wildcards only inside an object-key pattern of our buckets (an
                # index is named: no table/index/*).
                if "*" in resource:
                    assert resource.startswith(("${local.input}/", "${local.output}/")), resource


def test_the_index_arns_name_the_indexes_the_jobs_table_has(roles):
    from aws_adapters.dynamo_jobs import COMPLETED_INDEX, CREATED_INDEX
    from shared_types.data_plane import DATA_PLANE

    # the data-plane module makes the jobs table's indexes from this definition
    defined = set(DATA_PLANE.tables["jobs"].indexes)
    named = {roles.locals[name].rsplit("/index/", 1)[1]
             for name in ("by_created", "by_completed")}
    assert named == defined == {CREATED_INDEX, COMPLETED_INDEX}


def test_every_statement_has_a_unique_sid_the_harness_can_name(roles):
    for service in (*SERVICES, "sagemaker"):
        sids = [s["Sid"] for s in _statements(roles, service)]
        assert all(re.fullmatch(r"[A-Za-z0-9]+", sid) for sid in sids), sids
        assert len(sids) == len(set(sids)), f"{service}: duplicate Sid in {sids}"


def test_video_worker_gets_sagemaker_rights_only_with_sagemaker(roles):
    assert roles.locals["statements"]["video-worker"] == (
        "${concat(local.video_worker_statements, var.use_sagemaker ? "
        "local.video_worker_sagemaker_statements : [])}")
    invoke = [s for s in roles.locals["video_worker_sagemaker_statements"]
              if s["Action"] == ["sagemaker:InvokeEndpointAsync"]]
    assert invoke and invoke[0]["Resource"] == ["${local.endpoint_arn}"]


def test_no_role_gets_a_service_wide_action(roles, compute):
    assert not re.search(r'"(s3|sqs|dynamodb|sagemaker|ecr|logs|cloudwatch):\*"',
                         roles.text + compute.text)


def test_each_worker_consumes_only_its_own_queues(roles):
    def queues(service):
        return {m for s in _statements(roles, service) for r in _resources(s)
                for m in re.findall(r'queue\["([\w-]+)"\]', r)}

    assert queues("media-worker") == {"chunking", "reassembly"}
    assert queues("video-worker") == {"video-worker", "segment-output", "reassembly", "chunking"}


def test_compute_takes_its_roles_from_the_roles_module(compute):
    ecs = compute.resource("aws_ecs_task_definition", "service")
    assert ecs["task_role_arn"] == "${module.roles.task_role_arns[each.key]}"
    model = compute.resource("aws_sagemaker_model", "this")
    assert model["execution_role_arn"] == "${module.roles.sagemaker_role_arn}"
    env = model["primary_container"][0]["environment"]
    assert env["STEREO_SPOT_METRICS"] == "cloudwatch"


def test_task_env_names_are_settings_the_app_reads(compute):
    fields = set(BackendSettings.model_fields)
    env = compute.locals["backend_env"]
    assert env["STEREO_SPOT_BACKEND"] == "aws"
    for name in env:
        assert name.startswith("STEREO_SPOT_")
        assert name.removeprefix("STEREO_SPOT_").lower() in fields, name
    expected = {f"STEREO_SPOT_{f.upper()}" for f in fields
                if f.endswith(("_queue_url", "_table", "_bucket"))} | {"STEREO_SPOT_AWS_REGION"}
    assert expected <= set(env)


def test_video_worker_gets_the_inference_switch_and_web_ui_the_eta(compute):
    text = compute.text
    for name in ("STEREO_SPOT_INFERENCE_BACKEND", "STEREO_SPOT_INFERENCE_MAX_IN_FLIGHT",
                 "STEREO_SPOT_SAGEMAKER_ENDPOINT", "STEREO_SPOT_INFERENCE_HTTP_URL",
                 "STEREO_SPOT_ETA_SECONDS_PER_MB"):
        assert name in text
    condition = compute.variables["inference_backend"]["validation"][0]["condition"]
    assert '["sagemaker", "http"]' in condition
    for rtype in ("aws_sagemaker_model", "aws_sagemaker_endpoint_configuration",
                  "aws_sagemaker_endpoint"):
        assert compute.resource(rtype, "this")["count"] == "${local.use_sagemaker ? 1 : 0}"
    config = compute.resource("aws_sagemaker_endpoint_configuration", "this")
    assert config["async_inference_config"]


def test_every_dlq_has_an_alarm_and_there_is_a_stuck_job_alarm(compute):
    alarm = compute.resource("aws_cloudwatch_metric_alarm", "dlq_depth")
    assert alarm["for_each"] == "${local.dp.dlq_names}"
    assert alarm["threshold"] == 0
    assert alarm["comparison_operator"] == "GreaterThanThreshold"
    stuck = compute.resource("aws_cloudwatch_metric_alarm", "stuck_jobs")
    assert any("completed == 0" in q.get("expression", "") for q in stuck["metric_query"])
    # the expression's inputs: work waiting or in flight at the video-worker, none landing
    inputs = {k: (v["queue"], v["metric"]) for k, v in compute.locals["stuck_job_inputs"].items()}
    assert inputs == {
        "pending": ("video-worker", "ApproximateNumberOfMessagesVisible"),
        "inflight": ("video-worker", "ApproximateNumberOfMessagesNotVisible"),
        "completed": ("segment-output", "NumberOfMessagesSent")}
    [query] = stuck["dynamic"][0]["metric_query"]["content"]
    assert stuck["dynamic"][0]["metric_query"]["for_each"] == "${local.stuck_job_inputs}"
    assert query["id"] == "${metric_query.key}"


def test_workers_scale_on_their_queues_up_to_the_guardrail(compute):
    assert compute.locals["scaled_workers"] == {
        "media-worker": ["chunking", "reassembly"],
        "video-worker": ["video-worker", "segment-output"],
    }
    target = compute.resource("aws_appautoscaling_target", "worker")
    assert target["max_capacity"] == "${var.max_tasks[each.key]}"
    assert target["min_capacity"] == "${local.min_tasks[each.key]}"
    assert set(compute.default("max_tasks")) == set(SERVICES)


def test_the_janitors_host_never_scales_to_zero(compute):
    # every non-terminal job's sweep runs in video-worker; the jobs it rescues
    # (a reassembler dead on its last receive, a lost trigger send) leave its
    # queues empty, so its idle alarm would otherwise take the last task away
    assert compute.locals["min_tasks"] == {"media-worker": 0, "video-worker": 1}
    service = compute.resource("aws_ecs_service", "service")
    assert service["desired_count"] == '${each.key == "web-ui" ? 1 : local.min_tasks[each.key]}'


def test_tasks_run_in_private_subnets_behind_an_sse_friendly_alb(compute):
    service = compute.resource("aws_ecs_service", "service")
    net = service["network_configuration"][0]
    assert net["assign_public_ip"] is False
    assert net["subnets"] == "${aws_subnet.private[*].id}"
    assert compute.default("alb_idle_timeout_s") >= 300
    endpoints = compute.resource("aws_vpc_endpoint", "gateway")
    assert "s3" in endpoints["for_each"]
    assert endpoints["vpc_endpoint_type"] == "Gateway"
    health = compute.resource("aws_lb_target_group", "web_ui")["health_check"][0]
    assert health["path"] == "/healthz"


def test_every_image_has_an_immutable_ecr_repository(compute):
    assert compute.locals["repositories"] == "${concat(local.services, [\"inference\"])}"
    repo = compute.resource("aws_ecr_repository", "this")
    assert repo["image_tag_mutability"] == "IMMUTABLE"


def test_root_tags_everything_and_pins_the_provider(root):
    tags = root.providers[0]["aws"]["default_tags"][0]["tags"]
    assert tags["project"] == "stereo-spot"
    for directory in (ROOT, ROOT / "modules" / "compute", ROOT / "modules" / "data-plane",
                      ROOT.parent / "aws-infra-setup"):
        tf = load_dir(directory)
        aws = tf.terraform[0]["required_providers"][0]["aws"]
        assert aws == {"source": "hashicorp/aws", "version": "~> 5.100"}, directory


def test_modules_are_local_only(root):
    for name, module in root.modules.items():
        assert module["source"].startswith("./modules/"), name


def test_root_outputs_every_queue_table_bucket_and_the_app_url(root):
    for name in ("app_url", "queue_urls", "dlq_urls", "tables", "buckets", "deploy_env"):
        assert name in root.outputs
    deploy_env = root.outputs["deploy_env"]["value"]
    for service in SERVICES:
        suffix = service.upper().replace("-", "_")
        assert f"STEREO_SPOT_DEPLOY_REPO_{suffix}" in deploy_env
        assert f"STEREO_SPOT_DEPLOY_SERVICE_{suffix}" in deploy_env


def test_apply_does_not_undo_a_sagemaker_deploy(compute):
    # sagemaker-deploy moves the endpoint to configs Terraform never made; an
    # apply that reverted it would roll the endpoint back to terraform's image.
    endpoint = compute.resource("aws_sagemaker_endpoint", "this")
    assert endpoint["lifecycle"][0]["ignore_changes"] == ["endpoint_config_name"]


def _listable(statements: list[dict]) -> dict[str, list[str]]:
    """Per bucket local (input, output): the s3:prefix patterns the role may list."""
    out: dict[str, list[str]] = {"input": [], "output": []}
    for statement in statements:
        if statement["Action"] == ["s3:ListBucket"]:
            prefixes = statement["Condition"]["StringLike"]["s3:prefix"]
            for resource in _resources(statement):
                out[resource.removeprefix("${local.").removesuffix("}")] += prefixes
    return out


def test_every_object_a_worker_reads_it_may_also_list_so_a_missing_one_reads_as_missing(roles):
    # S3 answers a read of a missing key with 403 where the caller may not list
    # it; the adapter then lists exactly that key (aws_adapters.s3_storage)
    for service in SERVICES:
        statements = _statements(roles, service)
        listable = _listable(statements)
        for statement in statements:
            if "s3:GetObject" not in statement["Action"]:
                continue
            for resource in _resources(statement):
                bucket, _, key = resource.partition("}/")
                bucket = bucket.removeprefix("${local.")
                assert any(fnmatch.fnmatchcase(key, p) for p in listable[bucket]), (
                    f"{service} reads {resource} but may not list it")


def test_codebuild_has_no_default_source(root, compute):
    """#52 finding 11: the privileged build cloned a third-party repository by
    default. The source is now the operator's to name, https only."""
    for tf in (root, compute):
        assert "default" not in tf.variables["inference_source_repository"]
    assert "https://" in str(root.variables["inference_source_repository"]["validation"])
    source = compute.resource("aws_codebuild_project", "inference")["source"][0]
    assert source["location"] == "${var.inference_source_repository}"


def test_a_public_alb_needs_a_certificate_and_http_redirects(root, compute):
    conditions = [v["condition"] for v in root.variables["allowed_ingress_cidrs"]["validation"]]
    assert any("certificate_arn" in c for c in conditions)
    alb = compute.resource("aws_lb", "this")
    preconditions = [p["condition"] for p in alb["lifecycle"][0]["precondition"]]
    assert any("certificate_arn" in c and "public_alb" in c for c in preconditions)
    action = compute.resource("aws_lb_listener", "http")["default_action"]
    assert 'certificate_arn == "" ? "forward" : "redirect"' in str(action)
    assert "HTTP_301" in str(action) and "HTTPS" in str(action)
