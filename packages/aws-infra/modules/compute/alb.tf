resource "aws_lb" "this" {
  # checkov:skip=CKV_AWS_91:ALB access logs need a log bucket with an ELB-account policy; enable per deployment (docs/SECURITY.md).
  # checkov:skip=CKV_AWS_150:Deletion protection would block terraform destroy of dev stacks; the ALB holds no state.
  # checkov:skip=CKV2_AWS_28:WAF is an opt-in cost; narrow allowed_ingress_cidrs or add WAF for public exposure (docs/SECURITY.md).
  # checkov:skip=CKV2_AWS_76:WAF (Log4j rule set) is opt-in, as above; the app is Python, not Java.
  name                       = "${var.name_prefix}-alb"
  load_balancer_type         = "application"
  internal                   = false
  subnets                    = aws_subnet.public[*].id
  security_groups            = [aws_security_group.alb.id]
  idle_timeout               = var.alb_idle_timeout_s
  drop_invalid_header_fields = true
  lifecycle {
    precondition {
      condition     = !local.public_alb || local.basic_auth || local.sign_in
      error_message = "The ALB would serve the web UI to the whole internet without a login: set an identity provider (oidc_*), basic_auth_password_secret_arn, or narrow allowed_ingress_cidrs."
    }
    precondition {
      condition     = !local.sign_in || var.certificate_arn != ""
      error_message = "Sign-in with an identity provider needs HTTPS at the ALB: set certificate_arn."
    }
    precondition {
      condition     = !local.public_alb || var.certificate_arn != ""
      error_message = "A public ALB must serve HTTPS (HTTP then redirects to it): set certificate_arn, or narrow allowed_ingress_cidrs."
    }
  }
}

resource "aws_lb_target_group" "web_ui" {
  # checkov:skip=CKV_AWS_378:TLS ends at the ALB; ALB to task traffic stays inside the VPC on private subnets.
  name        = "${var.name_prefix}-web-ui"
  port        = local.web_ui_port
  protocol    = "HTTP"
  target_type = "ip"
  vpc_id      = aws_vpc.this.id
  # SSE streams must not be cut off early when a task drains.
  deregistration_delay = 30
  health_check {
    path                = "/healthz"
    matcher             = "200"
    interval            = 15
    healthy_threshold   = 2
    unhealthy_threshold = 3
  }
}

resource "aws_lb_listener" "http" {
  # checkov:skip=CKV_AWS_2:Plain HTTP only when no certificate_arn is given (dev); with one, this listener redirects to HTTPS.
  # checkov:skip=CKV_AWS_103:Same listener: TLS policy applies to the HTTPS listener created with certificate_arn.
  load_balancer_arn = aws_lb.this.arn
  port              = 80
  protocol          = "HTTP"

  default_action {
    type             = var.certificate_arn == "" ? "forward" : "redirect"
    target_group_arn = var.certificate_arn == "" ? aws_lb_target_group.web_ui.arn : null
    dynamic "redirect" {
      for_each = var.certificate_arn == "" ? [] : [1]
      content {
        port        = "443"
        protocol    = "HTTPS"
        status_code = "HTTP_301"
      }
    }
  }
}

resource "aws_lb_listener" "https" {
  count             = var.certificate_arn == "" ? 0 : 1
  load_balancer_arn = aws_lb.this.arn
  port              = 443
  protocol          = "HTTPS"
  ssl_policy        = "ELBSecurityPolicy-TLS13-1-2-2021-06"
  certificate_arn   = var.certificate_arn
  # Sign people in first (sign_in.tf), then forward with their signed identity.
  dynamic "default_action" {
    for_each = local.sign_in ? [var.oidc] : []
    iterator = idp
    content {
      type  = "authenticate-oidc"
      order = 1
      authenticate_oidc {
        issuer                     = idp.value.issuer
        authorization_endpoint     = idp.value.authorization_endpoint
        token_endpoint             = idp.value.token_endpoint
        user_info_endpoint         = idp.value.user_info_endpoint
        client_id                  = idp.value.client_id
        client_secret              = var.oidc_client_secret
        scope                      = idp.value.scope
        on_unauthenticated_request = "authenticate"
      }
    }
  }
  default_action {
    type             = "forward"
    order            = local.sign_in ? 2 : 1
    target_group_arn = aws_lb_target_group.web_ui.arn
  }
}
