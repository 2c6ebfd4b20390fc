locals {
  buckets = {
    input  = coalesce(var.input_bucket_name, "${var.name_prefix}-input")
    output = coalesce(var.output_bucket_name, "${var.name_prefix}-output")
  }
  # What the browser does with each bucket: PUT the upload, GET (Range) the video.
  cors_methods = {
    input  = ["PUT", "POST"]
    output = ["GET", "HEAD"]
  }
}

resource "aws_s3_bucket" "this" {
  # checkov:skip=CKV2_AWS_61:Lifecycle rules are aws_s3_bucket_lifecycle_configuration.this below (checkov cannot link for_each buckets to them).
  # checkov:skip=CKV_AWS_18:Access logging would need a third bucket per stack; CloudTrail data events are the opt-in audit trail (docs/SECURITY.md).
  # checkov:skip=CKV_AWS_144:Single-region by design; every object is derived from the user's upload and can be re-created.
  # checkov:skip=CKV_AWS_145:SSE-S3 (AES256) at rest; a CMK would add cost and a key policy S3 event delivery to SQS must satisfy (docs/SECURITY.md).
  # checkov:skip=CKV_AWS_21:Keys are deterministic and overwritten by design (idempotent retries); versions would multiply storage of multi-GB video.
  # checkov:skip=CKV2_AWS_62:Event notifications are configured in notifications.tf (aws_s3_bucket_notification), which checkov does not link.
  for_each      = local.buckets
  bucket        = each.value
  force_destroy = var.force_destroy_buckets
}

resource "aws_s3_bucket_public_access_block" "this" {
  for_each                = aws_s3_bucket.this
  bucket                  = each.value.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_ownership_controls" "this" {
  for_each = aws_s3_bucket.this
  bucket   = each.value.id
  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "this" {
  for_each = aws_s3_bucket.this
  bucket   = each.value.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_policy" "tls_only" {
  for_each = var.enforce_tls ? aws_s3_bucket.this : {}
  bucket   = each.value.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "DenyInsecureTransport"
      Effect    = "Deny"
      Principal = "*"
      Action    = "s3:*"
      Resource  = [each.value.arn, "${each.value.arn}/*"]
      Condition = { Bool = { "aws:SecureTransport" = "false" } }
    }]
  })
  depends_on = [aws_s3_bucket_public_access_block.this]
}

resource "aws_s3_bucket_cors_configuration" "this" {
  for_each = aws_s3_bucket.this
  bucket   = each.value.id
  cors_rule {
    allowed_origins = var.cors_allowed_origins
    allowed_methods = local.cors_methods[each.key]
    allowed_headers = ["*"]
    expose_headers  = ["ETag", "Content-Length", "Content-Range", "Accept-Ranges"]
    max_age_seconds = 3600
  }
}

# A job's segments (input segments/{id}/, output jobs/{id}/segments/) expire
# only once the job has ended: the step that ends it tags them (segment_tag
# below; shared_types.segment_retention), and Retry re-tags them as kept. A tag
# also matches "jobs/*/segments/", which a lifecycle prefix (no wildcard) cannot;
# final.mp4 is never tagged. Expiry counts days from the object's creation, so
# a segment of a job that ran longer than segment_retention_days goes at the
# next lifecycle run after its job ended.
resource "aws_s3_bucket_lifecycle_configuration" "this" {
  for_each = aws_s3_bucket.this
  bucket   = each.value.id
  rule {
    id     = "expire-${each.key}-segments"
    status = "Enabled"
    filter {
      tag {
        key   = local.segment_tag_key
        value = local.segment_tag_value
      }
    }
    expiration {
      days = var.segment_retention_days
    }
  }
  # SageMaker's async requests and answers, written to the output bucket only.
  dynamic "rule" {
    for_each = each.key == "output" ? ["sagemaker-async/"] : []
    content {
      id     = "expire-sagemaker-async-io"
      status = "Enabled"
      filter {
        prefix = rule.value
      }
      expiration {
        days = var.segment_retention_days
      }
    }
  }
  rule {
    id     = "abort-incomplete-uploads"
    status = "Enabled"
    filter {}
    abort_incomplete_multipart_upload {
      days_after_initiation = 1
    }
  }
  # The backstop for sources nothing deleted (an upload form used after its job
  # was deleted and the chunker missed it): every object under input/ expires.
  dynamic "rule" {
    for_each = each.key == "input" ? ["input/"] : []
    content {
      id     = "expire-sources"
      status = "Enabled"
      filter {
        prefix = rule.value
      }
      expiration {
        days = var.source_retention_days
      }
    }
  }
}

moved {
  from = aws_s3_bucket_lifecycle_configuration.input
  to   = aws_s3_bucket_lifecycle_configuration.this["input"]
}
moved {
  from = aws_s3_bucket_lifecycle_configuration.output
  to   = aws_s3_bucket_lifecycle_configuration.this["output"]
}

locals {
  segment_tag_key   = "stereo-spot-retention"
  segment_tag_value = "expirable"
  segment_tag       = { (local.segment_tag_key) = local.segment_tag_value }
}
