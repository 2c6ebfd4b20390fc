resource "aws_sqs_queue" "dlq" {
  for_each                  = toset(local.queue_names)
  name                      = "${var.name_prefix}-${each.key}-dlq"
  message_retention_seconds = local.data_plane.dlq_retention_s
  sqs_managed_sse_enabled   = true
}

resource "aws_sqs_queue" "work" {
  for_each                   = toset(local.queue_names)
  name                       = "${var.name_prefix}-${each.key}"
  visibility_timeout_seconds = local.data_plane.queues[each.key].visibility_s
  message_retention_seconds  = local.data_plane.message_retention_s
  receive_wait_time_seconds  = 20
  sqs_managed_sse_enabled    = true
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dlq[each.key].arn
    maxReceiveCount     = local.data_plane.max_receives
  })
  lifecycle {
    precondition {
      condition     = local.data_plane.dlq_retention_s > local.data_plane.message_retention_s
      error_message = "dlq_retention_s must be longer than message_retention_s, or dead letters expire before anyone looks."
    }
  }
}

# Only each DLQ's own source queue may dead-letter into it.
resource "aws_sqs_queue_redrive_allow_policy" "dlq" {
  for_each  = var.restrict_dlq_sources ? aws_sqs_queue.dlq : {}
  queue_url = each.value.id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.work[each.key].arn]
  })
}
