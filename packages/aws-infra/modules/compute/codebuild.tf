# Builds the CUDA inference image (too big for a laptop upload) from the repo and
# pushes it to ECR. Started by `nx run aws-infra:sagemaker-build` with IMAGE_TAG.

data "aws_iam_policy_document" "codebuild_assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["codebuild.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "codebuild" {
  name               = "${var.name_prefix}-inference-build"
  assume_role_policy = data.aws_iam_policy_document.codebuild_assume.json
}

resource "aws_iam_role_policy" "codebuild" {
  name = "build-and-push-inference"
  role = aws_iam_role.codebuild.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      {
        # GetAuthorizationToken has no resource-level permissions in IAM.
        Effect = "Allow", Action = ["ecr:GetAuthorizationToken"], Resource = "*"
      },
      {
        Effect = "Allow"
        Action = [
          "ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer",
          "ecr:InitiateLayerUpload", "ecr:UploadLayerPart", "ecr:CompleteLayerUpload", "ecr:PutImage",
        ]
        Resource = [aws_ecr_repository.this["inference"].arn]
      },
      {
        Effect   = "Allow"
        Action   = ["logs:CreateLogStream", "logs:PutLogEvents"]
        Resource = ["${aws_cloudwatch_log_group.service["inference"].arn}:*"]
      },
    ]
  })
}

resource "aws_codebuild_project" "inference" {
  # checkov:skip=CKV_AWS_147:Artifacts go to ECR only (no CodeBuild artifacts to encrypt with a CMK).
  # checkov:skip=CKV_AWS_316:Privileged mode is required to run docker build inside CodeBuild.
  name          = "${var.name_prefix}-inference-image"
  description   = "Build packages/stereo-inference/Dockerfile and push it to ECR"
  service_role  = aws_iam_role.codebuild.arn
  build_timeout = 120

  source {
    type            = "GITHUB"
    location        = var.inference_source_repository
    git_clone_depth = 1
    buildspec       = <<-YAML
      version: 0.2
      phases:
        pre_build:
          commands:
            - aws ecr get-login-password --region $AWS_REGION | docker login --username AWS --password-stdin $${REPOSITORY_URL%%/*}
        build:
          commands:
            - docker build -f packages/stereo-inference/Dockerfile -t $REPOSITORY_URL:$IMAGE_TAG .
        post_build:
          commands:
            - docker push $REPOSITORY_URL:$IMAGE_TAG
    YAML
  }

  artifacts {
    type = "NO_ARTIFACTS"
  }

  environment {
    compute_type    = "BUILD_GENERAL1_LARGE"
    image           = "aws/codebuild/standard:7.0"
    type            = "LINUX_CONTAINER"
    privileged_mode = true
    environment_variable {
      name  = "REPOSITORY_URL"
      value = aws_ecr_repository.this["inference"].repository_url
    }
    environment_variable {
      name  = "IMAGE_TAG"
      value = var.image_tag
    }
  }

  logs_config {
    cloudwatch_logs {
      group_name = aws_cloudwatch_log_group.service["inference"].name
    }
  }
}
