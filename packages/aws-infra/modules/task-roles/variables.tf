variable "name_prefix" {
  description = "Prefix of every resource name."
  type        = string
  default     = "stereo-spot"
}

variable "region" {
  description = "AWS region of the stack (for the SageMaker endpoint and log group ARNs)."
  type        = string
}

variable "data_plane" {
  description = "Outputs of modules/data-plane (bucket, queue, DLQ and table names and ARNs)."
  type = object({
    buckets     = map(string)
    bucket_arns = map(string)
    queue_arns  = map(string)
    dlq_arns    = map(string)
    table_arns  = map(string)
  })
}

variable "use_sagemaker" {
  description = "Inference on the SageMaker async endpoint: grant video-worker the invoke and create the endpoint's execution role."
  type        = bool
  default     = true
}

variable "endpoint_name" {
  description = "Name of the SageMaker async endpoint video-worker invokes."
  type        = string
}

variable "inference_repository_arn" {
  description = "ECR repository of the inference image (the SageMaker execution role pulls it)."
  type        = string
}

variable "metrics_namespace" {
  description = "CloudWatch namespace the inference container publishes conversion metrics to."
  type        = string
  default     = "StereoSpot/Conversion"
}

variable "extra_trusted_principals" {
  description = "IAM principal ARNs that may assume every role here besides the AWS service (empty in a deployment; the deployment harness assumes them from a test user)."
  type        = list(string)
  default     = []
}
