"""Ports on DynamoDB, SQS and S3 (boto3)."""
