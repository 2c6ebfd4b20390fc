# video-worker: inference dispatch (sagemaker | http), segment completion and
# the reassembly trigger. Build from the repository root:
#   docker build -f packages/aws-infra/docker/video-worker.Dockerfile -t video-worker .
# No engine, no torch: the engine (stereo-inference) is video-worker's optional
# extra `local`, for the in-process backend only; on AWS inference runs on
# SageMaker or an HTTP endpoint (installed size: docs/BENCHMARKS.md).
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 \
    HOME=/tmp TMPDIR=/tmp STEREO_SPOT_DATA_DIR=/tmp/stereo-spot

COPY constraints.txt /src/constraints.txt
COPY packages/shared-types /src/packages/shared-types
COPY packages/models /src/packages/models
COPY packages/local-adapters /src/packages/local-adapters
COPY packages/aws-adapters /src/packages/aws-adapters
COPY packages/video-worker /src/packages/video-worker
RUN pip install -c /src/constraints.txt /src/packages/shared-types /src/packages/models /src/packages/local-adapters \
        /src/packages/aws-adapters /src/packages/video-worker \
    && rm -rf /src \
    && python -c "import importlib.util as u; assert u.find_spec('torch') is None"

USER 10001:10001
WORKDIR /tmp
STOPSIGNAL SIGTERM
CMD ["video-worker"]
