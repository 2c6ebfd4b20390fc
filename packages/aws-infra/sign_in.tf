# Sign-in by an identity provider at the load balancer (ALB authenticate-oidc:
# Cognito's hosted UI or any OIDC provider). The ALB signs the person's claims
# into x-amzn-oidc-data; web-ui checks that signature (web_ui.alb_token) and
# shows each person only their own jobs, and every job to the admins group.

variable "oidc_issuer" {
  description = "OIDC issuer of the identity provider (for Cognito: https://cognito-idp.REGION.amazonaws.com/POOL_ID); empty: no sign-in."
  type        = string
  default     = ""
  validation {
    condition     = var.oidc_issuer == "" || var.certificate_arn != ""
    error_message = "Sign-in with an identity provider needs HTTPS at the ALB: set certificate_arn."
  }
}

variable "oidc_authorization_endpoint" {
  description = "The provider's authorization endpoint (Cognito: https://DOMAIN/oauth2/authorize)."
  type        = string
  default     = ""
}

variable "oidc_token_endpoint" {
  description = "The provider's token endpoint (Cognito: https://DOMAIN/oauth2/token)."
  type        = string
  default     = ""
}

variable "oidc_user_info_endpoint" {
  description = "The provider's user info endpoint (Cognito: https://DOMAIN/oauth2/userInfo)."
  type        = string
  default     = ""
}

variable "oidc_client_id" {
  description = "The app client the ALB signs in with."
  type        = string
  default     = ""
}

variable "oidc_client_secret" {
  description = "That app client's secret (the ALB keeps it; it is never given to a task)."
  type        = string
  default     = ""
  sensitive   = true
}

variable "oidc_scope" {
  description = "Scopes the ALB asks for."
  type        = string
  default     = "openid email"
}

variable "oidc_admin_claim" {
  description = "The user claim that lists a person's groups (Cognito: cognito:groups)."
  type        = string
  default     = "cognito:groups"
}

variable "oidc_admin_group" {
  description = "Members of this group see and act on every job."
  type        = string
  default     = "admins"
}

locals {
  oidc = var.oidc_issuer == "" ? null : {
    issuer                 = var.oidc_issuer
    authorization_endpoint = var.oidc_authorization_endpoint
    token_endpoint         = var.oidc_token_endpoint
    user_info_endpoint     = var.oidc_user_info_endpoint
    client_id              = var.oidc_client_id
    scope                  = var.oidc_scope
    admin_claim            = var.oidc_admin_claim
    admin_group            = var.oidc_admin_group
  }
}
