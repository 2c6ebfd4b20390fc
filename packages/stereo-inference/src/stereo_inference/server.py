"""The SageMaker-style HTTP server: ``GET /ping`` and ``POST /invocations``.

One conversion runs at a time (a lock), like a SageMaker container; ``/ping``
answers meanwhile. Each runs in the warm child of an ``EngineProcess``, killed
at the conversion's deadline however it is stuck, so the lock is always freed.
Outputs to S3 go through the ObjectStorage port (the S3 adapter of
aws-adapters, imported lazily); file:// outputs are written to a partial name
and renamed into place only when complete.
"""

from __future__ import annotations

import hmac
import logging
import shutil
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from shared_types.comfort_reports import comfort_key
from shared_types.conversion import EngineRuntime
from shared_types.envelope import (
    ErrorCode,
    InvocationRequest,
    MetricsData,
    SegmentOutputData,
    error_body,
    result_envelope,
)
from shared_types.errors import (
    ModelUnavailableError,
    NotFoundError,
    PermanentError,
    TransientError,
)
from shared_types.failure import failure_code

from stereo_inference import work_dirs
from stereo_inference.bootstrap import StorageFactory, default_metrics, s3_storage_factory
from stereo_inference.depth import default_depth_model
from stereo_inference.engine_process import EngineProcess
from stereo_inference.metrics import Metrics
from stereo_inference.settings import InferenceSettings
from stereo_inference.uris import Location, parse_uri

log = logging.getLogger(__name__)
SECRET_HEADER = "X-StereoSpot-Secret"


def create_app(
    settings: InferenceSettings,
    *,
    storage_factory: StorageFactory | None = None,
    metrics: Metrics | None = None,
    convert: Callable | None = None,
) -> FastAPI:
    """The FastAPI app serving conversions with ``settings``; ``convert`` (a
    module-level function, default ``convert_file``) is what its engine process runs."""
    deadline = settings.deadline_policy(cap_s=settings.segment_timeout_s)
    engine = EngineProcess(convert, policy=deadline,
                           warm=default_depth_model(settings.models_dir).value)

    @asynccontextmanager
    async def engine_running(_: FastAPI) -> AsyncIterator[None]:
        engine.start()  # imports the engine while the server starts
        try:
            yield
        finally:
            engine.close()

    app = FastAPI(title="stereo-inference", docs_url=None, redoc_url=None,
                  lifespan=engine_running)
    app.state.engine = engine
    storages = storage_factory or s3_storage_factory(settings)
    sink = metrics or default_metrics(settings)
    runtime = settings.engine_runtime()  # the same for every request
    busy = threading.Lock()
    secret = settings.inference_shared_secret
    stale_after_s = settings.segment_timeout_s + work_dirs.MARGIN_S
    work_dirs.sweep(settings.work_dir, older_than_s=stale_after_s)

    def caller_knows_the_secret(request: Request) -> None:
        # SageMaker's endpoint is reachable only through its API: no secret there.
        if secret is None:
            return
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), secret.get_secret_value().encode()):
            raise HTTPException(status_code=401, detail=f"missing or wrong {SECRET_HEADER}")

    @app.get("/ping")
    def ping() -> dict:
        return {"status": "ok"}

    @app.post("/invocations", dependencies=[Depends(caller_knows_the_secret)])
    def invocations(request: InvocationRequest) -> JSONResponse:
        with busy:  # released however the conversion ends, its deadline included
            work_dirs.sweep(settings.work_dir, older_than_s=stale_after_s)
            body = _invoke(request, settings, runtime, storages, sink, engine)
        return JSONResponse(body)

    _install_error_handlers(app)
    return app


