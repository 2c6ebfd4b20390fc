# web-ui: FastAPI + Jinja2 pages, SSE progress. Build from the repository root:
#   docker build -f packages/aws-infra/docker/web-ui.Dockerfile -t web-ui .
# (or `npx nx run aws-infra:build-web-ui`). Settings come from STEREO_SPOT_* env.
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 \
    HOME=/tmp STEREO_SPOT_DATA_DIR=/tmp/stereo-spot \
    STEREO_SPOT_HOST=0.0.0.0 STEREO_SPOT_PORT=8000

COPY constraints.txt /src/constraints.txt
COPY packages/shared-types /src/packages/shared-types
COPY packages/models /src/packages/models
COPY packages/local-adapters /src/packages/local-adapters
COPY packages/aws-adapters /src/packages/aws-adapters
COPY packages/web-ui /src/packages/web-ui
RUN pip install -c /src/constraints.txt /src/packages/shared-types /src/packages/models /src/packages/local-adapters \
        /src/packages/aws-adapters /src/packages/web-ui \
    && rm -rf /src

# Runs with a read-only root filesystem on ECS; only /tmp is writable.
USER 10001:10001
WORKDIR /tmp
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"
CMD ["web-ui"]
