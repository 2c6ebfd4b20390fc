# Workers scale on the depth of the queues they consume, between min_tasks (0,
# but 1 video-worker: the janitor's host) and max_tasks (the cost guardrail):
# step out on visible messages, back to the minimum only when nothing is
# visible or in flight (so draining tasks finish first).

locals {
  scaled_workers = {
    media-worker = ["chunking", "reassembly"]
    video-worker = ["video-worker", "segment-output"]
  }
  # The janitor (the sweep of every non-terminal job: a chunker or reassembler
  # that died on its last receive, a reassembly trigger whose send was lost, an
  # upload that never came) runs inside video-worker. Those jobs leave nothing
  # in video-worker's queues, so at zero tasks nobody would ever sweep them:
  # one task stays up.
  min_tasks = {
    media-worker = 0
    video-worker = 1
  }
}

resource "aws_appautoscaling_target" "worker" {
  for_each           = local.scaled_workers
  service_namespace  = "ecs"
  resource_id        = "service/${aws_ecs_cluster.this.name}/${aws_ecs_service.service[each.key].name}"
  scalable_dimension = "ecs:service:DesiredCount"
  min_capacity       = local.min_tasks[each.key]
  max_capacity       = var.max_tasks[each.key]
}

resource "aws_appautoscaling_policy" "scale_out" {
  for_each           = local.scaled_workers
  name               = "${var.name_prefix}-${each.key}-scale-out"
  policy_type        = "StepScaling"
  service_namespace  = "ecs"
  resource_id        = aws_appautoscaling_target.worker[each.key].resource_id
  scalable_dimension = aws_appautoscaling_target.worker[each.key].scalable_dimension
  step_scaling_policy_configuration {
    adjustment_type         = "ChangeInCapacity"
    cooldown                = 60
    metric_aggregation_type = "Maximum"
    step_adjustment {
      metric_interval_lower_bound = 0
      metric_interval_upper_bound = 10
      scaling_adjustment          = 1
    }
    step_adjustment {
      metric_interval_lower_bound = 10
      metric_interval_upper_bound = 50
      scaling_adjustment          = 2
    }
    step_adjustment {
      metric_interval_lower_bound = 50
      scaling_adjustment          = 4
    }
  }
}

resource "aws_appautoscaling_policy" "scale_in" {
  for_each           = local.scaled_workers
  name               = "${var.name_prefix}-${each.key}-scale-in"
  policy_type        = "StepScaling"
  service_namespace  = "ecs"
  resource_id        = aws_appautoscaling_target.worker[each.key].resource_id
  scalable_dimension = aws_appautoscaling_target.worker[each.key].scalable_dimension
  step_scaling_policy_configuration {
    adjustment_type         = "ExactCapacity"
    cooldown                = 300
    metric_aggregation_type = "Maximum"
    step_adjustment {
      metric_interval_upper_bound = 0
      scaling_adjustment          = 0
    }
  }
}

resource "aws_cloudwatch_metric_alarm" "backlog" {
  for_each            = local.scaled_workers
  alarm_name          = "${var.name_prefix}-${each.key}-backlog"
  alarm_description   = "Messages are waiting for ${each.key}: add tasks."
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = 1
  evaluation_periods  = 1
  alarm_actions       = [aws_appautoscaling_policy.scale_out[each.key].arn]
  metric_query {
    id          = "backlog"
    expression  = join(" + ", [for q in each.value : "v_${replace(q, "-", "_")}"])
    label       = "Visible messages"
    return_data = true
  }
  dynamic "metric_query" {
    for_each = each.value
    content {
      id = "v_${replace(metric_query.value, "-", "_")}"
      metric {
        namespace   = "AWS/SQS"
        metric_name = "ApproximateNumberOfMessagesVisible"
        dimensions  = { QueueName = local.dp.queue_names[metric_query.value] }
        period      = 60
        stat        = "Maximum"
      }
    }
  }
}

resource "aws_cloudwatch_metric_alarm" "idle" {
  for_each            = local.scaled_workers
  alarm_name          = "${var.name_prefix}-${each.key}-idle"
  alarm_description   = "No message visible or in flight for ${each.key}: scale to zero."
  comparison_operator = "LessThanOrEqualToThreshold"
  threshold           = 0
  evaluation_periods  = 10
  alarm_actions       = [aws_appautoscaling_policy.scale_in[each.key].arn]
  metric_query {
    id = "work"
    expression = join(" + ", flatten([for q in each.value : [
      "v_${replace(q, "-", "_")}", "f_${replace(q, "-", "_")}"
    ]]))
    label       = "Visible and in-flight messages"
    return_data = true
  }
  dynamic "metric_query" {
    for_each = { for pair in setproduct(each.value, ["v", "f"]) : "${pair[1]}_${replace(pair[0], "-", "_")}" => pair }
    content {
      id = metric_query.key
      metric {
        namespace   = "AWS/SQS"
        metric_name = metric_query.value[1] == "v" ? "ApproximateNumberOfMessagesVisible" : "ApproximateNumberOfMessagesNotVisible"
        dimensions  = { QueueName = local.dp.queue_names[metric_query.value[0]] }
        period      = 60
        stat        = "Maximum"
      }
    }
  }
}

resource "aws_appautoscaling_target" "web_ui" {
  service_namespace  = "ecs"
  resource_id        = "service/${aws_ecs_cluster.this.name}/${aws_ecs_service.service["web-ui"].name}"
  scalable_dimension = "ecs:service:DesiredCount"
  min_capacity       = 1
  max_capacity       = var.max_tasks["web-ui"]
}

resource "aws_appautoscaling_policy" "web_ui_cpu" {
  name               = "${var.name_prefix}-web-ui-cpu"
  policy_type        = "TargetTrackingScaling"
  service_namespace  = "ecs"
  resource_id        = aws_appautoscaling_target.web_ui.resource_id
  scalable_dimension = aws_appautoscaling_target.web_ui.scalable_dimension
  target_tracking_scaling_policy_configuration {
    target_value = 60
    predefined_metric_specification {
      predefined_metric_type = "ECSServiceAverageCPUUtilization"
    }
  }
}
