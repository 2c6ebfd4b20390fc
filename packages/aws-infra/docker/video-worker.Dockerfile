# video-worker: inference dispatch (sagemaker | http), segment completion and
# the reassembly trigger. Build from the repository root:
#   docker build -f packages/aws-infra/docker/video-worker.Dockerfile -t video-worker .
# It depends on stereo-inference (for the in-process `local` backend), so torch
# is installed first from the CPU wheel index: no multi-GB CUDA build here.
FROM python:3.11-slim

ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 \
    HOME=/tmp TMPDIR=/tmp STEREO_SPOT_DATA_DIR=/tmp/stereo-spot

COPY constraints.txt /src/constraints.txt
RUN pip install --index-url ${TORCH_INDEX} "$(grep '^torch==' /src/constraints.txt)"
COPY packages/shared-types /src/packages/shared-types
COPY packages/media /src/packages/media
COPY packages/models /src/packages/models
COPY packages/local-adapters /src/packages/local-adapters
COPY packages/aws-adapters /src/packages/aws-adapters
COPY packages/stereo-inference /src/packages/stereo-inference
COPY packages/video-worker /src/packages/video-worker
RUN pip install -c /src/constraints.txt /src/packages/shared-types /src/packages/media /src/packages/models /src/packages/local-adapters \
        /src/packages/aws-adapters /src/packages/stereo-inference /src/packages/video-worker \
    && rm -rf /src

USER 10001:10001
WORKDIR /tmp
STOPSIGNAL SIGTERM
CMD ["video-worker"]
