# The AWS data sources every `terraform test` of this root module plans against
# (mocked provider, no credentials): shared by tftests/ and tftests_sign_in/.

mock_data "aws_iam_policy_document" {
  defaults = { json = "{}" }
}

mock_data "aws_availability_zones" {
  defaults = { names = ["us-east-1a", "us-east-1b"] }
}
