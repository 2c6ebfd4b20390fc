# `terraform test` (plan only, mocked provider): the listener signs people in
# with an identity provider. Run by tests/integration/test_terraform_sign_in.py.

mock_provider "aws" {
  source = "./tftests_mocks"
}

variables {
  inference_source_repository = "https://git.example.com/ops/stereo-spot.git"
  oidc_issuer                 = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_example"
  oidc_authorization_endpoint = "https://stereo-spot.auth.us-east-1.amazoncognito.com/oauth2/authorize"
  oidc_token_endpoint         = "https://stereo-spot.auth.us-east-1.amazoncognito.com/oauth2/token"
  oidc_user_info_endpoint     = "https://stereo-spot.auth.us-east-1.amazoncognito.com/oauth2/userInfo"
  oidc_client_id              = "example-client"
  oidc_client_secret          = "example-secret"
}

run "a_public_alb_with_sign_in_over_https_is_planned" {
  command = plan
  variables {
    allowed_ingress_cidrs = ["0.0.0.0/0"]
    certificate_arn       = "arn:aws:acm:us-east-1:123456789012:certificate/example"
  }
  assert {
    condition     = output.sign_in
    error_message = "the listener does not sign people in"
  }
}

run "sign_in_without_https_is_refused" {
  command = plan
  variables {
    allowed_ingress_cidrs = ["198.51.100.0/24"]
  }
  expect_failures = [var.oidc_issuer]
}

run "a_public_alb_without_sign_in_or_basic_auth_is_still_refused" {
  command = plan
  variables {
    allowed_ingress_cidrs = ["0.0.0.0/0"]
    certificate_arn       = "arn:aws:acm:us-east-1:123456789012:certificate/example"
    oidc_issuer           = ""
  }
  expect_failures = [var.allowed_ingress_cidrs]
}
