"""The models page, its download action, and ``GET /api/models`` (what the page polls)."""

from __future__ import annotations

from dataclasses import asdict

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from shared_types.errors import NotFoundError
from stereo_models.depth_models import CATALOG, best_installed, installed_bytes, is_installed

from web_ui.dependencies import SAFE_FORM, SettingsDep, TemplatesDep
from web_ui.settings import WebSettings
from web_ui.templating import render

router = APIRouter()


def model_rows(request: Request, settings: WebSettings) -> list[dict]:
    """Every downloadable model: installed first (best first), with its download state."""
    default = best_installed(settings.models_dir)
    states = request.app.state.model_downloads.states()
    rows = []
    for card in sorted(CATALOG.values(), key=lambda c: -c.quality):
        installed = is_installed(card.name, settings.models_dir)
        state = states.get(card.name)
        rows.append({
            "name": card.name, "licence": card.licence, "installed": installed,
            "is_default": card.name == default,
            "size_mb": round(installed_bytes(card.name, settings.models_dir) / 1e6)
            if installed else card.size_mb,
            "download": asdict(state) if state and not installed else None,
        })
    return sorted(rows, key=lambda r: not r["installed"])


@router.get("/models", include_in_schema=False)
def models_page(request: Request, settings: SettingsDep, templates: TemplatesDep) -> Response:
    return render(templates, request, "models.html", {
        "rows": model_rows(request, settings), "models_dir": settings.models_dir,
        "heuristic_default": best_installed(settings.models_dir) == "heuristic"})


@router.post("/models/{name}/download", include_in_schema=False, dependencies=SAFE_FORM)
def download(name: str, request: Request) -> Response:
    if name not in CATALOG:
        raise NotFoundError(f"no model called {name!r}")
    request.app.state.model_downloads.start(name)
    return RedirectResponse("/models", status_code=303)


@router.get("/api/models", tags=["models"])
def list_models(request: Request, settings: SettingsDep) -> list[dict]:
    """Depth models: installed?, default, size, licence, and any download in progress."""
    return model_rows(request, settings)
