"""StereoSpot as deployed, on moto with IAM enforcement on.

The data plane and the IAM roles are the ones Terraform deploys
(modules/data-plane + modules/task-roles, applied to moto_server). web-ui,
media-worker, video-worker (SageMaker backend, janitor included), the
inference container and a SageMaker async emulator each run as their own
process with sts:AssumeRole credentials of their own role. Every AWS call each
makes is recorded and evaluated against that role's policy with
@cloud-copilot/iam-simulate: nothing denied, no statement unused, and removing
any one statement makes some recorded call fail (the negative control).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from aws_adapters.testing.moto_server import fake_aws_credentials, run_moto_server
from stereo_media.testing.rich_media import make_rich_video
from web_ui.fake_alb import FakeAlb

from stereo_spot_deploy.testing import deployment as d
from stereo_spot_deploy.testing import web_client as wc
from stereo_spot_deploy.testing.alb_proxy import alb_proxy
from stereo_spot_deploy.testing.iam_evaluator import (
    EvaluatorMissingError,
    evaluate,
    without_statement,
)
from stereo_spot_deploy.testing.iam_requests import iam_requests
from stereo_spot_deploy.testing.moto_root import MOTO_SERVER
from stereo_spot_deploy.testing.presign_relay import presign_relay, via_relay
from stereo_spot_deploy.testing.rare_paths import bob_tries, rare_paths
from stereo_spot_deploy.testing.tools import find_terraform, skip_or_fail

pytestmark = pytest.mark.timeout(900)
ROLES = ("web-ui", "media-worker", "video-worker", "sagemaker")
ALB = FakeAlb()  # the load balancer's sign-in, stood in for


def _free_port() -> int:
    from shared_types.testing.serving import free_port

    return free_port()


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[d.Stack]:
    reuse = os.environ.get("STEREO_SPOT_HARNESS_STACK")
    if reuse:  # a stack applied earlier (see docs/TESTING.md): skip the apply
        yield d.Stack(**json.loads(Path(reuse).read_text()))
        return
    workdir = tmp_path_factory.mktemp("harness")
    terraform = find_terraform(os.environ, workdir)
    with fake_aws_credentials(), run_moto_server(command=MOTO_SERVER) as url:
        stack = d.apply_stack(terraform, workdir, url)
        d.enforce_iam(url)
        yield stack


def _start_services(services: d.Services, stack: d.Stack) -> dict[str, str]:
    container_port, emulator_port, web_port = _free_port(), _free_port(), _free_port()
    fast = {"STEREO_SPOT_SQS_WAIT_S": "1", "STEREO_SPOT_VISIBILITY_S": "60"}
    container = f"http://127.0.0.1:{container_port}"
    services.start("inference", "sagemaker", [
        d.bin_path("stereo-inference"), "serve", "--sagemaker", "--host", "127.0.0.1",
        "--port", str(container_port)],
        {"STEREO_SPOT_METRICS": "cloudwatch", "STEREO_SPOT_THREADS": "1"},
        ready_url=f"{container}/ping")
    output_path, failure_path = d.endpoint_paths(stack.data_plane["buckets"]["output"])
    emulator = f"http://127.0.0.1:{emulator_port}"
    services.start("sagemaker-emulator", "sagemaker", [
        d.bin_path("python"), "-m", "stereo_spot_deploy.testing.sagemaker_emulator",
        "--port", str(emulator_port), "--container", container, "--endpoint", d.ENDPOINT_NAME,
        "--output-path", output_path, "--failure-path", failure_path,
        "--aws-endpoint-url", stack.url], {}, ready_url=f"{emulator}/ping")
    web = f"http://127.0.0.1:{web_port}"
    # Behind the load balancer's OIDC sign-in: web-ui believes only identities its
    # stand-in signs (its public key served as AWS serves the ALB's, by key id).
    keys = services.workdir / "alb-keys"
    keys.mkdir(exist_ok=True)
    (keys / ALB.kid).write_bytes(ALB.public_key_pem(ALB.kid))
    services.start("web-ui", "web-ui", [d.bin_path("web-ui")], {
        "STEREO_SPOT_HOST": "127.0.0.1", "STEREO_SPOT_PORT": str(web_port),
        "STEREO_SPOT_SERVE_STORAGE": "false", "STEREO_SPOT_MAX_UPLOAD_BYTES": str(2_000_000),
        "STEREO_SPOT_IDENTITY": "alb", "STEREO_SPOT_ALB_ARN": ALB.signer_arn,
        "STEREO_SPOT_ALB_REGION": "us-east-1",
        "STEREO_SPOT_ALB_KEYS_URL": keys.as_uri() + "/{kid}"},
        ready_url=f"{web}/healthz")
    services.start("media-worker", "media-worker", [d.bin_path("media-worker")], {
        **fast, "STEREO_SPOT_SEGMENT_SECONDS": "1", "STEREO_SPOT_LEASE_S": "60",
        "STEREO_SPOT_WORK_DIR": str(services.workdir / "media"),
        # moto cannot authorise presigned requests while it enforces IAM (see
        # presign_relay): previews download their source here instead of Range reads
        "STEREO_SPOT_SOURCE_URLS": "false"})
    services.start("video-worker", "video-worker", [d.bin_path("video-worker")], {
        **fast, "STEREO_SPOT_INFERENCE_BACKEND": "sagemaker",
        "STEREO_SPOT_SAGEMAKER_ENDPOINT": d.ENDPOINT_NAME,
        "STEREO_SPOT_SAGEMAKER_RUNTIME_ENDPOINT_URL": emulator,
        "STEREO_SPOT_INFERENCE_POLL_S": "0.5", "STEREO_SPOT_JANITOR_INTERVAL_S": "3600"})
    return {"web": web}


def _give_up_segment(stack: d.Stack, op, job_id: str, index: int) -> None:
    """As the operator: segment ``index`` of a finished job failed for good (its
    completion gone, its status failed), the job back in ``chunking_complete``,
    for the janitor to fail."""
    from shared_types.models import JobStatus, JobUpdate

    # No port forgets one segment's rows: the operator's own DynamoDB client does.
    ddb = d.operator_client(stack, "dynamodb")
    for table in ("segment-completions", "segment-status"):
        ddb.delete_item(TableName=stack.data_plane["tables"][table],
                        Key={"job_id": {"S": job_id}, "segment_index": {"N": str(index)}})
    run = op.jobs.get(job_id).run  # the status row speaks for the job's chunking run
    op.segment_status.mark_pending(job_id, index, run)
    op.segment_status.mark_failed(job_id, index, "harness: inference gave up", run)
    op.jobs.update(job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE),
                   expected_status=[JobStatus.COMPLETED])


def _segment_tags(stack: d.Stack, job_id: str) -> dict[str, str]:
    """The tags of the job's first converted segment (of its current chunking
    run), read as the operator."""
    from shared_types.keys import output_segment_key

    s3 = d.operator_client(stack, "s3")
    run = d.operator_backend(stack).jobs.get(job_id).run
    tagging = s3.get_object_tagging(Bucket=stack.data_plane["buckets"]["output"],
                                    Key=output_segment_key(job_id, 0, run))
    return {t["Key"]: t["Value"] for t in tagging["TagSet"]}


def _scenario(services: d.Services, stack: d.Stack, workdir: Path, facts: dict) -> None:
    from shared_types.keys import source_key
    from shared_types.models import JobError, JobStatus, JobUpdate, SegmentCompletion

    unsigned = _start_services(services, stack)["web"]
    op = d.operator_backend(stack)
    # a camera clip: audio kept aside in streams.mkv and telemetry in data.mp4
    clip = make_rich_video(workdir / "clip.mp4", seconds=2.0, size=(96, 64), fps=12, cues=(),
                           chapters=(), telemetry=True).path.read_bytes()
    # Two people signed in by the load balancer: Alice drives the scenario, Bob
    # tries her jobs; a caller that reaches web-ui without the ALB is refused.
    with presign_relay(stack.url, services.credentials) as relay, \
            alb_proxy(unsigned, lambda: ALB.headers("alice")) as web, \
            alb_proxy(unsigned, lambda: ALB.headers("bob")) as bob:
        facts["unsigned"] = requests.get(f"{unsigned}/api/jobs", timeout=30).status_code
        forger = FakeAlb(ALB.signer_arn)
        forger.kid = ALB.kid  # names the load balancer's key, signs with its own
        facts["forged"] = requests.get(f"{unsigned}/api/jobs", timeout=30, headers={
            "x-amzn-oidc-data": forger.token("alice")}).status_code
        # A conversion: multipart upload, chunking, SageMaker async inference, reassembly.
        job_id = wc.create_job(web)["job_id"]
        wc.upload_in_parts(web, relay, job_id, clip)
        facts["job"] = wc.wait_status(web, job_id, {"completed", "failed"}, services)
        play = requests.get(f"{web}/api/jobs/{job_id}/playback", timeout=30)
        facts["playback_status"] = play.status_code
        if play.status_code == 200:
            links = play.json()
            facts["stream"] = requests.get(via_relay(links["url"], relay),
                                           headers={"Range": "bytes=0-63"}, timeout=30)
            facts["download"] = requests.get(via_relay(links["download_url"], relay), timeout=30)
        # Preview before converting all: a held job's strip, a clip cut from its
        # source and converted, then the whole video with the chosen settings.
        held = requests.post(f"{web}/api/jobs", json={"mode": "half-sbs", "preview": True},
                             timeout=30).json()["job_id"]
        wc.upload_in_parts(web, relay, held, clip)
        d.wait_for(lambda: wc.job(web, held)["thumbnails"] is not None, 300,
                   "the held job's thumbnail strip", services.logs)
        chosen = {"divergence": 3.0, "convergence": 0.3}
        preview = requests.post(f"{web}/api/jobs/{held}/preview",
                                json={"start_s": 0.5, **chosen}, timeout=30)
        assert preview.status_code == 201, preview.text
        facts["preview_clip"] = wc.wait_status(web, preview.json()["job_id"],
                                             {"completed", "failed"}, services)
        convert = requests.post(f"{web}/api/jobs/{held}/convert", json=chosen, timeout=30)
        assert convert.status_code == 200, convert.text
        facts["preview_whole"] = wc.wait_status(web, held, {"completed", "failed"}, services)
        facts["tags_completed"] = _segment_tags(stack, job_id)
        # A segment that gave up: one janitor pass (video-worker role) fails the
        # job, releasing its segments; Retry from the web UI keeps them and
        # re-converts only that segment.
        total = facts["job"]["progress"]["segments_total"]
        _give_up_segment(stack, op, job_id, total - 1)
        facts["janitor_gave_up"] = services.run(
            "janitor-gave-up", "video-worker", [d.bin_path("video-worker"), "janitor"],
            {"STEREO_SPOT_STUCK_AFTER_S": "0.001"})
        facts["tags_failed"] = _segment_tags(stack, job_id)
        facts["segment_retry"] = wc.press(web, job_id, "retry")
        facts["tags_retried"] = _segment_tags(stack, job_id)
        facts["segment_retried_job"] = wc.wait_status(web, job_id, {"completed"}, services)
        facts["tags_recompleted"] = _segment_tags(stack, job_id)
        # A job that failed with every segment done (its reassembly gave up before
        # it completed): Retry triggers reassembly for the new epoch, updating the
        # row the first trigger left, and media-worker reassembles it again.
        d.operator_client(stack, "dynamodb").update_item(
            TableName=stack.data_plane["tables"]["reassembly-triggered"],
            Key={"job_id": {"S": job_id}}, UpdateExpression="SET lease_expires_at = :zero "
            "REMOVE completed_at", ExpressionAttributeValues={":zero": {"N": "0"}})
        op.jobs.update(job_id, JobUpdate(status=JobStatus.FAILED, error=JobError(
            code="transient", message="harness: reassembly gave up", stage="reassembly")),
            expected_status=[JobStatus.COMPLETED])
        facts["reassembly_retry"] = wc.press(web, job_id, "retry")
        facts["reassembly_retried_job"] = wc.wait_status(web, job_id, {"completed"}, services)
        # A job that fails for good (not a video; one POST form upload): Retry is
        # refused with the reason (it would fail the same way), then Delete.
        bad_id = wc.form_upload(web, relay, b"not a video at all" * 100)
        facts["bad_job"] = wc.wait_status(web, bad_id, {"failed"}, services)
        facts["retry"] = wc.press(web, bad_id, "retry")
        facts["retried_job"] = wc.wait_status(web, bad_id, {"failed"}, services)
        facts["delete"] = wc.press(web, bad_id, "delete")
        facts["deleted"] = requests.get(f"{web}/api/jobs/{bad_id}", timeout=30).status_code
        # Poison messages: dead-lettered by each consumer, then redriven by the operator.
        for queue in ("chunking", "video-worker"):
            op.queue(queue).send('{"poison": true}')
        for queue in ("chunking", "video-worker"):
            d.wait_for(lambda q=queue: op.queue(q).stats().dead_letters >= 1, 120,
                       f"the poison message in the {queue} DLQ", services.logs)
        facts["redrive"] = services.run("redrive", d.OPERATOR,
                                        [d.bin_path("stereo-spot"), "dlq", "--redrive"], {})
        # A job stuck in chunking (its media-worker paused after the upload): one
        # janitor pass, as the video-worker role, re-sends its source event.
        services.signal("media-worker", signal.SIGSTOP)
        try:
            stuck_id = wc.form_upload(web, relay, clip)
            op.jobs.update(stuck_id, JobUpdate(status=JobStatus.CHUNKING_IN_PROGRESS),
                           expected_status=[JobStatus.CREATED])
            facts["janitor"] = services.run(
                "janitor", "video-worker", [d.bin_path("video-worker"), "janitor"],
                {"STEREO_SPOT_STUCK_AFTER_S": "0.001"})
            facts["stuck_id"] = stuck_id
        finally:
            services.signal("media-worker", signal.SIGCONT)
        # media-worker's own trigger: the last segment completed before chunking did
        # (here: the completions exist before the upload, video-worker paused).
        services.signal("video-worker", signal.SIGSTOP)
        try:
            race_id = wc.create_job(web)["job_id"]
            run = op.jobs.get(race_id).run + 1  # the run the chunker's claim will take
            for c in op.completions.list(job_id):
                op.completions.put(SegmentCompletion(
                    job_id=race_id, segment_index=c.segment_index, output_key=c.output_key,
                    total_segments=c.total_segments, run=run))
            wc.upload_in_parts(web, relay, race_id, clip)
            facts["race_job"] = wc.wait_status(
                web, race_id, {"reassembling", "completed", "failed"}, services)
        finally:
            services.signal("video-worker", signal.SIGCONT)
        rare_paths(services, stack, web, relay, clip, facts)
        # Last, so the rare paths' timing is what it was without them: Bob tries
        # Alice's first job, and a deleted job's upload form is used late.
        facts["bob"] = bob_tries(web, bob, job_id)
        # A deleted job's upload form used late: S3 stores it (it cannot refuse a
        # signed form), and media-worker, finding no job, removes it.
        late = wc.create_job(web)
        facts["late_delete"] = wc.press(web, late["job_id"], "delete")
        facts["late_upload"] = requests.post(
            via_relay(late["upload_url"], relay).split("?")[0], data=late["upload_fields"],
            files={"file": ("clip.mp4", clip)}, timeout=60).status_code
        facts["late_removed"] = d.wait_for(
            lambda: not op.input_storage.exists(source_key(late["job_id"])), 300,
            "media-worker to remove a deleted job's late upload", services.logs)


@pytest.fixture(scope="module")
def e2e(stack) -> Iterator[dict]:
    """Run the scenario once; yield what it observed and the recorded calls."""
    # Not pytest's tmp_path: its retention may delete the logs of a failed run.
    workdir = Path(tempfile.mkdtemp(prefix="stereo-spot-harness-"))
    print(f"service logs and recorded calls: {workdir}")
    services = d.Services(stack, workdir)
    facts: dict = {}
    with d.running(services):
        try:
            _scenario(services, stack, workdir, facts)
        except Exception as exc:
            raise AssertionError(f"{exc}\n{services.logs()}") from exc
        facts["logs"] = services.logs()
    facts["calls"] = services.recorded_calls()
    yield facts
    if not os.environ.get("STEREO_SPOT_HARNESS_KEEP"):
        shutil.rmtree(workdir, ignore_errors=True)


def test_a_job_converts_end_to_end_under_least_privilege(e2e):
    job = e2e["job"]
    assert job["status"] == "completed", (job, e2e["logs"])
    assert e2e["playback_status"] == 200
    assert e2e["stream"].status_code == 206 and len(e2e["stream"].content) == 64
    assert e2e["download"].status_code == 200
    assert e2e["download"].content[4:8] == b"ftyp"


def test_two_signed_in_people_see_and_act_on_only_their_own_jobs(e2e):
    bob = e2e["bob"]
    assert set(bob["tried"].values()) == {404}, bob["tried"]
    assert e2e["job"]["job_id"] not in bob["bob_lists"] and bob["own"] in bob["bob_lists"]
    assert bob["own"] not in bob["alice_lists"] and e2e["job"]["job_id"] in bob["alice_lists"]
    assert bob["alice_job_after"] == "completed"
    # web-ui reached around the load balancer, or with an identity it did not sign
    assert (e2e["unsigned"], e2e["forged"]) == (401, 401)


def test_a_late_upload_to_a_deleted_job_is_removed(e2e):
    assert e2e["late_delete"].status_code == 303
    assert e2e["late_upload"] == 204  # S3 cannot refuse a signed form ...
    assert e2e["late_removed"]        # ... so media-worker removes what it stored


def test_a_preview_then_the_whole_video_under_least_privilege(e2e):
    clip, whole = e2e["preview_clip"], e2e["preview_whole"]
    assert clip["status"] == "completed", clip
    assert whole["status"] == "completed", whole
    assert (whole["params"]["divergence"], whole["params"]["convergence"]) == (3.0, 0.3)


def test_segments_expire_only_once_their_job_ended_and_retry_keeps_them(e2e):
    from aws_adapters.s3_storage import KEPT_TAG_VALUE, RETENTION_TAG_KEY, RETENTION_TAG_VALUE

    janitor = e2e["janitor_gave_up"]
    assert janitor.returncode == 0, janitor.stderr[-3000:]
    assert json.loads(janitor.stdout.strip().splitlines()[-1])["failed"] == [e2e["job"]["job_id"]]
    expirable = {RETENTION_TAG_KEY: RETENTION_TAG_VALUE}
    assert e2e["tags_completed"] == expirable      # media-worker, at completion
    assert e2e["tags_failed"] == expirable         # the janitor, failing it
    assert e2e["tags_retried"] == {RETENTION_TAG_KEY: KEPT_TAG_VALUE}  # web-ui's Retry
    assert e2e["tags_recompleted"] == expirable


def test_a_job_that_failed_for_its_input_is_not_retried_from_the_web_ui(e2e):
    assert e2e["bad_job"]["error"]["code"] == "invalid_media", e2e["bad_job"]
    assert e2e["retry"].status_code == 409, e2e["retry"].text[:500]
    assert "would fail the same way" in e2e["retry"].text
    assert e2e["retried_job"]["status"] == "failed"


def test_one_janitor_pass_runs_under_the_video_worker_role(e2e):
    janitor = e2e["janitor"]
    assert janitor.returncode == 0, janitor.stderr[-3000:]
    report = json.loads(janitor.stdout.strip().splitlines()[-1])
    assert set(report) >= {"chunking_recovered", "chunking_resent", "failed"}


def test_retry_of_a_job_whose_segments_were_all_done_reassembles_it_again(e2e):
    assert e2e["reassembly_retry"].status_code == 303, e2e["reassembly_retry"].text[:500]
    assert e2e["reassembly_retried_job"]["status"] == "completed"


def test_the_job_list_shows_jobs_in_progress_and_completed(e2e):
    assert e2e["job_list"].status_code == 200, e2e["job_list"].text[:500]


def test_a_taken_over_runs_output_is_removed_by_video_worker(e2e):
    assert e2e["stale_output_removed"]


def test_a_janitor_pass_looks_for_the_idle_segments_of_a_job(e2e):
    janitor = e2e["janitor_idle"]
    assert janitor.returncode == 0, janitor.stderr[-3000:]
    report = json.loads(janitor.stdout.strip().splitlines()[-1])
    assert e2e["stale_id"] in report["segments_resent"], report


def test_media_worker_frees_what_it_wrote_for_a_cancelled_job(e2e):
    assert e2e["cancel"].status_code == 303, e2e["cancel"].text[:500]
    discard = e2e["discard"]
    assert discard.returncode == 0, discard.stderr[-3000:]
    assert json.loads(discard.stdout.strip().splitlines()[-1])["discarded"] is True
    assert e2e["left_after_discard"] == [e2e["poster_key"]]


def test_a_failed_multipart_upload_is_aborted_by_the_role_that_started_it(e2e):
    for what, (done, left) in e2e["failed_uploads"].items():
        assert done.returncode == 0, (what, done.stderr[-3000:])
        assert json.loads(done.stdout.strip().splitlines()[-1])["failed"] is True, what
        assert left == 0, f"{what}: {left} multipart upload(s) left open"


def test_the_container_emits_conversion_metrics(e2e):
    ops = [c["operation"] for c in e2e["calls"].get("sagemaker", [])]
    assert "PutMetricData" in ops


def _requests_by_role(e2e) -> dict:
    out = {}
    for role in ROLES:
        calls = e2e["calls"].get(role, [])
        out[role] = [r for c in calls for r in iam_requests(
            c, account=d.ACCOUNT, default_region=d.REGION)]
    return out


@pytest.fixture(scope="module")
def verdicts(e2e, stack, request):
    by_role = _requests_by_role(e2e)
    try:
        result = evaluate({r: (stack.policies[r], by_role[r]) for r in ROLES}, account=d.ACCOUNT)
    except EvaluatorMissingError as exc:
        skip_or_fail(str(exc), os.environ)
    report = request.config.stash.setdefault(d.REPORT, [])
    for role in ROLES:
        calls = len(e2e["calls"].get(role, []))
        line = f"{role}: {calls} call(s) recorded, {result[role].summary()}"
        print(line)
        report.append(line)
    return result


def test_every_recorded_call_is_allowed_and_every_statement_used(verdicts):
    problems = []
    for verdict in verdicts.values():
        problems += [f"{verdict.role} DENIED {r.operation} -> {r.action} on {r.resource} "
                     f"{r.context or ''}: {why}" for r, why in verdict.denied]
        problems += [f"{verdict.role} UNUSED statement {sid}" for sid in verdict.unused]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("role", ROLES)
def test_negative_control_each_statement_is_needed(role, e2e, stack, verdicts, request):
    policy = stack.policies[role]
    requests_ = _requests_by_role(e2e)[role]
    variants = {sid: (without_statement(policy, sid), requests_)
                for sid in verdicts[role].statement_ids}
    result = evaluate(variants, account=d.ACCOUNT)
    survivors = [sid for sid, v in result.items() if not v.denied]
    for sid, verdict in result.items():
        denied = ", ".join(sorted({r.operation for r, _ in verdict.denied}))
        line = f"{role} without {sid}: {len(verdict.denied)} denied ({denied})"
        print(line)
        request.config.stash.setdefault(d.REPORT, []).append(line)
    assert not survivors, f"{role}: removing {survivors} denies nothing"
