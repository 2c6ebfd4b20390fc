output "state_bucket" {
  description = "Bucket holding aws-infra's state."
  value       = aws_s3_bucket.state.bucket
}

output "lock_table" {
  description = "DynamoDB table locking aws-infra's state."
  value       = aws_dynamodb_table.locks.name
}

output "backend_config" {
  description = "Contents of aws-infra/backend.hcl (written by `nx run aws-infra-setup:apply`)."
  value       = <<-HCL
    bucket         = "${aws_s3_bucket.state.bucket}"
    key            = "${var.state_key}"
    region         = "${var.region}"
    dynamodb_table = "${aws_dynamodb_table.locks.name}"
    kms_key_id     = "${aws_kms_key.state.arn}"
    encrypt        = true
  HCL
}
