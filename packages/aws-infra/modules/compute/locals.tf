locals {
  web_ui_port       = 8000
  listener_ports    = var.certificate_arn == "" ? [80] : [80, 443]
  services          = ["web-ui", "media-worker", "video-worker"]
  use_sagemaker     = var.inference_backend == "sagemaker"
  dp                = var.data_plane
  endpoint_name     = "${var.name_prefix}-inference"
  metrics_namespace = "StereoSpot/Conversion"
  basic_auth        = var.basic_auth_password_secret_arn != ""
  public_alb        = length(setintersection(toset(var.allowed_ingress_cidrs), toset(["0.0.0.0/0", "::/0"]))) > 0
  # Secrets ECS injects into a container (the execution role reads them).
  service_secrets = {
    web-ui = local.basic_auth ? { STEREO_SPOT_BASIC_AUTH_PASSWORD = var.basic_auth_password_secret_arn } : {}
    video-worker = !local.use_sagemaker && var.inference_shared_secret_arn != "" ? {
      STEREO_SPOT_INFERENCE_SHARED_SECRET = var.inference_shared_secret_arn
    } : {}
  }
  secret_arns = distinct(flatten([for s in values(local.service_secrets) : values(s)]))

  # The STEREO_SPOT_* variables every task reads (shared_types BackendSettings).
  backend_env = {
    STEREO_SPOT_BACKEND                   = "aws"
    STEREO_SPOT_AWS_REGION                = var.region
    STEREO_SPOT_INPUT_BUCKET              = local.dp.buckets["input"]
    STEREO_SPOT_OUTPUT_BUCKET             = local.dp.buckets["output"]
    STEREO_SPOT_JOBS_TABLE                = local.dp.tables["jobs"]
    STEREO_SPOT_SEGMENT_COMPLETIONS_TABLE = local.dp.tables["segment-completions"]
    STEREO_SPOT_SEGMENT_STATUS_TABLE      = local.dp.tables["segment-status"]
    STEREO_SPOT_REASSEMBLY_TABLE          = local.dp.tables["reassembly-triggered"]
    STEREO_SPOT_CHUNKING_QUEUE_URL        = local.dp.queue_urls["chunking"]
    STEREO_SPOT_VIDEO_WORKER_QUEUE_URL    = local.dp.queue_urls["video-worker"]
    STEREO_SPOT_SEGMENT_OUTPUT_QUEUE_URL  = local.dp.queue_urls["segment-output"]
    STEREO_SPOT_REASSEMBLY_QUEUE_URL      = local.dp.queue_urls["reassembly"]
  }

  service_env = {
    web-ui = merge(local.backend_env, local.basic_auth ? {
      STEREO_SPOT_BASIC_AUTH_USER = var.basic_auth_user
      } : {}, {
      STEREO_SPOT_HOST          = "0.0.0.0"
      STEREO_SPOT_PORT          = tostring(local.web_ui_port)
      STEREO_SPOT_SERVE_STORAGE = "false"
      # The ALB's addresses: believe its X-Forwarded-Proto, so cookies are Secure.
      STEREO_SPOT_FORWARDED_ALLOW_IPS = var.vpc_cidr
      }, local.sign_in_env, var.eta_seconds_per_mb > 0 ? {
      STEREO_SPOT_ETA_SECONDS_PER_MB = tostring(var.eta_seconds_per_mb)
    } : {})
    media-worker = local.backend_env
    video-worker = merge(local.backend_env, {
      STEREO_SPOT_INFERENCE_BACKEND       = var.inference_backend
      STEREO_SPOT_INFERENCE_MAX_IN_FLIGHT = tostring(var.inference_max_in_flight)
      }, local.use_sagemaker ? {
      STEREO_SPOT_SAGEMAKER_ENDPOINT = local.endpoint_name
      } : {
      STEREO_SPOT_INFERENCE_HTTP_URL = var.inference_http_url
    })
  }

  # Fargate sizes: media-worker runs ffmpeg on whole videos, the others are light.
  task_size = {
    web-ui       = { cpu = 512, memory = 1024, ephemeral_gib = 21 }
    media-worker = { cpu = 2048, memory = 4096, ephemeral_gib = 100 }
    video-worker = { cpu = 1024, memory = 2048, ephemeral_gib = 30 }
  }
}
