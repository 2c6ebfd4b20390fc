"""The deployment harness's rarer scenes, run under each service's own role
like the main scenario (tests/integration/test_deployment_harness.py): another person's tries
at a job, a chunking run taken over, a job cancelled mid-chunking, multipart
uploads that fail half-way."""

from __future__ import annotations

import re
import signal

import requests
from shared_types import keys
from shared_types.models import JobStatus

from stereo_spot_deploy.testing import deployment as d
from stereo_spot_deploy.testing import web_client as wc


def bob_tries(web: str, bob: str, alice_job: str) -> dict:
    """What Bob gets from Alice's job: each read and action, with his own valid
    CSRF token; and whether her job shows in his list."""
    session = requests.Session()
    own = wc.create_job(bob)["job_id"]
    found = re.search(r'name="csrf_token" value="([^"]+)"',
                      session.get(f"{bob}/jobs/{own}", timeout=30).text)
    assert found is not None, "Bob's own job page carries no CSRF token"
    token = found[1]
    tried = {path: session.get(f"{bob}{path}", timeout=30, allow_redirects=False).status_code
             for path in (f"/jobs/{alice_job}", f"/api/jobs/{alice_job}",
                          f"/api/jobs/{alice_job}/playback", f"/jobs/{alice_job}/play")}
    for action in ("cancel", "retry", "delete"):
        tried[action] = session.post(f"{bob}/jobs/{alice_job}/{action}", timeout=30,
                                     data={"csrf_token": token}, headers={"Origin": bob},
                                     allow_redirects=False).status_code
    tried["upload"] = session.post(f"{bob}/api/jobs/{alice_job}/uploads", timeout=30,
                                   json={"file_name": "x.mp4", "size": 10}).status_code
    listed = [j["job_id"] for j in session.get(f"{bob}/api/jobs", timeout=30).json()["items"]]
    alice_sees = [j["job_id"] for j in requests.get(f"{web}/api/jobs", timeout=30).json()["items"]]
    return {"tried": tried, "bob_lists": listed, "own": own, "alice_lists": alice_sees,
            "alice_job_after": wc.job(web, alice_job)["status"]}


def recorded(services: d.Services, role: str, operation: str, key_part: str) -> bool:
    calls = services.recorded_calls().get(role, [])
    return any(c["operation"] == operation and key_part in c["params"].get("Key", "")
               for c in calls)


def rare_paths(services: d.Services, stack: d.Stack, web: str, relay: str, clip: bytes,
                facts: dict) -> None:
    """Paths each service takes rarely, under its own role like the rest."""
    op, buckets = d.operator_backend(stack), stack.data_plane["buckets"]
    # The job list: the jobs in progress and the completed ones (one index each).
    facts["job_list"] = requests.get(f"{web}/jobs", timeout=30)
    # A chunking run taken over while the endpoint converts (the endpoint paused
    # until then): video-worker removes the segment it is answered for.
    services.signal("sagemaker-emulator", signal.SIGSTOP)
    try:
        stale_id = wc.create_job(web)["job_id"]
        wc.upload_in_parts(web, relay, stale_id, clip)
        d.wait_for(lambda: op.input_storage.exists(f"sagemaker-requests/{stale_id}/0.json"),
                   300, "the first inference request of the taken-over job", services.logs)
        # The first request can come before the chunker finished its run (it uploads
        # segment 0 first). Taken over then, its run would stop unfinished and the
        # upload's replayed event would chunk the job again (a fresh run, converted
        # to the end): nothing left for the janitor. The takeover this scenario
        # wants comes once the run is chunked; the endpoint paused, the job stays so.
        d.wait_for(lambda: op.jobs.get(stale_id).status == JobStatus.CHUNKING_COMPLETE,
                   300, "the taken-over job's first run to finish chunking", services.logs)
        d.operator_client(stack, "dynamodb").update_item(
            TableName=stack.data_plane["tables"]["jobs"], Key={"job_id": {"S": stale_id}},
            UpdateExpression="SET #run = #run + :one", ConditionExpression="#status = :chunked",
            ExpressionAttributeNames={"#run": "run", "#status": "status"},
            ExpressionAttributeValues={":one": {"N": "1"},
                                       ":chunked": {"S": JobStatus.CHUNKING_COMPLETE.value}})
    finally:
        services.signal("sagemaker-emulator", signal.SIGCONT)
    facts["stale_output_removed"] = d.wait_for(
        lambda: recorded(services, "video-worker", "DeleteObject", f"jobs/{stale_id}/segments/"),
        300, "video-worker to remove the taken-over run's output", services.logs)
    # The taken-over job now waits in chunking_complete for segments of its new
    # run that no chunker made: one janitor pass looks for them (HeadObject of
    # each idle segment) to re-send those that exist.
    facts["janitor_idle"] = services.run(
        "janitor-idle", "video-worker", [d.bin_path("video-worker"), "janitor"],
        {"STEREO_SPOT_STUCK_AFTER_S": "0.001"})
    facts["stale_id"] = stale_id
    # A job cancelled while media-worker chunked it: what the worker wrote after
    # the cancel is freed by the worker (one run of its discard path).
    gone_id = wc.create_job(web)["job_id"]
    facts["cancel"] = wc.press(web, gone_id, "cancel")
    written = [(op.input_storage, keys.streams_key(gone_id)),
               (op.input_storage, keys.segment_key(gone_id, 0, 1, "half-sbs")),
               (op.output_storage, keys.output_segment_key(gone_id, 0)),
               (op.output_storage, keys.thumbnail_key(gone_id, 0)),
               (op.output_storage, keys.final_key(gone_id)),
               (op.output_storage, keys.poster_key(gone_id))]
    for storage, key in written:
        storage.put_bytes(key, b"written after the cancel")
    facts["discard"] = services.run("discard-cancelled", "media-worker", [
        d.bin_path("python"), "-m", "stereo_spot_deploy.testing.role_paths",
        "discard-cancelled", gone_id], {})
    facts["left_after_discard"] = [key for storage, key in written if storage.exists(key)]
    facts["poster_key"] = keys.poster_key(gone_id)
    # Multipart uploads that fail half-way (files over 64 MiB): aborted by the
    # role that started them, leaving no parts behind.
    s3 = d.operator_client(stack, "s3")
    facts["failed_uploads"] = {}
    for role, bucket, key in (
            ("media-worker", buckets["input"], keys.segment_prefix(gone_id) + "big.mp4"),
            ("media-worker", buckets["output"], keys.final_key(gone_id)),
            ("sagemaker", buckets["output"], keys.output_segment_key(gone_id, 1))):
        done = services.run(f"failed-upload-{role}", role, [
            d.bin_path("python"), "-m", "stereo_spot_deploy.testing.role_paths",
            "failed-upload", bucket, key], {})
        left = s3.list_multipart_uploads(Bucket=bucket, Prefix=key).get("Uploads", [])
        facts["failed_uploads"][f"{role} {key}"] = (done, len(left))