def _invoke(req: InvocationRequest, settings: InferenceSettings, runtime: EngineRuntime,
            storages: StorageFactory, sink: Metrics, engine: EngineProcess) -> dict:
    source = parse_uri(req.input_uri, file_root=settings.file_root)
    target = parse_uri(req.output_uri, file_root=settings.file_root)
    context = parse_uri(req.context_uri, file_root=settings.file_root) if req.context_uri else None
    started = time.perf_counter()
    work = work_dirs.new_work_dir(settings.work_dir)
    try:
        input_path = _fetch(source, work / "input", storages)
        context_path = None
        if context is not None and req.depth_state is None:
            context_path = _fetch_context(context, work / "context", storages)
        depth_path = None
        if req.depth_uri:
            depth_path = _fetch(parse_uri(req.depth_uri, file_root=settings.file_root),
                                work / "depth", storages)
        size = input_path.stat().st_size
        output_path = target.path if target.path else work / "output.mp4"
        if target.path:
            output_path.parent.mkdir(parents=True, exist_ok=True)
        result = engine.convert(
            input_path, output_path, mode=req.mode, params=req.params,
            depth_state=req.depth_state, runtime=runtime,
            context_path=context_path,
            depth_video=depth_path,
        )
        if target.bucket:
            bucket, key = target.object()
            if result.comfort_report is not None:  # first: whoever sees the video finds it
                storages(bucket).put_file(comfort_key(key), result.comfort_report,
                                          content_type="application/json")
            storages(bucket).put_file(key, output_path, content_type="video/mp4")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    duration = time.perf_counter() - started
    published = sink.record_segment(duration, size)
    log.info("converted %s -> %s (%d frames, %.1fs)", req.input_uri, req.output_uri,
             result.frames, duration)
    output = SegmentOutputData(
        output_uri=req.output_uri, mode=req.mode, frames=result.frames,
        duration_s=result.duration_s, width=result.width, height=result.height,
        depth_model=result.depth_model, elapsed_s=result.elapsed_s, fps=result.fps,
        depth_state=result.depth_state,
    )
    return result_envelope(output, MetricsData(**published))


def _fetch(source: Location, stem: Path, storages: StorageFactory) -> Path:
    """A local path of ``source`` (downloaded next to ``stem`` when it is in S3).
    Raises NotFoundError when it does not exist, the storage's errors otherwise."""
    if source.path:
        if not source.path.is_file():
            raise NotFoundError(f"input not found: {source.uri}")
        return source.path
    bucket, key = source.object()
    # A fixed name: the key's suffix (".m3u8", ".ffconcat") never picks a demuxer.
    path = stem.with_suffix(".video")
    storages(bucket).get_file(key, path)
    return path


def _fetch_context(context: Location, stem: Path, storages: StorageFactory) -> Path | None:
    """The context segment, or None when it is gone (the seam is then not smoothed;
    never a reason to fail the conversion)."""
    try:
        return _fetch(context, stem, storages)
    except NotFoundError:
        log.warning("context %s not found; converting without it", context.uri)
        return None


def _install_error_handlers(app: FastAPI) -> None:
    """Every failure answers ``error_body``: its code, its words, and whether a
    retry can succeed (``shared_types.failure``), so callers over HTTP and over
    SageMaker async (which stores this body at the failure location) classify
    it the same way without guessing from the status."""

    def reply(status: int, code: ErrorCode | str, exc: Exception, *,
              permanent: bool) -> JSONResponse:
        return JSONResponse(error_body(code, str(exc) or type(exc).__name__,
                                       permanent=permanent), status_code=status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:]) or 'body'}: {e['msg']}"
            for e in exc.errors()
        )
        return JSONResponse(error_body(ErrorCode.INVALID_REQUEST, problems, permanent=True),
                            status_code=400)

    @app.exception_handler(NotFoundError)
    async def not_found(_: Request, exc: NotFoundError) -> JSONResponse:
        return reply(404, ErrorCode.INPUT_NOT_FOUND, exc, permanent=True)

    @app.exception_handler(ModelUnavailableError)
    async def no_model(_: Request, exc: ModelUnavailableError) -> JSONResponse:
        return reply(422, ErrorCode.MODEL_UNAVAILABLE, exc, permanent=True)

    @app.exception_handler(PermanentError)
    async def permanent(_: Request, exc: PermanentError) -> JSONResponse:
        return reply(400, failure_code(exc), exc, permanent=True)

    @app.exception_handler(TransientError)
    async def transient(_: Request, exc: TransientError) -> JSONResponse:
        log.warning("transient failure: %s", exc)
        return reply(503, ErrorCode.TRANSIENT, exc, permanent=False)

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected failure")
        return reply(500, ErrorCode.INTERNAL, exc, permanent=False)
