# Task roles and the SageMaker execution role live in modules/task-roles, so
# the deployment harness can apply exactly these roles to moto and run every
# service under its own. This file keeps the ECS execution role.

module "roles" {
  source                   = "../task-roles"
  name_prefix              = var.name_prefix
  region                   = var.region
  use_sagemaker            = local.use_sagemaker
  endpoint_name            = local.endpoint_name
  inference_repository_arn = aws_ecr_repository.this["inference"].arn
  metrics_namespace        = local.metrics_namespace
  data_plane = {
    buckets     = local.dp.buckets
    bucket_arns = local.dp.bucket_arns
    queue_arns  = local.dp.queue_arns
    dlq_arns    = local.dp.dlq_arns
    table_arns  = local.dp.table_arns
  }
}

# The roles moved into the module: keep the ones already deployed.
moved {
  from = aws_iam_role.task
  to   = module.roles.aws_iam_role.task
}
moved {
  from = aws_iam_role_policy.task
  to   = module.roles.aws_iam_role_policy.task
}
moved {
  from = aws_iam_role.sagemaker
  to   = module.roles.aws_iam_role.sagemaker
}
moved {
  from = aws_iam_role_policy.sagemaker
  to   = module.roles.aws_iam_role_policy.sagemaker
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

# Secrets ECS injects into tasks (basic-auth password, inference shared secret).
resource "aws_iam_role_policy" "execution_secrets" {
  count = length(local.secret_arns) > 0 ? 1 : 0
  name  = "read-task-secrets"
  role  = aws_iam_role.execution.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["secretsmanager:GetSecretValue"]
      Resource = local.secret_arns
    }]
  })
}
