variable "name_prefix" {
  description = "Prefix of every resource name."
  type        = string
  default     = "stereo-spot"
}

variable "region" {
  description = "AWS region the stack runs in (passed to tasks)."
  type        = string
}

variable "image_tag" {
  description = "Image tag of this release (one tag for every image, e.g. the git SHA)."
  type        = string
}

variable "vpc_cidr" {
  description = "CIDR of the VPC; two public and two private /20 subnets are cut from it."
  type        = string
  default     = "10.40.0.0/16"
}

variable "allowed_ingress_cidrs" {
  description = "Who may reach the ALB. A public ALB (0.0.0.0/0 or ::/0) is refused unless basic auth is set."
  type        = list(string)
  default     = ["0.0.0.0/0"]
}

variable "basic_auth_user" {
  description = "User name of the web UI's basic auth (with basic_auth_password_secret_arn)."
  type        = string
  default     = "stereo-spot"
}

variable "basic_auth_password_secret_arn" {
  description = "Secrets Manager secret holding the web UI's basic-auth password (a plain string); empty: no basic auth."
  type        = string
  default     = ""
}

variable "certificate_arn" {
  description = "ACM certificate for HTTPS on the ALB; empty serves plain HTTP (dev only)."
  type        = string
  default     = ""
}

variable "alb_idle_timeout_s" {
  description = "ALB idle timeout; SSE progress streams are long-lived (web-ui pings every 15 s)."
  type        = number
  default     = 3600
}

variable "inference_backend" {
  description = "sagemaker (async endpoint provisioned here) or http (a URL you run)."
  type        = string
  default     = "sagemaker"
  validation {
    condition     = contains(["sagemaker", "http"], var.inference_backend)
    error_message = "inference_backend must be \"sagemaker\" or \"http\"."
  }
}

variable "inference_http_url" {
  description = "Base URL of the inference server when inference_backend = http."
  type        = string
  default     = ""
}

variable "inference_shared_secret_arn" {
  description = "Secrets Manager secret with the http inference server's shared secret (inference_backend = http)."
  type        = string
  default     = ""
}

variable "inference_max_in_flight" {
  description = "Async inference invocations each video-worker keeps in flight."
  type        = number
  default     = 5
}

variable "sagemaker_instance_type" {
  description = "GPU instance type of the SageMaker endpoint."
  type        = string
  default     = "ml.g4dn.xlarge"
}

variable "sagemaker_max_instances" {
  description = "Upper bound of endpoint instances (cost guardrail); the endpoint scales to 0 when idle."
  type        = number
  default     = 2
}

variable "inference_source_repository" {
  description = "HTTPS Git URL CodeBuild clones to build the inference image (no default: the operator's own repository)."
  type        = string
}

variable "max_tasks" {
  description = "Max Fargate tasks per service (cost guardrail)."
  type        = map(number)
  default = {
    web-ui       = 2
    media-worker = 4
    video-worker = 8
  }
}

variable "worker_spot" {
  description = "Run media-worker and video-worker on FARGATE_SPOT (they drain on SIGTERM)."
  type        = bool
  default     = true
}

variable "eta_seconds_per_mb" {
  description = "Seconds of conversion per MB shown as an ETA in the UI; 0 lets the UI learn it."
  type        = number
  default     = 0
}

variable "log_retention_days" {
  description = "CloudWatch log retention of every service."
  type        = number
  default     = 30
}

variable "stuck_job_minutes" {
  description = "Minutes of segments waiting with none completing before the stuck-job alarm fires."
  type        = number
  default     = 30
}

variable "alarm_email" {
  description = "Address subscribed to alarm notifications; empty subscribes nobody."
  type        = string
  default     = ""
}

variable "data_plane" {
  description = "Outputs of modules/data-plane."
  type = object({
    buckets     = map(string)
    bucket_arns = map(string)
    queue_urls  = map(string)
    queue_arns  = map(string)
    queue_names = map(string)
    dlq_urls    = map(string)
    dlq_arns    = map(string)
    dlq_names   = map(string)
    tables      = map(string)
    table_arns  = map(string)
  })
}
