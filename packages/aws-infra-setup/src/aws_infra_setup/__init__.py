"""Terraform: state bucket and lock table for aws-infra."""
