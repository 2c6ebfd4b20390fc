locals {
  tables = {
    jobs                 = "${var.name_prefix}-jobs"
    segment-completions  = "${var.name_prefix}-segment-completions"
    segment-status       = "${var.name_prefix}-segment-status"
    reassembly-triggered = "${var.name_prefix}-reassembly-triggered"
  }
}

resource "aws_dynamodb_table" "jobs" {
  # checkov:skip=CKV_AWS_119:Encrypted at rest with the AWS-managed key; a CMK adds cost without a reader to restrict (docs/SECURITY.md).
  name         = local.tables["jobs"]
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "job_id"

  attribute {
    name = "job_id"
    type = "S"
  }
  attribute {
    name = "status"
    type = "S"
  }
  attribute {
    name = "created_at"
    type = "N"
  }
  attribute {
    name = "completed_at"
    type = "N"
  }

  global_secondary_index {
    name            = "status-created_at"
    hash_key        = "status"
    range_key       = "created_at"
    projection_type = "ALL"
  }
  global_secondary_index {
    name            = "status-completed_at"
    hash_key        = "status"
    range_key       = "completed_at"
    projection_type = "ALL"
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
  hash_key     = "job_id"
  range_key    = "segment_index"

  attribute {
    name = "job_id"
    type = "S"
  }
  attribute {
    name = "segment_index"
    type = "N"
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
  hash_key     = "job_id"

  attribute {
    name = "job_id"
    type = "S"
  }

  ttl {
    attribute_name = var.reassembly_ttl_attribute
    enabled        = true
  }

  point_in_time_recovery {
    enabled = true
  }
  server_side_encryption {
    enabled = true
  }
}
