variable "region" {
  description = "AWS region of the state bucket and lock table (and of the stack)."
  type        = string
  default     = "us-east-1"
}

variable "state_bucket_name" {
  description = "Name of the Terraform state bucket (bucket names are global: add your account id)."
  type        = string
  default     = "stereo-spot-terraform-state"
}

variable "lock_table_name" {
  description = "Name of the DynamoDB table Terraform locks state with."
  type        = string
  default     = "stereo-spot-terraform-locks"
}

variable "state_key" {
  description = "Object key of aws-infra's state in the bucket."
  type        = string
  default     = "aws-infra/terraform.tfstate"
}
