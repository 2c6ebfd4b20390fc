output "app_url" {
  description = "URL of the web UI (ALB)."
  value       = "${var.certificate_arn == "" ? "http" : "https"}://${aws_lb.this.dns_name}"
}

output "cluster_name" {
  description = "ECS cluster name."
  value       = aws_ecs_cluster.this.name
}

output "service_names" {
  description = "ECS service name by service."
  value       = { for k, s in aws_ecs_service.service : k => s.name }
}

output "repository_urls" {
  description = "ECR repository URL by image (web-ui, media-worker, video-worker, inference)."
  value       = { for k, r in aws_ecr_repository.this : k => r.repository_url }
}

output "codebuild_project" {
  description = "CodeBuild project that builds the inference image."
  value       = aws_codebuild_project.inference.name
}

output "sagemaker_endpoint" {
  description = "SageMaker endpoint name (empty with inference_backend = http)."
  value       = local.use_sagemaker ? aws_sagemaker_endpoint.this[0].name : ""
}

output "sagemaker_role_arn" {
  description = "Execution role of SageMaker models (empty with inference_backend = http)."
  value       = module.roles.sagemaker_role_arn
}

output "alarm_topic_arn" {
  description = "SNS topic receiving every alarm."
  value       = aws_sns_topic.alarms.arn
}

output "service_env" {
  description = "Environment of each ECS task (the STEREO_SPOT_* settings)."
  value       = local.service_env
}

output "sign_in" {
  description = "Whether the HTTPS listener signs people in with an identity provider."
  value       = local.sign_in
}
