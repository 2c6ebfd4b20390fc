# The async inference endpoint (inference_backend = "sagemaker"). Later releases
# are rolled out by `nx run aws-infra:sagemaker-deploy` (new model + endpoint
# config, update endpoint), so terraform ignores the endpoint's config name.

resource "aws_sagemaker_model" "this" {
  # checkov:skip=CKV_AWS_370:The container reads segments from and writes results to S3 itself; network isolation would cut that off.
  count              = local.use_sagemaker ? 1 : 0
  name               = "${var.name_prefix}-inference-${replace(var.image_tag, "/[^a-zA-Z0-9-]/", "-")}"
  execution_role_arn = module.roles.sagemaker_role_arn
  primary_container {
    image = "${aws_ecr_repository.this["inference"].repository_url}:${var.image_tag}"
    environment = {
      STEREO_SPOT_AWS_REGION        = var.region
      STEREO_SPOT_METRICS           = "cloudwatch"
      STEREO_SPOT_METRICS_NAMESPACE = local.metrics_namespace
      # The image's `serve` skips the shared secret only where this says SageMaker.
      STEREO_SPOT_SAGEMAKER = "1"
    }
  }
}

resource "aws_sagemaker_endpoint_configuration" "this" {
  # checkov:skip=CKV_AWS_98:Endpoint volumes use SageMaker's default encryption; segments are transient (docs/SECURITY.md).
  count       = local.use_sagemaker ? 1 : 0
  name_prefix = "${var.name_prefix}-inference-"
  production_variants {
    variant_name           = "primary"
    model_name             = aws_sagemaker_model.this[0].name
    instance_type          = var.sagemaker_instance_type
    initial_instance_count = 1
  }
  async_inference_config {
    output_config {
      s3_output_path  = "s3://${local.dp.buckets["output"]}/sagemaker-async/responses/"
      s3_failure_path = "s3://${local.dp.buckets["output"]}/sagemaker-async/failures/"
    }
    client_config {
      max_concurrent_invocations_per_instance = 1
    }
  }
  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_sagemaker_endpoint" "this" {
  count                = local.use_sagemaker ? 1 : 0
  name                 = local.endpoint_name
  endpoint_config_name = aws_sagemaker_endpoint_configuration.this[0].name
  lifecycle {
    ignore_changes = [endpoint_config_name]
  }
}

# Async endpoints may scale to zero instances when the backlog is empty.
resource "aws_appautoscaling_target" "sagemaker" {
  count              = local.use_sagemaker ? 1 : 0
  service_namespace  = "sagemaker"
  resource_id        = "endpoint/${aws_sagemaker_endpoint.this[0].name}/variant/primary"
  scalable_dimension = "sagemaker:variant:DesiredInstanceCount"
  min_capacity       = 0
  max_capacity       = var.sagemaker_max_instances
}

resource "aws_appautoscaling_policy" "sagemaker_backlog" {
  count              = local.use_sagemaker ? 1 : 0
  name               = "${var.name_prefix}-inference-backlog"
  policy_type        = "TargetTrackingScaling"
  service_namespace  = "sagemaker"
  resource_id        = aws_appautoscaling_target.sagemaker[0].resource_id
  scalable_dimension = aws_appautoscaling_target.sagemaker[0].scalable_dimension
  target_tracking_scaling_policy_configuration {
    target_value       = 2
    scale_in_cooldown  = 600
    scale_out_cooldown = 60
    customized_metric_specification {
      metric_name = "ApproximateBacklogSizePerInstance"
      namespace   = "AWS/SageMaker"
      statistic   = "Average"
      dimensions {
        name  = "EndpointName"
        value = aws_sagemaker_endpoint.this[0].name
      }
    }
  }
}

# From zero instances the per-instance backlog is undefined: scale out on any backlog.
resource "aws_appautoscaling_policy" "sagemaker_from_zero" {
  count              = local.use_sagemaker ? 1 : 0
  name               = "${var.name_prefix}-inference-from-zero"
  policy_type        = "StepScaling"
  service_namespace  = "sagemaker"
  resource_id        = aws_appautoscaling_target.sagemaker[0].resource_id
  scalable_dimension = aws_appautoscaling_target.sagemaker[0].scalable_dimension
  step_scaling_policy_configuration {
    adjustment_type = "ChangeInCapacity"
    cooldown        = 300
    step_adjustment {
      metric_interval_lower_bound = 0
      scaling_adjustment          = 1
    }
  }
}

resource "aws_cloudwatch_metric_alarm" "sagemaker_has_backlog" {
  count               = local.use_sagemaker ? 1 : 0
  alarm_name          = "${var.name_prefix}-inference-backlog-without-capacity"
  alarm_description   = "Requests are waiting at the inference endpoint and it has no instances: scale out from zero."
  namespace           = "AWS/SageMaker"
  metric_name         = "HasBacklogWithoutCapacity"
  dimensions          = { EndpointName = aws_sagemaker_endpoint.this[0].name }
  statistic           = "Average"
  period              = 60
  evaluation_periods  = 2
  threshold           = 1
  comparison_operator = "GreaterThanOrEqualToThreshold"
  treat_missing_data  = "missing"
  alarm_actions       = [aws_appautoscaling_policy.sagemaker_from_zero[0].arn]
}
