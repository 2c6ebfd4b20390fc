variable "name_prefix" {
  description = "Prefix of every resource name; the app's defaults expect \"stereo-spot\"."
  type        = string
  default     = "stereo-spot"
}

variable "input_bucket_name" {
  description = "Input bucket (uploads and segments). Empty means \"<name_prefix>-input\"."
  type        = string
  default     = ""
}

variable "output_bucket_name" {
  description = "Output bucket (converted segments and finals). Empty means \"<name_prefix>-output\"."
  type        = string
  default     = ""
}

variable "cors_allowed_origins" {
  description = "Origins allowed to PUT uploads and GET videos from the browser (the app URL only)."
  type        = list(string)
  validation {
    condition     = length(var.cors_allowed_origins) > 0 && !contains(var.cors_allowed_origins, "*")
    error_message = "cors_allowed_origins must name the app origin(s) explicitly; \"*\" is not allowed."
  }
}

variable "segment_retention_days" {
  description = "Days intermediate segments (input segments/, output jobs/*/segments/) are kept."
  type        = number
  default     = 1
}

variable "source_retention_days" {
  description = "Days a job's source (input/, with the streams kept aside) is kept; Retry of an older job asks for the video again."
  type        = number
  default     = 30
}

variable "force_destroy_buckets" {
  description = "Let terraform destroy delete non-empty buckets (dev stacks only)."
  type        = bool
  default     = false
}

variable "restrict_dlq_sources" {
  description = "Allow only each DLQ's source queue to dead-letter into it (moto cannot store this; tests turn it off)."
  type        = bool
  default     = true
}

variable "enforce_tls" {
  description = "Deny any S3 request not made over TLS (the moto test serves plain HTTP and turns it off)."
  type        = bool
  default     = true
}
