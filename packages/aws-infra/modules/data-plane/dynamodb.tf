locals {
  tables = { for name in keys(local.table_specs) : name => "${var.name_prefix}-${name}" }
  # Every key attribute a table declares: hash keys are strings, range keys numbers.
  table_attributes = { for name, t in local.table_specs : name => merge(
    { (t.hash_key) = "S" },
    try({ (t.range_key) = "N" }, {}),
    [for i in values(try(t.indexes, {})) : { (i.hash_key) = "S", (i.range_key) = "N" }]...
  ) }
}

resource "aws_dynamodb_table" "jobs" {
  # checkov:skip=CKV_AWS_119:Encrypted at rest with the AWS-managed key; a CMK adds cost without a reader to restrict (docs/SECURITY.md).
  name         = local.tables["jobs"]
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = local.table_specs["jobs"].hash_key

  dynamic "attribute" {
    for_each = local.table_attributes["jobs"]
    content {
      name = attribute.key
      type = attribute.value
    }
  }

  dynamic "global_secondary_index" {
    for_each = local.table_specs["jobs"].indexes
    content {
      name            = global_secondary_index.key
      hash_key        = global_secondary_index.value.hash_key
      range_key       = global_secondary_index.value.range_key
      projection_type = "ALL"
    }
  }

  point_in_time_recovery {
    enabled = true
  }
  server_side_encryption {
    enabled = true
  }
}

# Per-segment tables: one row per (job_id, segment_index).
resource "aws_dynamodb_table" "segments" {
  # checkov:skip=CKV_AWS_119:Encrypted at rest with the AWS-managed key; a CMK adds cost without a reader to restrict (docs/SECURITY.md).
  for_each     = toset(["segment-completions", "segment-status"])
  name         = local.tables[each.key]
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = local.table_specs[each.key].hash_key
  range_key    = local.table_specs[each.key].range_key

  dynamic "attribute" {
    for_each = local.table_attributes[each.key]
    content {
      name = attribute.key
      type = attribute.value
    }
  }

  point_in_time_recovery {
    enabled = true
  }
  server_side_encryption {
    enabled = true
  }
}

resource "aws_dynamodb_table" "reassembly_triggered" {
  # checkov:skip=CKV_AWS_119:Encrypted at rest with the AWS-managed key; a CMK adds cost without a reader to restrict (docs/SECURITY.md).
  name         = local.tables["reassembly-triggered"]
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = local.table_specs["reassembly-triggered"].hash_key

  dynamic "attribute" {
    for_each = local.table_attributes["reassembly-triggered"]
    content {
      name = attribute.key
      type = attribute.value
    }
  }

  ttl {
    attribute_name = local.table_specs["reassembly-triggered"].ttl_attribute
    enabled        = true
  }

  point_in_time_recovery {
    enabled = true
  }
  server_side_encryption {
    enabled = true
  }
}
