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

variable "max_receive_count" {
  description = "Receives before a message moves to its queue's dead-letter queue."
  type        = number
  default     = 5
}

variable "visibility_timeout_s" {
  description = "Visibility timeout per queue: sized to one unit of work (workers extend it by heartbeat)."
  type        = map(number)
  default = {
    chunking       = 900
    video-worker   = 600
    segment-output = 120
    reassembly     = 900
  }
}

variable "message_retention_s" {
  description = "How long the work queues keep a message (4 days)."
  type        = number
  default     = 345600
}

variable "dlq_retention_s" {
  description = "How long dead-letter queues keep a message; longer than the source queues (14 days)."
  type        = number
  default     = 1209600
}

variable "reassembly_ttl_attribute" {
  description = "TTL attribute of the reassembly-triggered table."
  type        = string
  default     = "ttl"
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
