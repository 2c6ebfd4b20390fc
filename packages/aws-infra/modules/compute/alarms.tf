resource "aws_sns_topic" "alarms" {
  name              = "${var.name_prefix}-alarms"
  kms_master_key_id = "alias/aws/sns"
}

resource "aws_sns_topic_subscription" "email" {
  count     = var.alarm_email == "" ? 0 : 1
  topic_arn = aws_sns_topic.alarms.arn
  protocol  = "email"
  endpoint  = var.alarm_email
}

# Any message in a dead-letter queue needs a person (docs/RUNBOOKS.md).
resource "aws_cloudwatch_metric_alarm" "dlq_depth" {
  for_each            = local.dp.dlq_names
  alarm_name          = "${var.name_prefix}-${each.key}-dlq-not-empty"
  alarm_description   = "Messages in ${each.value}: inspect and redrive (docs/RUNBOOKS.md#dead-letter-queues)."
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateNumberOfMessagesVisible"
  dimensions          = { QueueName = each.value }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  threshold           = 0
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = [aws_sns_topic.alarms.arn]
  ok_actions          = [aws_sns_topic.alarms.arn]
}

# Stuck jobs: segments are waiting or in flight at the video-worker, yet no
# converted segment has landed in the output bucket for stuck_job_minutes.
locals {
  # The stuck-job expression's inputs: its id => the SQS queue, metric and statistic.
  stuck_job_inputs = {
    pending   = { queue = "video-worker", metric = "ApproximateNumberOfMessagesVisible", stat = "Minimum" }
    inflight  = { queue = "video-worker", metric = "ApproximateNumberOfMessagesNotVisible", stat = "Minimum" }
    completed = { queue = "segment-output", metric = "NumberOfMessagesSent", stat = "Sum" }
  }
}

resource "aws_cloudwatch_metric_alarm" "stuck_jobs" {
  alarm_name          = "${var.name_prefix}-stuck-jobs"
  alarm_description   = "Segments pending but none completed for ${var.stuck_job_minutes} min (docs/RUNBOOKS.md#stuck-jobs)."
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = 1
  evaluation_periods  = 1
  treat_missing_data  = "notBreaching"
  alarm_actions       = [aws_sns_topic.alarms.arn]
  ok_actions          = [aws_sns_topic.alarms.arn]

  metric_query {
    id          = "stuck"
    expression  = "IF((pending + inflight) > 0 AND completed == 0, 1, 0)"
    label       = "Segments pending with none completing"
    return_data = true
  }
  dynamic "metric_query" {
    for_each = local.stuck_job_inputs
    content {
      id = metric_query.key
      metric {
        namespace   = "AWS/SQS"
        metric_name = metric_query.value.metric
        dimensions  = { QueueName = local.dp.queue_names[metric_query.value.queue] }
        period      = var.stuck_job_minutes * 60
        stat        = metric_query.value.stat
      }
    }
  }
}

# Old work in the pipeline's entry and exit queues (chunking, reassembly).
resource "aws_cloudwatch_metric_alarm" "oldest_message" {
  for_each            = toset(["chunking", "reassembly"])
  alarm_name          = "${var.name_prefix}-${each.key}-oldest-message"
  alarm_description   = "A ${each.key} message has waited over ${var.stuck_job_minutes} min (docs/RUNBOOKS.md#stuck-jobs)."
  namespace           = "AWS/SQS"
  metric_name         = "ApproximateAgeOfOldestMessage"
  dimensions          = { QueueName = local.dp.queue_names[each.key] }
  statistic           = "Maximum"
  period              = 300
  evaluation_periods  = 1
  threshold           = var.stuck_job_minutes * 60
  comparison_operator = "GreaterThanThreshold"
  treat_missing_data  = "notBreaching"
  alarm_actions       = [aws_sns_topic.alarms.arn]
}
