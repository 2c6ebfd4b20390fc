# media-worker: chunking and reassembly with ffmpeg (imageio-ffmpeg's static
# build: libx264, aac, segment muxer, concat demuxer). Build from the repo root:
#   docker build -f packages/aws-infra/docker/media-worker.Dockerfile -t media-worker .
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 \
    HOME=/tmp TMPDIR=/tmp STEREO_SPOT_DATA_DIR=/tmp/stereo-spot

COPY constraints.txt /src/constraints.txt
COPY packages/shared-types /src/packages/shared-types
COPY packages/media /src/packages/media
COPY packages/local-adapters /src/packages/local-adapters
COPY packages/aws-adapters /src/packages/aws-adapters
COPY packages/media-worker /src/packages/media-worker
RUN pip install -c /src/constraints.txt /src/packages/shared-types /src/packages/media /src/packages/local-adapters \
        /src/packages/aws-adapters /src/packages/media-worker \
    && rm -rf /src \
    && python -c "from stereo_media.ffmpeg import ffmpeg_path; print(ffmpeg_path())"

# Media goes to /tmp (ECS ephemeral storage); the root filesystem is read-only.
USER 10001:10001
WORKDIR /tmp
# ECS sends SIGTERM and waits stopTimeout (120 s) while the worker drains.
STOPSIGNAL SIGTERM
CMD ["media-worker"]
