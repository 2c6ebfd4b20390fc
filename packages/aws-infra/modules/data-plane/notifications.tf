data "aws_caller_identity" "current" {}

locals {
  # One row per S3 -> SQS route: the same rows as
  # shared_types.notification_routes.NOTIFICATION_ROUTES (a structural test
  # checks they agree). Within a bucket the filters must not overlap (S3
  # rejects overlapping filters; the structural tests check it too).
  notification_routes = {
    chunking       = { bucket = "input", prefix = "input/", suffix = "/source.mp4" }
    video-worker   = { bucket = "input", prefix = "segments/", suffix = ".mp4" }
    segment-output = { bucket = "output", prefix = "jobs/", suffix = ".mp4" }
  }
}

resource "aws_sqs_queue_policy" "s3_events" {
  for_each  = local.notification_routes
  queue_url = aws_sqs_queue.work[each.key].id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Sid       = "AllowS3Events"
      Effect    = "Allow"
      Principal = { Service = "s3.amazonaws.com" }
      Action    = "sqs:SendMessage"
      Resource  = aws_sqs_queue.work[each.key].arn
      Condition = {
        ArnEquals    = { "aws:SourceArn" = aws_s3_bucket.this[each.value.bucket].arn }
        StringEquals = { "aws:SourceAccount" = data.aws_caller_identity.current.account_id }
      }
    }]
  })
}

resource "aws_s3_bucket_notification" "this" {
  for_each = aws_s3_bucket.this
  bucket   = each.value.id
  dynamic "queue" {
    for_each = { for k, v in local.notification_routes : k => v if v.bucket == each.key }
    content {
      id            = queue.key
      queue_arn     = aws_sqs_queue.work[queue.key].arn
      events        = ["s3:ObjectCreated:*"]
      filter_prefix = queue.value.prefix
      filter_suffix = queue.value.suffix
    }
  }
  depends_on = [aws_sqs_queue_policy.s3_events]
}
