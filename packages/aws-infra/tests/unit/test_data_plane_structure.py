"""Structural rules of modules/data-plane, read with python-hcl2."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from aws_adapters.dynamo_jobs import COMPLETED_INDEX, CREATED_INDEX
from shared_types.data_plane import DATA_PLANE
from shared_types.keys import final_key, output_segment_key, segment_key, source_key
from shared_types.notification_routes import NOTIFICATION_ROUTES
from shared_types.ports import QUEUE_NAMES
from shared_types.settings import BackendSettings

from stereo_spot_deploy.testing.hcl import TerraformDir, load_dir

MODULE = Path(__file__).resolve().parents[2] / "modules" / "data-plane"


@pytest.fixture(scope="module")
def dp() -> TerraformDir:
    return load_dir(MODULE)


def _prefix_default(dp: TerraformDir, template: str) -> str:
    return template.replace("${var.name_prefix}", dp.default("name_prefix"))


def test_queue_set_is_the_pipelines_queue_set(dp):
    assert dp.locals["queue_names"] == "${keys(local.data_plane.queues)}"
    assert sorted(DATA_PLANE.queues) == sorted(QUEUE_NAMES)


def test_every_work_queue_dead_letters_into_its_own_dlq_after_max_receives(dp):
    work = dp.resource("aws_sqs_queue", "work")
    dlq = dp.resource("aws_sqs_queue", "dlq")
    assert work["for_each"] == dlq["for_each"] == "${toset(local.queue_names)}"
    assert "deadLetterTargetArn = aws_sqs_queue.dlq[each.key].arn" in work["redrive_policy"]
    assert "maxReceiveCount = local.data_plane.max_receives" in work["redrive_policy"]
    assert 3 <= DATA_PLANE.max_receives <= 10


def test_dlqs_keep_messages_longer_than_their_sources(dp):
    assert DATA_PLANE.dlq_retention_s > DATA_PLANE.message_retention_s
    assert DATA_PLANE.dlq_retention_s == 14 * 24 * 3600
    dlq = dp.resource("aws_sqs_queue", "dlq")
    assert dlq["message_retention_seconds"] == "${local.data_plane.dlq_retention_s}"


def test_queue_names_match_what_the_adapters_look_up(dp):
    names = {_prefix_default(dp, dp.resource("aws_sqs_queue", "work")["name"]).replace(
        "${each.key}", q) for q in QUEUE_NAMES}
    assert names == {f"stereo-spot-{q}" for q in QUEUE_NAMES}


def test_visibility_timeouts_cover_each_queue_and_the_slow_ones_are_long(dp):
    vis = {name: q.visibility_s for name, q in DATA_PLANE.queues.items()}
    assert set(vis) == set(QUEUE_NAMES)
    assert vis["chunking"] >= 600
    assert vis["reassembly"] >= 600
    assert vis["segment-output"] < vis["video-worker"]


def _overlaps(a: dict, b: dict) -> bool:
    prefixes = a["prefix"].startswith(b["prefix"]) or b["prefix"].startswith(a["prefix"])
    suffixes = a["suffix"].endswith(b["suffix"]) or b["suffix"].endswith(a["suffix"])
    return prefixes and suffixes


def test_notification_filters_do_not_overlap_within_a_bucket(dp):
    routes = list(dp.locals["notification_routes"].items())
    for i, (name_a, a) in enumerate(routes):
        for name_b, b in routes[i + 1:]:
            if a["bucket"] == b["bucket"]:
                assert not _overlaps(a, b), f"{name_a} and {name_b} overlap"


def test_overlap_check_would_catch_a_nested_prefix():
    assert _overlaps({"prefix": "input/", "suffix": ".mp4"}, {"prefix": "in", "suffix": ""})


def test_each_route_matches_exactly_the_keys_its_consumer_parses(dp):
    routes = dp.locals["notification_routes"]

    def matching(bucket: str, key: str) -> list[str]:
        return [n for n, r in routes.items() if r["bucket"] == bucket
                and key.startswith(r["prefix"]) and key.endswith(r["suffix"])]

    assert matching("input", source_key("job-1")) == ["chunking"]
    assert matching("input", segment_key("job-1", 0, 3, "sbs")) == ["video-worker"]
    assert matching("output", output_segment_key("job-1", 2)) == ["segment-output"]
    # final.mp4 also reaches segment-output; its parser ignores it (DESIGN.md).
    assert matching("output", final_key("job-1")) == ["segment-output"]


def test_routes_are_the_pipelines_one_definition_of_notification_routes(dp):
    terraform = {name: (r["bucket"], r["prefix"], r["suffix"])
                 for name, r in dp.locals["notification_routes"].items()}
    shared = {r.queue: (r.bucket, r.prefix, r.suffix) for r in NOTIFICATION_ROUTES}
    assert terraform == shared


def test_queues_accept_events_only_from_their_bucket_in_this_account(dp):
    policy = dp.resource("aws_sqs_queue_policy", "s3_events")["policy"]
    assert "aws:SourceArn" in policy
    assert "aws:SourceAccount" in policy
    assert 'Service = "s3.amazonaws.com"' in policy


def test_no_bucket_can_be_public(dp):
    block = dp.resource("aws_s3_bucket_public_access_block", "this")
    assert block["for_each"] == "${aws_s3_bucket.this}"
    for flag in ("block_public_acls", "block_public_policy", "ignore_public_acls",
                 "restrict_public_buckets"):
        assert block[flag] is True
    assert "acl" not in dp.resource("aws_s3_bucket", "this")
    assert "public-read" not in dp.text
    owner = dp.resource("aws_s3_bucket_ownership_controls", "this")
    assert owner["rule"][0]["object_ownership"] == "BucketOwnerEnforced"


def test_cors_names_the_app_origin_and_refuses_a_wildcard(dp):
    cors = dp.resource("aws_s3_bucket_cors_configuration", "this")["cors_rule"][0]
    assert cors["allowed_origins"] == "${var.cors_allowed_origins}"
    condition = dp.variables["cors_allowed_origins"]["validation"][0]["condition"]
    assert '!contains(var.cors_allowed_origins, "*")' in condition
    assert dp.locals["cors_methods"] == {"input": ["PUT", "POST"], "output": ["GET", "HEAD"]}


def test_intermediate_segments_expire_after_a_day_and_finals_never(dp):
    assert dp.default("segment_retention_days") == 1
    lifecycle = dp.resource("aws_s3_bucket_lifecycle_configuration", "this")
    assert lifecycle["for_each"] == "${aws_s3_bucket.this}"  # input and output alike
    rules = {r["id"]: r for r in lifecycle["rule"]}
    assert set(rules) == {"expire-${each.key}-segments", "abort-incomplete-uploads"}
    seg = rules["expire-${each.key}-segments"]
    assert seg["expiration"][0]["days"] == "${var.segment_retention_days}"
    tag = seg["filter"][0]["tag"][0]
    assert (tag["key"], tag["value"]) == ("${local.segment_tag_key}", "${local.segment_tag_value}")
    # Segments expire by the tag set when their job ends, never by a prefix:
    # final.mp4 lives under jobs/.
    assert "prefix" not in seg["filter"][0]
    sagemaker, sources = lifecycle["dynamic"]
    assert sagemaker["rule"]["for_each"] == '${each.key == "output" ? ["sagemaker-async/"] : []}'
    assert sagemaker["rule"]["content"][0]["filter"][0]["prefix"] == "${rule.value}"
    # the backstop for sources nothing deleted: the input bucket's input/ only
    assert sources["rule"]["for_each"] == '${each.key == "input" ? ["input/"] : []}'
    assert sources["rule"]["content"][0]["id"] == "expire-sources"
    assert sources["rule"]["content"][0]["expiration"][0]["days"] == "${var.source_retention_days}"
    assert segment_key("j", 0, 1, "sbs").startswith("segments/")


def test_the_lifecycle_tag_is_the_one_the_code_sets_when_a_job_ends(dp):
    from aws_adapters.s3_storage import KEPT_TAG_VALUE, RETENTION_TAG_KEY, RETENTION_TAG_VALUE

    assert dp.locals["segment_tag_key"] == RETENTION_TAG_KEY
    assert dp.locals["segment_tag_value"] == RETENTION_TAG_VALUE != KEPT_TAG_VALUE


def test_tables_keys_and_indexes_match_the_design(dp):
    s = BackendSettings()
    assert dp.locals["tables"] == (
        '${{for name in keys(local.table_specs) : name => "${var.name_prefix}-${name}"}}')
    tables = {k: f"{dp.default('name_prefix')}-{k}" for k in DATA_PLANE.tables}
    assert tables == {
        "jobs": s.jobs_table, "segment-completions": s.segment_completions_table,
        "segment-status": s.segment_status_table, "reassembly-triggered": s.reassembly_table,
    }
    jobs = DATA_PLANE.tables["jobs"]
    assert jobs.hash_key == "job_id"
    assert {n: (i.hash_key, i.range_key) for n, i in jobs.indexes.items()} == {
        CREATED_INDEX: ("status", "created_at"), COMPLETED_INDEX: ("status", "completed_at")}
    for name in ("segment-completions", "segment-status"):
        spec = DATA_PLANE.tables[name]
        assert (spec.hash_key, spec.range_key) == ("job_id", "segment_index")
    assert DATA_PLANE.tables["reassembly-triggered"].ttl_attribute == "ttl"


def test_default_bucket_names_match_the_app_defaults(dp):
    s = BackendSettings()
    buckets = {k: re.sub(r'^\$\{coalesce\(var\.\w+, "(.*)"\)\}$', r"\1", v)
               for k, v in dp.locals["buckets"].items()}
    assert {k: _prefix_default(dp, v) for k, v in buckets.items()} == {
        "input": s.input_bucket, "output": s.output_bucket}
