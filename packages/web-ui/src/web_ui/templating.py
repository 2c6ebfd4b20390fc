"""Jinja2 templates (autoescaped) and the one helper that renders a page."""

from __future__ import annotations

import datetime as dt
from importlib.resources import files

from shared_types.byte_size import size_words
from shared_types.left_out import left_out_sentence
from shared_types.models import (
    LAYOUT_TAGS,
    AnaglyphMethod,
    ConversionParams,
    DepthModel,
    OutputMode,
    VideoCodec,
)
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from web_ui import csrf
from web_ui.comfort_form import VIEWING_LABELS

MODE_LABELS: dict[OutputMode, str] = {
    OutputMode.SBS: "Side-by-side, full width (VR headsets)",
    OutputMode.HALF_SBS: "Side-by-side, half width (3D TVs)",
    OutputMode.TB: "Top-bottom, full height",
    OutputMode.HALF_TB: "Top-bottom, half height",
    OutputMode.ANAGLYPH: "Anaglyph (red/cyan glasses)",
    OutputMode.VR180: "VR180 (a half sphere per eye)",
    OutputMode.RGBD: "RGBD: picture and depth, full",
    OutputMode.HALF_RGBD: "RGBD: picture and depth, half",
}
CODEC_LABELS: dict[VideoCodec, str] = {
    VideoCodec.X264: "H.264 (plays everywhere)",
    VideoCodec.X265: "HEVC (smaller files)",
    VideoCodec.AV1: "AV1 (smallest files)",
}


# What the file pickers offer: any video, plus containers and bare streams
# browsers do not file under video/* (the media worker reads them all:
# stereo_media.ffmpeg_runner.VIDEO_DEMUXERS and stereo_media.raw_video)
SOURCE_FILE_TYPES = "video/*,.mxf,.gif,.h264,.264,.hevc,.h265,.265,.ivf,.y4m,.m2v"


def iso_utc(epoch: float | None) -> str:
    """An ISO 8601 UTC time for a ``<time datetime>`` attribute ('' for None)."""
    if epoch is None:
        return ""
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def human_duration(seconds: float | None) -> str:
    """'about 3 min' style text for an ETA ('' for None)."""
    if seconds is None:
        return ""
    s = int(round(seconds))
    if s < 60:
        return f"about {s} s"
    if s < 3600:
        return f"about {round(s / 60)} min"
    return f"about {s // 3600} h {round(s % 3600 / 60)} min"


def build_templates() -> Jinja2Templates:
    """The package's templates with its filters and option lists."""
    templates = Jinja2Templates(directory=str(files("web_ui") / "templates"))
    env = templates.env
    env.filters["iso_utc"] = iso_utc
    env.filters["human_duration"] = human_duration
    env.filters["size_words"] = size_words
    env.filters["left_out_sentence"] = left_out_sentence
    env.globals.update(
        modes=MODE_LABELS, codecs=CODEC_LABELS, layout_tags=LAYOUT_TAGS,
        anaglyph_methods=list(AnaglyphMethod), depth_models=list(DepthModel),
        source_file_types=SOURCE_FILE_TYPES,
        viewing_labels=VIEWING_LABELS, default_params=ConversionParams(),
    )
    return templates


def render(
    templates: Jinja2Templates, request: Request, name: str, context: dict | None = None,
    *, status_code: int = 200,
) -> Response:
    """Render a page with the browser's CSRF token in ``csrf_token``."""
    token = csrf.token_for(request)
    ctx = {"csrf_token": token, "csrf_field": csrf.FIELD_NAME, **(context or {})}
    response = templates.TemplateResponse(request, name, ctx, status_code=status_code)
    csrf.set_token_cookie(request, response, token)
    return response
