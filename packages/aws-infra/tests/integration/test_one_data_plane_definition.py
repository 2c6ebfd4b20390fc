"""Terraform's data-plane module and aws_adapters.provision read one definition.

Terraform's side is read with python-hcl2: the file its ``jsondecode(file(...))``
names must be shared-types' ``data_plane.json``, and every queue and table setting
must be an expression over it. provision.py's side is what it really creates on
moto: the queues and tables must carry exactly the values of that file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import boto3
import pytest
from aws_adapters.provision import create_data_plane, table_names
from aws_adapters.testing.moto_server import fake_aws_credentials
from shared_types.data_plane import DEFINITION
from shared_types.settings import BackendSettings

from stereo_spot_deploy.testing.hcl import TerraformDir, load_dir

MODULE = Path(__file__).resolve().parents[2] / "modules" / "data-plane"
FILE_CALL = re.compile(r'^\$\{jsondecode\(file\("\$\{path\.module\}/([^"]+)"\)\)\}$')


def terraform_definition(module: TerraformDir) -> Path:
    """The JSON file the module's ``local.data_plane`` decodes, resolved on disk."""
    found = FILE_CALL.match(module.locals["data_plane"])
    assert found, f"local.data_plane is not jsondecode(file(...)): {module.locals['data_plane']}"
    return (module.path / found.group(1)).resolve()


@pytest.fixture(scope="module")
def dp() -> TerraformDir:
    return load_dir(MODULE)


@pytest.fixture(scope="module")
def provisioned() -> dict:
    """What provision.py created on moto: queue attributes and table descriptions."""
    from moto import mock_aws

    with fake_aws_credentials(), mock_aws():
        settings = create_data_plane(BackendSettings(backend="aws"))
        sqs = boto3.client("sqs", region_name="us-east-1")
        ddb = boto3.client("dynamodb", region_name="us-east-1")
        queues = {name: sqs.get_queue_attributes(QueueUrl=getattr(settings, field),
                                                 AttributeNames=["All"])["Attributes"]
                  for name, field in (("chunking", "chunking_queue_url"),
                                      ("video-worker", "video_worker_queue_url"),
                                      ("segment-output", "segment_output_queue_url"),
                                      ("reassembly", "reassembly_queue_url"))}
        tables = {table: ddb.describe_table(TableName=name)["Table"]
                  for table, name in table_names(settings).items()}
        ttl = ddb.describe_time_to_live(TableName=settings.reassembly_table)
    return {"queues": queues, "tables": tables, "ttl": ttl["TimeToLiveDescription"]}


def test_terraform_decodes_the_file_the_code_reads(dp):
    assert terraform_definition(dp) == DEFINITION.resolve()
    assert DEFINITION.is_file()


def test_a_module_pointing_elsewhere_is_caught(dp, tmp_path):
    """Negative control: the path check fails for a module that reads another file."""
    (tmp_path / "config.tf").write_text(
        'locals {\n  data_plane = jsondecode(file("${path.module}/copy.json"))\n}\n')
    assert terraform_definition(load_dir(tmp_path)) != DEFINITION.resolve()


def test_every_queue_setting_in_terraform_comes_from_the_definition(dp):
    work = dp.resource("aws_sqs_queue", "work")
    assert work["visibility_timeout_seconds"] == "${local.data_plane.queues[each.key].visibility_s}"
    assert work["message_retention_seconds"] == "${local.data_plane.message_retention_s}"
    assert "maxReceiveCount = local.data_plane.max_receives" in work["redrive_policy"]
    assert dp.locals["queue_names"] == "${keys(local.data_plane.queues)}"
    assert dp.locals["table_specs"] == "${local.data_plane.tables}"
    # no variable can override what the definition says
    assert not {"max_receive_count", "visibility_timeout_s", "message_retention_s",
                "dlq_retention_s"} & set(dp.variables)


def test_every_table_setting_in_terraform_comes_from_the_definition(dp):
    for resource, table in (("jobs", '"jobs"'), ("segments", "each.key"),
                            ("reassembly_triggered", '"reassembly-triggered"')):
        body = dp.resource("aws_dynamodb_table", resource)
        assert body["hash_key"] == f"${{local.table_specs[{table}].hash_key}}"
        dynamic = {name: block["for_each"] for d in body["dynamic"] for name, block in d.items()}
        assert dynamic["attribute"] == f"${{local.table_attributes[{table}]}}"
    jobs = dp.resource("aws_dynamodb_table", "jobs")
    gsi = {name: block for d in jobs["dynamic"] for name, block in d.items()}
    assert gsi["global_secondary_index"]["for_each"] == '${local.table_specs["jobs"].indexes}'
    trig = dp.resource("aws_dynamodb_table", "reassembly_triggered")
    assert trig["ttl"][0]["attribute_name"] == (
        '${local.table_specs["reassembly-triggered"].ttl_attribute}')


def test_provision_creates_the_queues_the_definition_describes(provisioned):
    definition = json.loads(DEFINITION.read_text())
    assert set(provisioned["queues"]) == set(definition["queues"])
    for name, attrs in provisioned["queues"].items():
        assert int(attrs["VisibilityTimeout"]) == definition["queues"][name]["visibility_s"]
        assert int(attrs["MessageRetentionPeriod"]) == definition["message_retention_s"]
        redrive = json.loads(attrs["RedrivePolicy"])
        assert int(redrive["maxReceiveCount"]) == definition["max_receives"]
    # the value the two used to disagree on (60 s here, 120 s in Terraform)
    assert int(provisioned["queues"]["segment-output"]["VisibilityTimeout"]) == 120


def test_provision_creates_the_tables_the_definition_describes(provisioned):
    definition = json.loads(DEFINITION.read_text())["tables"]
    assert set(provisioned["tables"]) == set(definition)
    for name, table in provisioned["tables"].items():
        spec = definition[name]
        keys = {k["KeyType"]: k["AttributeName"] for k in table["KeySchema"]}
        assert keys == {"HASH": spec["hash_key"],
                        **({"RANGE": spec["range_key"]} if "range_key" in spec else {})}
        indexes = {i["IndexName"]: [k["AttributeName"] for k in i["KeySchema"]]
                   for i in table.get("GlobalSecondaryIndexes", [])}
        assert indexes == {n: [i["hash_key"], i["range_key"]]
                           for n, i in spec.get("indexes", {}).items()}
    assert provisioned["ttl"]["AttributeName"] == definition["reassembly-triggered"][
        "ttl_attribute"]
