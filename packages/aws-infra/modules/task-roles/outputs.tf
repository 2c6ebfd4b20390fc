output "task_role_arns" {
  description = "ECS task role ARN by service."
  value       = { for k, r in aws_iam_role.task : k => r.arn }
}

output "sagemaker_role_arn" {
  description = "Execution role of the SageMaker model (empty without SageMaker)."
  value       = var.use_sagemaker ? aws_iam_role.sagemaker[0].arn : ""
}

output "policies" {
  description = "The identity policy document of each role, by role key (services plus \"sagemaker\")."
  value = merge(
    { for k, p in aws_iam_role_policy.task : k => p.policy },
    var.use_sagemaker ? { sagemaker = aws_iam_role_policy.sagemaker[0].policy } : {},
  )
}
