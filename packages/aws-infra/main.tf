module "data_plane" {
  source                 = "./modules/data-plane"
  name_prefix            = var.name_prefix
  input_bucket_name      = var.input_bucket_name
  output_bucket_name     = var.output_bucket_name
  cors_allowed_origins   = length(var.app_origins) > 0 ? var.app_origins : [module.compute.app_url]
  segment_retention_days = var.segment_retention_days
  source_retention_days  = var.source_retention_days
  force_destroy_buckets  = var.force_destroy_buckets
}

module "compute" {
  source                         = "./modules/compute"
  name_prefix                    = var.name_prefix
  region                         = var.region
  image_tag                      = var.image_tag
  allowed_ingress_cidrs          = var.allowed_ingress_cidrs
  certificate_arn                = var.certificate_arn
  basic_auth_user                = var.basic_auth_user
  basic_auth_password_secret_arn = var.basic_auth_password_secret_arn
  oidc                           = local.oidc
  oidc_client_secret             = var.oidc_client_secret
  inference_backend              = var.inference_backend
  inference_http_url             = var.inference_http_url
  inference_shared_secret_arn    = var.inference_shared_secret_arn
  sagemaker_instance_type        = var.sagemaker_instance_type
  sagemaker_max_instances        = var.sagemaker_max_instances
  inference_source_repository    = var.inference_source_repository
  max_tasks                      = var.max_tasks
  eta_seconds_per_mb             = var.eta_seconds_per_mb
  alarm_email                    = var.alarm_email
  inference_max_in_flight        = var.inference_max_in_flight
  worker_spot                    = var.worker_spot
  log_retention_days             = var.log_retention_days
  stuck_job_minutes              = var.stuck_job_minutes
  data_plane = {
    buckets     = module.data_plane.buckets
    bucket_arns = module.data_plane.bucket_arns
    queue_urls  = module.data_plane.queue_urls
    queue_arns  = module.data_plane.queue_arns
    queue_names = module.data_plane.queue_names
    dlq_urls    = module.data_plane.dlq_urls
    dlq_arns    = module.data_plane.dlq_arns
    dlq_names   = module.data_plane.dlq_names
    tables      = module.data_plane.tables
    table_arns  = module.data_plane.table_arns
  }
}
