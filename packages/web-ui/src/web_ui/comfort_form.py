"""The comfort and viewing fields of the create form and the preview form
(``templates/_comfort_fields.html``), read as one dependency, and the models
the create form builds from its fields (``form_model``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Form
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from shared_types.models import ComfortAction, DepthCurve, SynthesisedEye, ViewingPreset

from web_ui.errors import BadRequestError

VIEWING_LABELS = {
    ViewingPreset.VR_HEADSET: "VR headset",
    ViewingPreset.VISION_PRO: "Apple Vision Pro",
    ViewingPreset.PHONE_VR: "Phone in a VR viewer",
    ViewingPreset.TV_55: "55-inch TV at 2.5 m",
    ViewingPreset.TV_65: "65-inch TV at 3 m",
    ViewingPreset.PROJECTOR_100: "100-inch projector at 3.5 m",
    ViewingPreset.LAPTOP: "Laptop at 60 cm",
    ViewingPreset.CUSTOM: "Another screen (size below)",
}


def comfort_fields(
    auto_convergence: Annotated[bool, Form()] = False,
    foreground_scale: Annotated[float, Form(ge=0.0, le=3.0)] = 1.0,
    edge_dilation: Annotated[int, Form(ge=0, le=8)] = 0,
    ipd_offset: Annotated[float, Form(ge=-2.0, le=2.0)] = 0.0,
    floating_window: Annotated[bool, Form()] = False,
    synthesised_eye: Annotated[SynthesisedEye, Form()] = SynthesisedEye.BOTH,
    depth_curve: Annotated[DepthCurve, Form()] = DepthCurve.LINEAR,
) -> dict:
    """The comfort controls as ``ConversionParams`` fields (both forms have them)."""
    return {"auto_convergence": auto_convergence, "foreground_scale": foreground_scale,
            "edge_dilation": edge_dilation, "ipd_offset": ipd_offset,
            "floating_window": floating_window, "synthesised_eye": synthesised_eye,
            "depth_curve": depth_curve}


def viewing_fields(
    viewing: Annotated[str, Form(max_length=32)] = "",
    viewer_ipd_mm: Annotated[float, Form(ge=45.0, le=80.0)] = 63.0,
    screen_width_m: Annotated[float | None, Form(gt=0.05, le=30.0)] = None,
    viewing_distance_m: Annotated[float | None, Form(gt=0.1, le=50.0)] = None,
    comfort: Annotated[ComfortAction, Form()] = ComfortAction.REPORT,
) -> dict:
    """Where the 3D is watched (the create form): a preset sets the strength."""
    if viewing and viewing not in set(ViewingPreset):
        raise BadRequestError(f"unknown viewing {viewing!r}")
    if viewing == ViewingPreset.CUSTOM and (screen_width_m is None or viewing_distance_m is None):
        raise BadRequestError("Another screen needs its width and the viewing distance.")
    return {"viewing": viewing or None, "viewer_ipd_mm": viewer_ipd_mm,
            "screen_width_m": screen_width_m, "viewing_distance_m": viewing_distance_m,
            "comfort": comfort}


ComfortFields = Annotated[dict, Depends(comfort_fields)]
ViewingFields = Annotated[dict, Depends(viewing_fields)]


def form_model(model, **fields):
    """``model(**fields)`` for a form; what its validators refuse (an end before the
    start, a control the chosen depth lacks) is answered like a field out of range
    (400 on the page, with the reason), not as a server error."""
    try:
        return model(**fields)
    except ValidationError as exc:
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"]), "ctx": None} for e in exc.errors()]) from exc
