# What each service's code calls, statement by statement. Every statement has a
# Sid: the deployment harness (tests/integration/test_deployment_harness.py)
# records every AWS call each service makes end to end, evaluates it against
# these policies with an IAM policy simulator, and fails on a denied call or
# on a statement no call used, naming its Sid. Keep them in step with the code.

locals {
  input  = var.data_plane.bucket_arns["input"]
  output = var.data_plane.bucket_arns["output"]
  table  = var.data_plane.table_arns
  queue  = var.data_plane.queue_arns
  dlq    = var.data_plane.dlq_arns

  # Lease, heartbeat and acknowledge messages; read the redrive policy that names the DLQ.
  consume = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility",
  "sqs:GetQueueAttributes"]
  # A consumer moves a poison message to its DLQ itself (with the reason attached)
  # and reads its depth (Queue.stats).
  dead_letter = ["sqs:GetQueueUrl", "sqs:GetQueueAttributes", "sqs:SendMessage"]
  # The jobs table's indexes (modules/data-plane/dynamodb.tf; aws_adapters.dynamo_jobs):
  # every status but completed is listed by created_at, completed jobs by completed_at.
  by_created   = "${local.table["jobs"]}/index/status-created_at"
  by_completed = "${local.table["jobs"]}/index/status-completed_at"

  statements = {
    web-ui = [
      {
        Sid      = "JobRows"
        Action   = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"]
        Resource = [local.table["jobs"]]
      },
      # The job list: jobs in progress (and those a webhook waits on) by status ...
      { Sid = "JobsByStatus", Action = ["dynamodb:Query"], Resource = [local.by_created] },
      # ... and completed jobs, which the ETA also learns from.
      { Sid = "CompletedJobs", Action = ["dynamodb:Query"], Resource = [local.by_completed] },
      {
        # Progress, Retry (which segments are done) and Delete (every row of a job).
        Sid      = "SegmentRows"
        Action   = ["dynamodb:Query", "dynamodb:BatchWriteItem"]
        Resource = [local.table["segment-completions"], local.table["segment-status"]]
      },
      # Retry resets failed segments to pending.
      { Sid = "ResetFailedSegments", Action = ["dynamodb:UpdateItem"], Resource = [local.table["segment-status"]] },
      {
        # Retry of a job whose segments are all done triggers reassembly for its new
        # epoch: a conditional create, or an update of the row an earlier epoch left.
        Sid      = "ReassemblyRows"
        Action   = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"]
        Resource = [local.table["reassembly-triggered"]]
      },
      {
        # The browser uploads the source with URLs this role presigns: one PUT, or a
        # resumable multipart upload this role opens, lists, completes or aborts;
        # an imported depth video goes up through the web UI itself (web_ui.depth_upload).
        Sid      = "UploadSources"
        Action   = ["s3:PutObject", "s3:ListMultipartUploadParts", "s3:AbortMultipartUpload"]
        Resource = ["${local.input}/input/*/source.mp4", "${local.input}/input/*/depth.mkv"]
      },
      {
        # One upload per job: a start is refused while another is open, complete,
        # cancel and delete abort what is left (web_ui.uploads, shared_types.cancel).
        # IAM has no s3:prefix key for this action: it names the input bucket only.
        Sid      = "ListOpenUploads"
        Action   = ["s3:ListBucketMultipartUploads"]
        Resource = [local.input]
      },
      {
        Sid      = "SourcesAndSegments"
        Action   = ["s3:GetObject", "s3:DeleteObject"]
        Resource = ["${local.input}/input/*", "${local.input}/segments/*"]
      },
      # Playback and download URLs; Delete removes the outputs.
      { Sid = "Outputs", Action = ["s3:GetObject", "s3:DeleteObject"], Resource = ["${local.output}/jobs/*"] },
      {
        # input/*: a missing source reads as 403 to a role that may not list
        # where it lies; the adapter then lists exactly that key (s3_storage)
        Sid       = "ListJobObjects"
        Action    = ["s3:ListBucket"]
        Resource  = [local.input, local.output]
        Condition = { StringLike = { "s3:prefix" = ["segments/*", "jobs/*", "input/*"] } }
      },
      {
        # Retry re-tags a job's surviving segments as kept, so none expires while it runs again.
        Sid      = "KeepRetriedSegments"
        Action   = ["s3:PutObjectTagging"]
        Resource = ["${local.input}/segments/*", "${local.output}/jobs/*/segments/*"]
      },
      {
        # Retry re-sends the work the job still needs.
        Sid      = "ResendWork"
        Action   = ["sqs:SendMessage"]
        Resource = [local.queue["chunking"], local.queue["video-worker"], local.queue["reassembly"]]
      },
    ]
    media-worker = [
      { Sid = "ConsumeWork", Action = local.consume, Resource = [local.queue["chunking"], local.queue["reassembly"]] },
      { Sid = "DeadLetter", Action = local.dead_letter, Resource = [local.dlq["chunking"], local.dlq["reassembly"]] },
      # Chunking that finishes after the last segment triggers reassembly itself.
      { Sid = "TriggerReassembly", Action = ["sqs:SendMessage"], Resource = [local.queue["reassembly"]] },
      { Sid = "JobRows", Action = ["dynamodb:GetItem", "dynamodb:UpdateItem"], Resource = [local.table["jobs"]] },
      {
        Sid      = "ReassemblyRows"
        Action   = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"]
        Resource = [local.table["reassembly-triggered"]]
      },
      { Sid = "Completions", Action = ["dynamodb:Query"], Resource = [local.table["segment-completions"]] },
      { Sid = "ReadSources", Action = ["s3:GetObject"], Resource = ["${local.input}/input/*"] },
      # The source's other streams (audio, subtitles, chapters; data tracks apart), kept aside for reassembly.
      {
        Sid      = "WriteStreams"
        Action   = ["s3:PutObject"]
        Resource = ["${local.input}/input/*/streams.mkv", "${local.input}/input/*/data.mp4"]
      },
      { Sid = "WriteSegments", Action = ["s3:PutObject", "s3:GetObject"], Resource = ["${local.input}/segments/*"] },
      { Sid = "ReadConverted", Action = ["s3:GetObject"], Resource = ["${local.output}/jobs/*/segments/*"] },
      # The job's poster frame, shown in the job list, and the thumbnail strip of a job held for a preview.
      {
        Sid      = "WritePoster"
        Action   = ["s3:PutObject", "s3:GetObject"]
        Resource = ["${local.output}/jobs/*/poster.jpg", "${local.output}/jobs/*/thumbs/*"]
      },
      {
        # ... and the comfort report merged from the segments' (shared_types.comfort_reports)
        Sid    = "WriteFinal"
        Action = ["s3:PutObject", "s3:GetObject"]
        Resource = [
          "${local.output}/jobs/*/final.mp4", "${local.output}/jobs/*/final.mkv",
          "${local.output}/jobs/*/final.mp4.comfort.json", "${local.output}/jobs/*/final.mkv.comfort.json",
        ]
      },
      # A job it completes or fails: its segments are listed, then tagged expirable.
      {
        Sid      = "ListJobSegments"
        Action   = ["s3:ListBucket"]
        Resource = [local.input, local.output]
        # input/*: so a side stream a source lacks reads as missing, not denied
        Condition = { StringLike = { "s3:prefix" = ["segments/*", "jobs/*", "input/*"] } }
      },
      {
        Sid      = "ReleaseSegments"
        Action   = ["s3:PutObjectTagging"]
        Resource = ["${local.input}/segments/*", "${local.output}/jobs/*/segments/*"]
      },
      {
        # A job cancelled while it chunked or reassembled: what it wrote since is
        # freed (shared_types.cancel.discard_if_cancelled; the poster stays). A job
        # deleted meanwhile, or a source uploaded for a deleted job: all of it goes.
        Sid    = "FreeCancelledJob"
        Action = ["s3:DeleteObject"]
        Resource = [
          "${local.input}/input/*/source.mp4", "${local.input}/input/*/streams.mkv",
          "${local.input}/input/*/data.mp4", "${local.input}/segments/*",
          "${local.output}/jobs/*/segments/*", "${local.output}/jobs/*/thumbs/*",
          "${local.output}/jobs/*/final.mp4", "${local.output}/jobs/*/final.mkv",
          "${local.output}/jobs/*/poster.jpg", "${local.input}/input/*/depth.mkv",
        ]
      },
      {
        # A multipart upload (put_file over 64 MiB) that fails is aborted by boto3's
        # transfer manager, so its parts are not left to pay for.
        Sid    = "AbortFailedUploads"
        Action = ["s3:AbortMultipartUpload"]
        Resource = [
          "${local.input}/input/*/streams.mkv", "${local.input}/input/*/data.mp4",
          "${local.input}/segments/*", "${local.output}/jobs/*/final.mp4",
          "${local.output}/jobs/*/final.mkv",
        ]
      },
    ]
    video-worker = concat(local.video_worker_statements,
    var.use_sagemaker ? local.video_worker_sagemaker_statements : [])
  }

  video_worker_statements = [
    {
      Sid      = "ConsumeWork"
      Action   = local.consume
      Resource = [local.queue["video-worker"], local.queue["segment-output"]]
    },
    {
      Sid      = "DeadLetter"
      Action   = local.dead_letter
      Resource = [local.dlq["video-worker"], local.dlq["segment-output"]]
    },
    # The janitor reads a queue's backlog (and its DLQ's) before it re-sends to it.
    {
      Sid      = "TriggerReassembly"
      Action   = ["sqs:SendMessage", "sqs:GetQueueAttributes"]
      Resource = [local.queue["reassembly"]]
    },
    # The janitor re-sends a stuck job's source event.
    {
      Sid      = "ResendChunking"
      Action   = ["sqs:SendMessage", "sqs:GetQueueAttributes"]
      Resource = [local.queue["chunking"]]
    },
    {
      Sid      = "ResentQueuesDeadLetters"
      Action   = ["sqs:GetQueueUrl", "sqs:GetQueueAttributes"]
      Resource = [local.dlq["chunking"], local.dlq["reassembly"]]
    },
    { Sid = "JobRows", Action = ["dynamodb:GetItem", "dynamodb:UpdateItem"], Resource = [local.table["jobs"]] },
    # The janitor finds jobs in progress by status (never completed ones).
    { Sid = "JobsByStatus", Action = ["dynamodb:Query"], Resource = [local.by_created] },
    {
      Sid      = "SegmentRows"
      Action   = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:Query"]
      Resource = [local.table["segment-completions"], local.table["segment-status"]]
    },
    {
      # The trigger is a conditional create, or an update once a row exists (a Retry's new epoch).
      Sid      = "ReassemblyRows"
      Action   = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"]
      Resource = [local.table["reassembly-triggered"]]
    },
    # The janitor checks a stuck job's source and lists its segments; a whole-video
    # segment's request names the job's imported depth video when it has one.
    { Sid = "HeadSources", Action = ["s3:GetObject"], Resource = ["${local.input}/input/*/source.mp4", "${local.input}/input/*/depth.mkv"] },
    # ... and, for a job whose segments sit idle, heads each before re-sending it.
    { Sid = "HeadSegments", Action = ["s3:GetObject"], Resource = ["${local.input}/segments/*"] },
    {
      # ... and, for a job it fails, lists its segments to tag them expirable.
      Sid      = "ListSegments"
      Action   = ["s3:ListBucket"]
      Resource = [local.input, local.output]
      # input/* and the async answers: so a missing source or an answer still to
      # come reads as missing, not denied (s3_storage lists exactly that key)
      Condition = { StringLike = { "s3:prefix" = [
        "segments/*", "jobs/*", "input/*",
        "sagemaker-async/responses/*", "sagemaker-async/failures/*",
      ] } }
    },
    {
      Sid      = "ReleaseSegments"
      Action   = ["s3:PutObjectTagging"]
      Resource = ["${local.input}/segments/*", "${local.output}/jobs/*/segments/*"]
    },
    {
      # A segment converted for a job cancelled (or a run taken over) meanwhile is removed.
      Sid      = "DropStaleOutput"
      Action   = ["s3:DeleteObject"]
      Resource = ["${local.output}/jobs/*/segments/*"]
    },
  ]

  video_worker_sagemaker_statements = [
    # Async inference: the request goes to S3, then to the endpoint; the answer comes back in S3.
    { Sid = "WriteInferenceRequests", Action = ["s3:PutObject"], Resource = ["${local.input}/sagemaker-requests/*"] },
    { Sid = "InvokeEndpoint", Action = ["sagemaker:InvokeEndpointAsync"], Resource = [local.endpoint_arn] },
    {
      # The endpoint's output and failure paths (modules/compute/sagemaker.tf).
      Sid      = "ReadInferenceAnswers"
      Action   = ["s3:GetObject"]
      Resource = ["${local.output}/sagemaker-async/responses/*", "${local.output}/sagemaker-async/failures/*"]
    },
  ]

  # What the inference container and SageMaker's async machinery do with the
  # execution role's credentials (pulling the image and writing logs are in
  # aws_iam_role_policy.sagemaker_platform: SageMaker itself calls those).
  sagemaker_statements = [
    { Sid = "ReadInferenceRequests", Action = ["s3:GetObject"], Resource = ["${local.input}/sagemaker-requests/*"] },
    # ... and a job's imported depth video (depth_uri)
    { Sid = "ReadSegments", Action = ["s3:GetObject"], Resource = ["${local.input}/segments/*", "${local.input}/input/*/depth.mkv"] },
    {
      # The head after the upload is a GetObject.
      Sid      = "WriteConverted"
      Action   = ["s3:PutObject", "s3:GetObject"]
      Resource = ["${local.output}/jobs/*/segments/*"]
    },
    {
      Sid      = "WriteInferenceAnswers"
      Action   = ["s3:PutObject"]
      Resource = ["${local.output}/sagemaker-async/responses/*", "${local.output}/sagemaker-async/failures/*"]
    },
    {
      # PutMetricData has no resource-level permissions; it is limited to our namespace.
      Sid       = "ConversionMetrics"
      Action    = ["cloudwatch:PutMetricData"]
      Resource  = ["*"]
      Condition = { StringEquals = { "cloudwatch:namespace" = var.metrics_namespace } }
    },
    {
      # A converted segment over 64 MiB goes up in parts; a failed upload is aborted.
      Sid      = "AbortFailedUploads"
      Action   = ["s3:AbortMultipartUpload"]
      Resource = ["${local.output}/jobs/*/segments/*"]
    },
  ]
}
