"""Terraform for StereoSpot on AWS, and the deploy scripts (boto3)."""
