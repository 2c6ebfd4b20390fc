"""Test helpers for Terraform projects: offline terraform, checkov, HCL parsing."""
