# The listener's sign-in (root sign_in.tf): with an identity provider, the HTTPS
# listener signs people in before it forwards, and web-ui believes only the
# identity this ALB signed (STEREO_SPOT_ALB_ARN).

variable "oidc" {
  description = "The identity provider the ALB signs people in with (authenticate-oidc); null: none."
  type = object({
    issuer                 = string
    authorization_endpoint = string
    token_endpoint         = string
    user_info_endpoint     = string
    client_id              = string
    scope                  = string
    admin_claim            = string
    admin_group            = string
  })
  default = null
}

variable "oidc_client_secret" {
  description = "The app client's secret (the ALB keeps it; no task sees it)."
  type        = string
  default     = ""
  sensitive   = true
}

locals {
  sign_in = var.oidc != null
  # What web-ui needs to check the ALB's signature and to know the admins.
  sign_in_env = local.sign_in ? {
    STEREO_SPOT_IDENTITY    = "alb"
    STEREO_SPOT_ALB_ARN     = aws_lb.this.arn
    STEREO_SPOT_ALB_REGION  = var.region
    STEREO_SPOT_ADMIN_CLAIM = var.oidc.admin_claim
    STEREO_SPOT_ADMIN_GROUP = var.oidc.admin_group
  } : {}
}
