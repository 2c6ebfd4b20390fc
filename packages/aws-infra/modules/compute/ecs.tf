resource "aws_cloudwatch_log_group" "service" {
  # checkov:skip=CKV_AWS_158:Log groups use CloudWatch's default encryption; no CMK (docs/SECURITY.md).
  # checkov:skip=CKV_AWS_338:Retention is a cost lever (log_retention_days, default 30); a year is not required here.
  for_each          = toset(concat(local.services, ["inference"]))
  name              = "/stereo-spot/${var.name_prefix}/${each.key}"
  retention_in_days = var.log_retention_days
}

resource "aws_ecs_cluster" "this" {
  name = var.name_prefix
  setting {
    name  = "containerInsights"
    value = "enabled"
  }
}

resource "aws_ecs_cluster_capacity_providers" "this" {
  cluster_name       = aws_ecs_cluster.this.name
  capacity_providers = ["FARGATE", "FARGATE_SPOT"]
}

resource "aws_ecs_task_definition" "service" {
  for_each                 = toset(local.services)
  family                   = "${var.name_prefix}-${each.key}"
  requires_compatibilities = ["FARGATE"]
  network_mode             = "awsvpc"
  cpu                      = local.task_size[each.key].cpu
  memory                   = local.task_size[each.key].memory
  execution_role_arn       = aws_iam_role.execution.arn
  task_role_arn            = module.roles.task_role_arns[each.key]
  ephemeral_storage {
    size_in_gib = local.task_size[each.key].ephemeral_gib
  }
  runtime_platform {
    operating_system_family = "LINUX"
    cpu_architecture        = "X86_64"
  }
  container_definitions = jsonencode([{
    name      = each.key
    image     = "${aws_ecr_repository.this[each.key].repository_url}:${var.image_tag}"
    essential = true
    # Media is written to /tmp (ephemeral storage); the image itself stays read-only.
    readonlyRootFilesystem = true
    mountPoints            = [{ sourceVolume = "scratch", containerPath = "/tmp", readOnly = false }]
    environment = [for k in sort(keys(local.service_env[each.key])) :
    { name = k, value = local.service_env[each.key][k] }]
    secrets      = [for k, arn in lookup(local.service_secrets, each.key, {}) : { name = k, valueFrom = arn }]
    portMappings = each.key == "web-ui" ? [{ containerPort = local.web_ui_port, protocol = "tcp" }] : []
    # Workers drain on SIGTERM: stop taking work, finish or release the message.
    stopTimeout = 120
    logConfiguration = {
      logDriver = "awslogs"
      options = {
        awslogs-group         = aws_cloudwatch_log_group.service[each.key].name
        awslogs-region        = var.region
        awslogs-stream-prefix = each.key
      }
    }
  }])
  volume {
    name = "scratch"
  }
}

resource "aws_ecs_service" "service" {
  for_each        = toset(local.services)
  name            = each.key
  cluster         = aws_ecs_cluster.this.id
  task_definition = aws_ecs_task_definition.service[each.key].arn
  desired_count   = each.key == "web-ui" ? 1 : local.min_tasks[each.key]

  capacity_provider_strategy {
    capacity_provider = each.key != "web-ui" && var.worker_spot ? "FARGATE_SPOT" : "FARGATE"
    weight            = 1
  }

  network_configuration {
    subnets          = aws_subnet.private[*].id
    security_groups  = [each.key == "web-ui" ? aws_security_group.web_ui.id : aws_security_group.workers.id]
    assign_public_ip = false
  }

  dynamic "load_balancer" {
    for_each = each.key == "web-ui" ? [1] : []
    content {
      target_group_arn = aws_lb_target_group.web_ui.arn
      container_name   = "web-ui"
      container_port   = local.web_ui_port
    }
  }

  deployment_circuit_breaker {
    enable   = true
    rollback = true
  }

  # Autoscaling owns the worker task counts after creation.
  lifecycle {
    ignore_changes = [desired_count]
  }
  depends_on = [aws_lb_listener.http]
}
