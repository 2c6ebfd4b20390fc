data "aws_availability_zones" "available" {
  # checkov:skip=CKV_AWS_394:Only the first two zones (sorted names) are used; a zone AWS adds later sorts after them and changes nothing.
  state = "available"
}

locals {
  azs = slice(data.aws_availability_zones.available.names, 0, 2)
}

resource "aws_vpc" "this" {
  cidr_block           = var.vpc_cidr
  enable_dns_support   = true
  enable_dns_hostnames = true
  tags                 = { Name = var.name_prefix }
}

# Lock down the default security group: nothing uses it.
resource "aws_default_security_group" "this" {
  vpc_id = aws_vpc.this.id
}

resource "aws_subnet" "public" {
  # checkov:skip=CKV_AWS_130:Public subnets hold only the ALB and the NAT gateway; tasks run in private subnets.
  count                   = 2
  vpc_id                  = aws_vpc.this.id
  availability_zone       = local.azs[count.index]
  cidr_block              = cidrsubnet(var.vpc_cidr, 4, count.index)
  map_public_ip_on_launch = true
  tags                    = { Name = "${var.name_prefix}-public-${count.index}" }
}

resource "aws_subnet" "private" {
  count             = 2
  vpc_id            = aws_vpc.this.id
  availability_zone = local.azs[count.index]
  cidr_block        = cidrsubnet(var.vpc_cidr, 4, count.index + 8)
  tags              = { Name = "${var.name_prefix}-private-${count.index}" }
}

resource "aws_internet_gateway" "this" {
  vpc_id = aws_vpc.this.id
}

resource "aws_eip" "nat" {
  domain = "vpc"
}

# One NAT gateway (not one per AZ): tasks reach SQS, ECR, logs and SageMaker
# through it; S3 and DynamoDB traffic takes the free gateway endpoints below.
resource "aws_nat_gateway" "this" {
  allocation_id = aws_eip.nat.id
  subnet_id     = aws_subnet.public[0].id
  depends_on    = [aws_internet_gateway.this]
}

resource "aws_route_table" "public" {
  vpc_id = aws_vpc.this.id
  route {
    cidr_block = "0.0.0.0/0"
    gateway_id = aws_internet_gateway.this.id
  }
}

resource "aws_route_table" "private" {
  vpc_id = aws_vpc.this.id
  route {
    cidr_block     = "0.0.0.0/0"
    nat_gateway_id = aws_nat_gateway.this.id
  }
}

resource "aws_route_table_association" "public" {
  count          = 2
  subnet_id      = aws_subnet.public[count.index].id
  route_table_id = aws_route_table.public.id
}

resource "aws_route_table_association" "private" {
  count          = 2
  subnet_id      = aws_subnet.private[count.index].id
  route_table_id = aws_route_table.private.id
}

resource "aws_vpc_endpoint" "gateway" {
  for_each          = toset(["s3", "dynamodb"])
  vpc_id            = aws_vpc.this.id
  service_name      = "com.amazonaws.${var.region}.${each.key}"
  vpc_endpoint_type = "Gateway"
  route_table_ids   = [aws_route_table.private.id]
}

resource "aws_flow_log" "vpc" {
  vpc_id               = aws_vpc.this.id
  traffic_type         = "REJECT"
  log_destination_type = "cloud-watch-logs"
  log_destination      = aws_cloudwatch_log_group.flow.arn
  iam_role_arn         = aws_iam_role.flow_logs.arn
}

resource "aws_cloudwatch_log_group" "flow" {
  # checkov:skip=CKV_AWS_158:Log groups use CloudWatch's default encryption; no CMK (docs/SECURITY.md).
  # checkov:skip=CKV_AWS_338:Retention is a cost lever (log_retention_days, default 30); a year is not required here.
  name              = "/stereo-spot/${var.name_prefix}/vpc-flow"
  retention_in_days = var.log_retention_days
}

resource "aws_iam_role" "flow_logs" {
  name = "${var.name_prefix}-vpc-flow-logs"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "vpc-flow-logs.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
}

resource "aws_iam_role_policy" "flow_logs" {
  name = "write-flow-logs"
  role = aws_iam_role.flow_logs.id
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"]
      Resource = "${aws_cloudwatch_log_group.flow.arn}:*"
    }]
  })
}

resource "aws_security_group" "alb" {
  name        = "${var.name_prefix}-alb"
  description = "ALB: HTTP(S) from the allowed CIDRs, out to web-ui only"
  vpc_id      = aws_vpc.this.id
}

resource "aws_security_group" "web_ui" {
  name        = "${var.name_prefix}-web-ui"
  description = "web-ui tasks: port 8000 from the ALB, HTTPS out to AWS APIs"
  vpc_id      = aws_vpc.this.id
}

resource "aws_security_group" "workers" {
  name        = "${var.name_prefix}-workers"
  description = "Worker tasks: no inbound, HTTPS out to AWS APIs and the inference endpoint"
  vpc_id      = aws_vpc.this.id
}

resource "aws_vpc_security_group_ingress_rule" "alb_listener" {
  for_each          = { for pair in setproduct(var.allowed_ingress_cidrs, local.listener_ports) : "${pair[0]}-${pair[1]}" => pair }
  security_group_id = aws_security_group.alb.id
  description       = "Browser traffic to the ALB"
  cidr_ipv4         = each.value[0]
  from_port         = each.value[1]
  to_port           = each.value[1]
  ip_protocol       = "tcp"
}

resource "aws_vpc_security_group_egress_rule" "alb_to_web_ui" {
  security_group_id            = aws_security_group.alb.id
  description                  = "ALB to web-ui tasks"
  referenced_security_group_id = aws_security_group.web_ui.id
  from_port                    = local.web_ui_port
  to_port                      = local.web_ui_port
  ip_protocol                  = "tcp"
}

resource "aws_vpc_security_group_ingress_rule" "web_ui_from_alb" {
  security_group_id            = aws_security_group.web_ui.id
  description                  = "web-ui from the ALB only"
  referenced_security_group_id = aws_security_group.alb.id
  from_port                    = local.web_ui_port
  to_port                      = local.web_ui_port
  ip_protocol                  = "tcp"
}

resource "aws_vpc_security_group_egress_rule" "https_out" {
  # checkov:skip=CKV_AWS_382:Tasks call AWS APIs (SQS, ECR, logs, SageMaker) and an optional inference URL over HTTPS only.
  for_each          = { web_ui = aws_security_group.web_ui.id, workers = aws_security_group.workers.id }
  security_group_id = each.value
  description       = "HTTPS to AWS APIs through the NAT gateway and VPC endpoints"
  cidr_ipv4         = "0.0.0.0/0"
  from_port         = 443
  to_port           = 443
  ip_protocol       = "tcp"
}
