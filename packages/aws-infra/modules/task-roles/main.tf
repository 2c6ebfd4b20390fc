# One IAM role per service (ECS task roles) and the SageMaker execution role,
# each holding exactly the statements in statements.tf.

data "aws_caller_identity" "current" {}

locals {
  services     = ["web-ui", "media-worker", "video-worker"]
  endpoint_arn = "arn:aws:sagemaker:${var.region}:${data.aws_caller_identity.current.account_id}:endpoint/${var.endpoint_name}"
}

data "aws_iam_policy_document" "assume" {
  for_each = toset(["ecs-tasks.amazonaws.com", "sagemaker.amazonaws.com"])
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = [each.key]
    }
    dynamic "principals" {
      for_each = length(var.extra_trusted_principals) > 0 ? [1] : []
      content {
        type        = "AWS"
        identifiers = var.extra_trusted_principals
      }
    }
  }
}

resource "aws_iam_role" "task" {
  for_each           = toset(local.services)
  name               = "${var.name_prefix}-${each.key}-task"
  assume_role_policy = data.aws_iam_policy_document.assume["ecs-tasks.amazonaws.com"].json
}

resource "aws_iam_role_policy" "task" {
  for_each = aws_iam_role.task
  name     = "stereo-spot-${each.key}"
  role     = each.value.id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [for s in local.statements[each.key] : merge({ Effect = "Allow" }, s)]
  })
}

resource "aws_iam_role" "sagemaker" {
  count              = var.use_sagemaker ? 1 : 0
  name               = "${var.name_prefix}-sagemaker"
  assume_role_policy = data.aws_iam_policy_document.assume["sagemaker.amazonaws.com"].json
}

resource "aws_iam_role_policy" "sagemaker" {
  count = var.use_sagemaker ? 1 : 0
  name  = "stereo-spot-inference"
  role  = aws_iam_role.sagemaker[0].id
  policy = jsonencode({
    Version   = "2012-10-17"
    Statement = [for s in local.sagemaker_statements : merge({ Effect = "Allow" }, s)]
  })
}

resource "aws_iam_role_policy" "sagemaker_platform" {
  count = var.use_sagemaker ? 1 : 0
  name  = "sagemaker-pull-image-write-logs"
  role  = aws_iam_role.sagemaker[0].id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        # GetAuthorizationToken has no resource-level permissions in IAM.
        Sid = "EcrLogin", Effect = "Allow", Action = ["ecr:GetAuthorizationToken"], Resource = "*"
      },
      {
        Sid      = "PullInferenceImage"
        Effect   = "Allow"
        Action   = ["ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:BatchCheckLayerAvailability"]
        Resource = [var.inference_repository_arn]
      },
      {
        Sid      = "EndpointLogs"
        Effect   = "Allow"
        Action   = ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]
        Resource = ["arn:aws:logs:${var.region}:${data.aws_caller_identity.current.account_id}:log-group:/aws/sagemaker/Endpoints/${var.endpoint_name}*"]
      },
    ]
  })
}
