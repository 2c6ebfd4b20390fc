# `terraform test` (plan only, mocked provider): who may reach the web UI.
# Run by tests/integration/test_terraform_plan_guards.py.

variables {
  inference_source_repository = "https://git.example.com/ops/stereo-spot.git"
}

mock_provider "aws" {
  source = "./tftests_mocks"
}

run "a_public_alb_without_a_login_is_refused" {
  command = plan
  variables {
    allowed_ingress_cidrs = ["0.0.0.0/0"]
  }
  expect_failures = [var.allowed_ingress_cidrs]
}

run "a_public_alb_on_plain_http_is_refused_even_with_a_login" {
  command = plan
  variables {
    allowed_ingress_cidrs          = ["0.0.0.0/0"]
    basic_auth_password_secret_arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:stereo-spot-ui"
  }
  expect_failures = [var.allowed_ingress_cidrs]
}

run "a_public_ipv6_alb_on_plain_http_is_refused" {
  command = plan
  variables {
    allowed_ingress_cidrs          = ["::/0"]
    basic_auth_password_secret_arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:stereo-spot-ui"
  }
  expect_failures = [var.allowed_ingress_cidrs]
}

run "a_public_alb_with_basic_auth_and_https_is_planned" {
  command = plan
  variables {
    allowed_ingress_cidrs          = ["0.0.0.0/0"]
    basic_auth_password_secret_arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:stereo-spot-ui"
    certificate_arn                = "arn:aws:acm:us-east-1:123456789012:certificate/abc"
  }
}

run "an_alb_for_one_office_is_planned_without_a_login" {
  command = plan
  variables {
    allowed_ingress_cidrs = ["198.51.100.0/24"]
  }
}
