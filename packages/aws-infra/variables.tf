variable "region" {
  description = "AWS region."
  type        = string
  default     = "us-east-1"
}

variable "name_prefix" {
  description = "Prefix of every resource name; the app's defaults expect \"stereo-spot\"."
  type        = string
  default     = "stereo-spot"
}

variable "image_tag" {
  description = "Image tag of this release (the git SHA the build targets pushed)."
  type        = string
  default     = "latest"
}

variable "input_bucket_name" {
  description = "Input bucket name (bucket names are global); empty means \"<name_prefix>-input\"."
  type        = string
  default     = ""
}

variable "output_bucket_name" {
  description = "Output bucket name; empty means \"<name_prefix>-output\"."
  type        = string
  default     = ""
}

variable "app_origins" {
  description = "Origins the browser uses for the app (CORS); empty means the ALB URL."
  type        = list(string)
  default     = []
}

variable "allowed_ingress_cidrs" {
  description = "Who may reach the ALB; a public ALB needs basic_auth_password_secret_arn."
  type        = list(string)
  default     = ["0.0.0.0/0"]
  validation {
    condition = var.basic_auth_password_secret_arn != "" || var.oidc_issuer != "" || length(setintersection(
    toset(var.allowed_ingress_cidrs), toset(["0.0.0.0/0", "::/0"]))) == 0
    error_message = "The web UI would face the whole internet without a login: set an identity provider (oidc_*), basic_auth_password_secret_arn, or narrow allowed_ingress_cidrs to your networks."
  }
  validation {
    condition = var.certificate_arn != "" || length(setintersection(
    toset(var.allowed_ingress_cidrs), toset(["0.0.0.0/0", "::/0"]))) == 0
    error_message = "A public ALB must serve HTTPS (its login would cross the internet in clear text): set certificate_arn (HTTP then redirects to HTTPS), or narrow allowed_ingress_cidrs to your networks."
  }
}

variable "basic_auth_user" {
  description = "User name of the web UI's basic auth."
  type        = string
  default     = "stereo-spot"
}

variable "basic_auth_password_secret_arn" {
  description = "Secrets Manager secret with the web UI's basic-auth password; empty: no basic auth (then narrow allowed_ingress_cidrs)."
  type        = string
  default     = ""
}

variable "certificate_arn" {
  description = "ACM certificate for HTTPS; empty serves HTTP (dev only)."
  type        = string
  default     = ""
}

variable "inference_backend" {
  description = "sagemaker or http."
  type        = string
  default     = "sagemaker"
  validation {
    condition     = contains(["sagemaker", "http"], var.inference_backend)
    error_message = "inference_backend must be \"sagemaker\" or \"http\"."
  }
}

variable "inference_http_url" {
  description = "Inference server URL when inference_backend = http."
  type        = string
  default     = ""
}

variable "sagemaker_instance_type" {
  description = "GPU instance type of the SageMaker endpoint."
  type        = string
  default     = "ml.g4dn.xlarge"
}

variable "sagemaker_max_instances" {
  description = "Max SageMaker endpoint instances (cost guardrail)."
  type        = number
  default     = 2
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

variable "eta_seconds_per_mb" {
  description = "ETA_SECONDS_PER_MB shown by the UI; 0 lets the UI learn it from finished jobs."
  type        = number
  default     = 0
}

variable "alarm_email" {
  description = "Email subscribed to alarms; empty for none."
  type        = string
  default     = ""
}

variable "inference_source_repository" {
  description = "HTTPS Git URL of YOUR copy of this repository, which CodeBuild clones (privileged, to run docker build) to build the inference image. No default: a build must never run someone else's code."
  type        = string
  validation {
    condition     = startswith(var.inference_source_repository, "https://")
    error_message = "inference_source_repository must be an https:// Git URL of a repository you control."
  }
}

variable "inference_shared_secret_arn" {
  description = "Secrets Manager secret with the http inference server's shared secret (inference_backend = http)."
  type        = string
  default     = ""
}

variable "inference_max_in_flight" {
  description = "Async inference requests each video-worker keeps in flight."
  type        = number
  default     = 5
}

variable "worker_spot" {
  description = "Run media-worker and video-worker on Fargate Spot."
  type        = bool
  default     = true
}

variable "log_retention_days" {
  description = "CloudWatch log retention of every service."
  type        = number
  default     = 30
}

variable "stuck_job_minutes" {
  description = "Minutes without a completed segment (while some wait) before the stuck-job alarm."
  type        = number
  default     = 30
}

variable "source_retention_days" {
  description = "Days a job's source is kept in the input bucket (the backstop that removes what nothing deleted)."
  type        = number
  default     = 30
}

variable "segment_retention_days" {
  description = "Days intermediate segments are kept."
  type        = number
  default     = 1
}

variable "force_destroy_buckets" {
  description = "Let terraform destroy delete non-empty buckets (dev stacks only)."
  type        = bool
  default     = false
}
