terraform {
  required_version = ">= 1.9"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100"
    }
  }
  # Partial config: `nx run aws-infra:init` passes backend.hcl, written by
  # `nx run aws-infra-setup:apply`.
  backend "s3" {}
}

provider "aws" {
  region = var.region
  default_tags {
    tags = {
      project = "stereo-spot"
      stack   = var.name_prefix
    }
  }
}
