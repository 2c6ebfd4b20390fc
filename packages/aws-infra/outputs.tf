output "app_url" {
  description = "URL of the web UI."
  value       = module.compute.app_url
}

output "buckets" {
  description = "Bucket name by role."
  value       = module.data_plane.buckets
}

output "queue_urls" {
  description = "Work queue URL by name."
  value       = module.data_plane.queue_urls
}

output "dlq_urls" {
  description = "Dead-letter queue URL by work queue name."
  value       = module.data_plane.dlq_urls
}

output "tables" {
  description = "DynamoDB table name by role."
  value       = module.data_plane.tables
}

output "segment_object_tags" {
  description = "Tags that make an output segment expire with the lifecycle rule."
  value       = module.data_plane.segment_object_tags
}

output "service_env" {
  description = "STEREO_SPOT_* environment of each ECS service."
  value       = module.compute.service_env
}

# Everything the deploy targets need, written to .deploy.env by `nx run aws-infra:apply`.
output "deploy_env" {
  description = "Flat KEY=value settings for the deploy scripts (stereo_spot_deploy)."
  value = merge(module.compute.service_env["web-ui"], {
    STEREO_SPOT_DEPLOY_REGION               = var.region
    STEREO_SPOT_DEPLOY_CLUSTER              = module.compute.cluster_name
    STEREO_SPOT_DEPLOY_IMAGE_TAG            = var.image_tag
    STEREO_SPOT_DEPLOY_CODEBUILD_PROJECT    = module.compute.codebuild_project
    STEREO_SPOT_DEPLOY_SAGEMAKER_ENDPOINT   = module.compute.sagemaker_endpoint
    STEREO_SPOT_DEPLOY_SAGEMAKER_ROLE_ARN   = module.compute.sagemaker_role_arn
    STEREO_SPOT_DEPLOY_REPO_WEB_UI          = module.compute.repository_urls["web-ui"]
    STEREO_SPOT_DEPLOY_REPO_MEDIA_WORKER    = module.compute.repository_urls["media-worker"]
    STEREO_SPOT_DEPLOY_REPO_VIDEO_WORKER    = module.compute.repository_urls["video-worker"]
    STEREO_SPOT_DEPLOY_REPO_INFERENCE       = module.compute.repository_urls["inference"]
    STEREO_SPOT_DEPLOY_SERVICE_WEB_UI       = module.compute.service_names["web-ui"]
    STEREO_SPOT_DEPLOY_SERVICE_MEDIA_WORKER = module.compute.service_names["media-worker"]
    STEREO_SPOT_DEPLOY_SERVICE_VIDEO_WORKER = module.compute.service_names["video-worker"]
    STEREO_SPOT_DEPLOY_APP_URL              = module.compute.app_url
  })
}

output "sign_in" {
  description = "Whether the web UI signs people in with an identity provider (sign_in.tf)."
  value       = module.compute.sign_in
}
