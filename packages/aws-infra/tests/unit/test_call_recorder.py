"""The call recorder writes one line per AWS call a botocore session makes."""

from __future__ import annotations

import json

import botocore.session
import botocore.signers
from botocore.stub import Stubber

from stereo_spot_deploy.testing import call_recorder


def test_calls_and_presigned_urls_of_new_sessions_are_recorded(tmp_path, monkeypatch):
    log = tmp_path / "calls.jsonl"
    monkeypatch.setattr(botocore.session.Session, "__init__", botocore.session.Session.__init__)
    monkeypatch.setattr(botocore.signers, "generate_presigned_post",
                        botocore.signers.generate_presigned_post)
    assert call_recorder.install(str(log))
    s3 = botocore.session.Session().create_client(
        "s3", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b")
    with Stubber(s3) as stub:
        stub.add_response("head_object", {"ContentLength": 1}, {"Bucket": "b", "Key": "k"})
        s3.head_object(Bucket="b", Key="k")
    s3.generate_presigned_url("get_object", Params={"Bucket": "b", "Key": "jobs/1/final.mp4"})
    s3.generate_presigned_post("b", "input/1/source.mp4")
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(c["operation"], c["params"], c["presigned"]) for c in lines] == [
        ("HeadObject", {"Bucket": "b", "Key": "k"}, False),
        ("GetObject", {"Bucket": "b", "Key": "jobs/1/final.mp4"}, True),
        ("PostObject", {"Bucket": "b", "Key": "input/1/source.mp4"}, True),
    ]


def test_nothing_is_hooked_without_a_log_file(monkeypatch):
    monkeypatch.delenv(call_recorder.ENV_VAR, raising=False)
    assert call_recorder.install() is False


def test_a_line_still_being_written_is_read_next_time_not_as_an_error(tmp_path):
    """The harness reads the call logs while the services append to them."""
    from types import SimpleNamespace

    from stereo_spot_deploy.testing.deployment import Services

    log = tmp_path / "video-worker.jsonl"
    whole = json.dumps({"operation": "HeadObject", "params": {}, "presigned": False})
    log.write_text(whole + "\n" + whole[:30], encoding="utf-8")  # the second half-written
    harness = SimpleNamespace(calls_dir=tmp_path)
    assert [c["operation"] for c in Services.recorded_calls(harness)["video-worker"]] == [
        "HeadObject"]
    log.write_text(whole + "\n" + whole + "\n", encoding="utf-8")
    assert len(Services.recorded_calls(harness)["video-worker"]) == 2
