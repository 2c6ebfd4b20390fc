"""Apply modules/data-plane with the real terraform + AWS provider against
moto_server, then drive it through the project's own adapters: an upload to
input/ arrives on the chunking queue as an S3 event the workers can parse."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from aws_adapters import build_backend
from aws_adapters.testing.moto_server import fake_aws_credentials, run_moto_server
from shared_types.events import parse_s3_event_body
from shared_types.keys import final_key, output_segment_key, segment_key, source_key
from shared_types.ports import Backend, Queue
from shared_types.settings import BackendSettings

from stereo_spot_deploy.testing.moto_root import MOTO_SERVER, moto_root
from stereo_spot_deploy.testing.tools import find_terraform


@pytest.fixture(scope="module")
def applied(tmp_path_factory) -> Iterator[tuple[str, dict, dict]]:
    """(moto URL, data-plane outputs, ``terraform show -json`` state) after a
    real `terraform apply` of the deployed defaults."""
    workdir = tmp_path_factory.mktemp("data-plane-root")
    terraform = find_terraform(os.environ, workdir)
    with fake_aws_credentials(), run_moto_server(command=MOTO_SERVER) as url:
        (workdir / "main.tf").write_text(moto_root(url, workdir))
        terraform.init_offline(workdir)
        done = terraform.run(workdir, "apply", "-auto-approve", "-parallelism=30", timeout=280)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr
        out = terraform.run(workdir, "output", "-json")
        state = terraform.run(workdir, "show", "-json")
        yield url, json.loads(out.stdout)["data_plane"]["value"], json.loads(state.stdout)


@pytest.fixture(scope="module")
def backend(applied) -> Backend:
    url, outputs, _ = applied
    settings = BackendSettings(
        backend="aws", aws_endpoint_url=url, aws_region="us-east-1",
        input_bucket=outputs["buckets"]["input"], output_bucket=outputs["buckets"]["output"],
        jobs_table=outputs["tables"]["jobs"],
        segment_completions_table=outputs["tables"]["segment-completions"],
        segment_status_table=outputs["tables"]["segment-status"],
        reassembly_table=outputs["tables"]["reassembly-triggered"],
        chunking_queue_url=outputs["queue_urls"]["chunking"],
        video_worker_queue_url=outputs["queue_urls"]["video-worker"],
        segment_output_queue_url=outputs["queue_urls"]["segment-output"],
        reassembly_queue_url=outputs["queue_urls"]["reassembly"],
    )
    with fake_aws_credentials():
        yield build_backend(settings)


def _event_keys(queue: Queue) -> list[tuple[str, str]]:
    """(bucket, key) of every object event waiting on ``queue``; acknowledges them."""
    found = []
    for _ in range(5):
        messages = queue.receive(max_messages=10, wait_s=1, visibility_s=30)
        for message in messages:
            found += [(r.bucket, r.key) for r in parse_s3_event_body(message.body)]
            queue.delete(message)
        if found:
            return found
    return found


def test_outputs_name_what_the_app_expects_by_default(applied):
    _, outputs, _ = applied
    defaults = BackendSettings()
    assert outputs["buckets"] == {"input": defaults.input_bucket, "output": defaults.output_bucket}
    assert outputs["tables"]["jobs"] == defaults.jobs_table
    assert set(outputs["queue_urls"]) == {"chunking", "video-worker", "segment-output",
                                          "reassembly"}
    assert outputs["queue_urls"]["chunking"].endswith("/stereo-spot-chunking")
    assert outputs["dlq_urls"]["chunking"].endswith("/stereo-spot-chunking-dlq")


def test_an_upload_to_input_arrives_on_the_chunking_queue(backend):
    key = source_key("job-moto-1")
    backend.input_storage.put_bytes(key, b"\x00\x00\x00\x18ftypmp42", content_type="video/mp4")
    assert _event_keys(backend.chunking_queue) == [(backend.input_storage.bucket, key)]
    assert _event_keys(backend.video_queue) == []


def test_segments_and_outputs_route_to_their_own_queues(backend):
    seg = segment_key("job-moto-2", 0, 2, "sbs")
    backend.input_storage.put_bytes(seg, b"segment")
    assert _event_keys(backend.video_queue) == [(backend.input_storage.bucket, seg)]

    out = output_segment_key("job-moto-2", 0)
    backend.output_storage.put_bytes(out, b"converted")
    assert _event_keys(backend.segment_output_queue) == [(backend.output_storage.bucket, out)]
    assert _event_keys(backend.chunking_queue) == []


def test_final_video_reaches_segment_output_but_nothing_else(backend):
    final = final_key("job-moto-3")
    backend.output_storage.put_bytes(final, b"final")
    assert _event_keys(backend.segment_output_queue) == [(backend.output_storage.bucket, final)]
    assert _event_keys(backend.video_queue) == []


def test_a_dead_lettered_message_lands_in_the_terraform_dlq_and_redrives(backend):
    queue = backend.reassembly_queue
    queue.send('{"job_id": "job-moto-4"}')
    [message] = queue.receive(max_messages=1, wait_s=1, visibility_s=30)
    queue.dead_letter(message, "test: poison message")
    assert [m.body for m in queue.dead_letters()] == ['{"job_id": "job-moto-4"}']
    assert queue.redrive() == 1
    [again] = queue.receive(max_messages=1, wait_s=1, visibility_s=30)
    assert again.body == '{"job_id": "job-moto-4"}'
    queue.delete(again)


def test_the_jobs_table_serves_the_status_indexes(backend):
    from shared_types.models import Job, JobStatus, OutputMode

    backend.jobs.create(Job(job_id="job-moto-5", mode=OutputMode.SBS, status=JobStatus.CREATED))
    page = backend.jobs.list_by_status(JobStatus.CREATED)
    assert [j.job_id for j in page.items] == ["job-moto-5"]


def _resources(state: dict, kind: str) -> list[dict]:
    """Values of every ``kind`` resource in a ``terraform show -json`` state."""
    modules = [state["values"]["root_module"]]
    found = []
    while modules:
        module = modules.pop()
        found += [r["values"] for r in module.get("resources", []) if r["type"] == kind]
        modules += module.get("child_modules", [])
    return found


def test_each_dlq_admits_only_its_own_source_queue_as_terraform_set_it(applied):
    """moto stores RedriveAllowPolicy (moto_patches) but cannot refuse a queue
    it does not allow, so this reads back what Terraform set, and checks it
    names each DLQ's own work queue and no other."""
    import boto3

    url, outputs, state = applied
    applied_policies = {r["queue_url"]: json.loads(r["redrive_allow_policy"])
                        for r in _resources(state, "aws_sqs_queue_redrive_allow_policy")}
    assert set(applied_policies) == set(outputs["dlq_urls"].values())
    sqs = boto3.client("sqs", endpoint_url=url, region_name="us-east-1",
                       aws_access_key_id="testing", aws_secret_access_key="testing")
    for name, dlq_url in outputs["dlq_urls"].items():
        attributes = sqs.get_queue_attributes(
            QueueUrl=dlq_url, AttributeNames=["RedriveAllowPolicy"])["Attributes"]
        stored = json.loads(attributes["RedriveAllowPolicy"])
        assert stored == applied_policies[dlq_url]
        assert stored == {"redrivePermission": "byQueue",
                          "sourceQueueArns": [outputs["queue_arns"][name]]}
        others = set(outputs["queue_arns"].values()) - {outputs["queue_arns"][name]}
        assert not others & set(stored["sourceQueueArns"])


def test_terraform_applied_the_data_plane_definition(applied):
    from shared_types.data_plane import DATA_PLANE

    _, outputs, state = applied
    by_url = {q["url"]: q for q in _resources(state, "aws_sqs_queue")}
    for name, url in outputs["queue_urls"].items():
        queue = by_url[url]
        assert queue["visibility_timeout_seconds"] == DATA_PLANE.queues[name].visibility_s
        assert json.loads(queue["redrive_policy"])["maxReceiveCount"] == DATA_PLANE.max_receives
