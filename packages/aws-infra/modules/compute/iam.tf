# Task roles: each service gets exactly the queues, tables and key prefixes it
# uses, named by ARN (no wildcards beyond an object-key prefix or a table's
# own indexes). The structural tests enforce this.

locals {
  input_arn  = local.dp.bucket_arns["input"]
  output_arn = local.dp.bucket_arns["output"]
  tables     = local.dp.table_arns
  queue_consume_actions = [
    "sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility",
    "sqs:GetQueueAttributes", "sqs:GetQueueUrl",
  ]
  # Consumers move poison messages to the DLQ themselves and can peek/redrive it.
  dlq_actions = [
    "sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage",
    "sqs:GetQueueAttributes", "sqs:GetQueueUrl",
  ]
  table_rw = [
    "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem",
    "dynamodb:Query", "dynamodb:BatchWriteItem",
  ]
  table_read = ["dynamodb:GetItem", "dynamodb:Query"]

  task_statements = {
    web-ui = [
      { Action = local.table_rw, Resource = [local.tables["jobs"], "${local.tables["jobs"]}/index/*"] },
      {
        Action = local.table_rw,
        Resource = [
          local.tables["segment-completions"], local.tables["segment-status"],
          local.tables["reassembly-triggered"],
        ]
      },
      { Action = ["s3:PutObject", "s3:GetObject", "s3:DeleteObject"], Resource = ["${local.input_arn}/input/*"] },
      { Action = ["s3:GetObject", "s3:DeleteObject"], Resource = ["${local.output_arn}/jobs/*"] },
      { Action = ["s3:DeleteObject"], Resource = ["${local.input_arn}/segments/*"] },
      { Action = ["s3:ListBucket"], Resource = [local.input_arn, local.output_arn] },
      {
        # Queue depths for the dashboard.
        Action = ["sqs:GetQueueAttributes"],
        Resource = [
          local.dp.queue_arns["chunking"], local.dp.queue_arns["video-worker"],
          local.dp.queue_arns["segment-output"], local.dp.queue_arns["reassembly"],
        ]
      },
    ]
    media-worker = [
      {
        Action   = local.queue_consume_actions,
        Resource = [local.dp.queue_arns["chunking"], local.dp.queue_arns["reassembly"]]
      },
      {
        Action   = local.dlq_actions,
        Resource = [local.dp.dlq_arns["chunking"], local.dp.dlq_arns["reassembly"]]
      },
      { Action = local.table_rw, Resource = [local.tables["jobs"], local.tables["reassembly-triggered"]] },
      { Action = local.table_read, Resource = [local.tables["segment-completions"], local.tables["segment-status"]] },
      { Action = ["s3:GetObject"], Resource = ["${local.input_arn}/input/*"] },
      { Action = ["s3:PutObject", "s3:AbortMultipartUpload"], Resource = ["${local.input_arn}/input/*/streams.mkv"] },
      { Action = ["s3:PutObject", "s3:GetObject", "s3:AbortMultipartUpload"], Resource = ["${local.input_arn}/segments/*"] },
      { Action = ["s3:ListBucket"], Resource = [local.input_arn, local.output_arn] },
      { Action = ["s3:GetObject"], Resource = ["${local.output_arn}/jobs/*"] },
      { Action = ["s3:PutObject", "s3:AbortMultipartUpload"], Resource = ["${local.output_arn}/jobs/*/final.mp4", "${local.output_arn}/jobs/*/final.mkv"] },
    ]
    video-worker = [
      {
        Action   = local.queue_consume_actions,
        Resource = [local.dp.queue_arns["video-worker"], local.dp.queue_arns["segment-output"]]
      },
      {
        Action   = local.dlq_actions,
        Resource = [local.dp.dlq_arns["video-worker"], local.dp.dlq_arns["segment-output"]]
      },
      { Action = ["sqs:SendMessage", "sqs:GetQueueUrl"], Resource = [local.dp.queue_arns["reassembly"]] },
      { Action = ["dynamodb:GetItem", "dynamodb:UpdateItem"], Resource = [local.tables["jobs"]] },
      {
        Action = local.table_rw,
        Resource = [
          local.tables["segment-completions"], local.tables["segment-status"],
          local.tables["reassembly-triggered"],
        ]
      },
      { Action = ["s3:GetObject"], Resource = ["${local.input_arn}/segments/*"] },
      { Action = ["s3:GetObject", "s3:PutObject", "s3:PutObjectTagging"], Resource = ["${local.output_arn}/jobs/*/segments/*"] },
      { Action = ["s3:ListBucket"], Resource = [local.output_arn] },
    ]
  }

  # video-worker's extra rights with inference_backend = "sagemaker": invoke
  # the endpoint, write async requests and read async responses.
  sagemaker_statements = local.use_sagemaker ? [
    { Action = ["sagemaker:InvokeEndpointAsync"], Resource = [aws_sagemaker_endpoint.this[0].arn] },
    { Action = ["s3:PutObject", "s3:GetObject"], Resource = ["${local.output_arn}/sagemaker-async/*"] },
  ] : []
}

data "aws_iam_policy_document" "ecs_tasks_assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["ecs-tasks.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "task" {
  for_each           = toset(local.services)
  name               = "${var.name_prefix}-${each.key}-task"
  assume_role_policy = data.aws_iam_policy_document.ecs_tasks_assume.json
}

resource "aws_iam_role_policy" "task" {
  for_each = aws_iam_role.task
  name     = "stereo-spot-${each.key}"
  role     = each.value.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      for s in concat(local.task_statements[each.key],
      each.key == "video-worker" ? local.sagemaker_statements : []) :
      merge({ Effect = "Allow" }, s)
    ]
  })
}

# Execution role: pull this stack's images and write this stack's log groups.
resource "aws_iam_role" "execution" {
  name               = "${var.name_prefix}-task-execution"
  assume_role_policy = data.aws_iam_policy_document.ecs_tasks_assume.json
}

resource "aws_iam_role_policy" "execution" {
  name = "pull-images-write-logs"
  role = aws_iam_role.execution.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        # GetAuthorizationToken has no resource-level permissions in IAM.
        Effect   = "Allow"
        Action   = ["ecr:GetAuthorizationToken"]
        Resource = "*"
      },
      {
        Effect   = "Allow"
        Action   = ["ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:BatchCheckLayerAvailability"]
        Resource = [for s in local.services : aws_ecr_repository.this[s].arn]
      },
      {
        Effect   = "Allow"
        Action   = ["logs:CreateLogStream", "logs:PutLogEvents"]
        Resource = [for s in local.services : "${aws_cloudwatch_log_group.service[s].arn}:*"]
      },
    ]
  })
}
