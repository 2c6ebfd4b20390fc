locals {
  repositories = concat(local.services, ["inference"])
}

resource "aws_ecr_repository" "this" {
  # checkov:skip=CKV_AWS_136:Images are encrypted with AES256 (ECR default); they hold no secrets, so no CMK.
  for_each             = toset(local.repositories)
  name                 = "${var.name_prefix}-${each.key}"
  image_tag_mutability = "IMMUTABLE" # one tag per release, never moved
  image_scanning_configuration {
    scan_on_push = true
  }
  encryption_configuration {
    encryption_type = "AES256"
  }
}

resource "aws_ecr_lifecycle_policy" "this" {
  for_each   = aws_ecr_repository.this
  repository = each.value.name
  policy = jsonencode({
    rules = [{
      rulePriority = 1
      description  = "Keep the 20 newest images"
      selection    = { tagStatus = "any", countType = "imageCountMoreThan", countNumber = 20 }
      action       = { type = "expire" }
    }]
  })
}
