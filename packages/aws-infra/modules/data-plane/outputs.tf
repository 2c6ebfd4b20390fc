output "buckets" {
  description = "Bucket name by role (input, output)."
  value       = { for k, b in aws_s3_bucket.this : k => b.bucket }
}

output "bucket_arns" {
  description = "Bucket ARN by role (input, output)."
  value       = { for k, b in aws_s3_bucket.this : k => b.arn }
}

output "queue_urls" {
  description = "Work queue URL by name."
  value       = { for k, q in aws_sqs_queue.work : k => q.id }
}

output "queue_arns" {
  description = "Work queue ARN by name."
  value       = { for k, q in aws_sqs_queue.work : k => q.arn }
}

output "queue_names" {
  description = "Work queue name by logical name (for CloudWatch metrics)."
  value       = { for k, q in aws_sqs_queue.work : k => q.name }
}

output "dlq_urls" {
  description = "Dead-letter queue URL by work queue name."
  value       = { for k, q in aws_sqs_queue.dlq : k => q.id }
}

output "dlq_arns" {
  description = "Dead-letter queue ARN by work queue name."
  value       = { for k, q in aws_sqs_queue.dlq : k => q.arn }
}

output "dlq_names" {
  description = "Dead-letter queue name by work queue name (for CloudWatch alarms)."
  value       = { for k, q in aws_sqs_queue.dlq : k => q.name }
}

output "tables" {
  description = "DynamoDB table name by role."
  value = {
    jobs                 = aws_dynamodb_table.jobs.name
    segment-completions  = aws_dynamodb_table.segments["segment-completions"].name
    segment-status       = aws_dynamodb_table.segments["segment-status"].name
    reassembly-triggered = aws_dynamodb_table.reassembly_triggered.name
  }
}

output "table_arns" {
  description = "DynamoDB table ARN by role."
  value = {
    jobs                 = aws_dynamodb_table.jobs.arn
    segment-completions  = aws_dynamodb_table.segments["segment-completions"].arn
    segment-status       = aws_dynamodb_table.segments["segment-status"].arn
    reassembly-triggered = aws_dynamodb_table.reassembly_triggered.arn
  }
}

output "segment_object_tags" {
  description = "The tag that lets the lifecycle rules expire a job's segments, set when the job ends."
  value       = local.segment_tag
}
