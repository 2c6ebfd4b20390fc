# `terraform test` (plan only, mocked provider): CodeBuild builds (privileged)
# only the repository the operator names. Run by tests/integration/test_terraform_plan_guards.py.

mock_provider "aws" {
  source = "./tftests_mocks"
}

variables {
  allowed_ingress_cidrs = ["198.51.100.0/24"]
}

run "a_plain_http_source_repository_is_refused" {
  command = plan
  variables {
    inference_source_repository = "http://git.example.com/ops/stereo-spot.git"
  }
  expect_failures = [var.inference_source_repository]
}

run "the_operators_own_repository_is_planned" {
  command = plan
  variables {
    inference_source_repository = "https://git.example.com/ops/stereo-spot.git"
  }
}
