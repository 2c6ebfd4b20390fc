"""Depth estimators behind one interface, chosen by name.

An estimator maps RGB frames (B,3,h,w) float 0..1 to a relative depth
(B,1,h,w) where larger means nearer (numpy arrays on a CPU, where the
weight-free default never imports torch, or tensors); the scale is arbitrary (temporal
normalisation maps it to 0..1). ``iw3`` is not a frame estimator: it converts a
whole segment itself (see ``stereo_inference.iw3``).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

from shared_types.models import DepthModel
from stereo_models.depth_models import (
    best_installed,
    is_installed,
    missing_model_message,
    needs_weights,
)

from stereo_inference.arrays import concat
from stereo_inference.errors import InvalidRequestError, ModelNotInstalledError

log = logging.getLogger(__name__)


class DepthEstimator(Protocol):
    name: str
    # Frames per ``estimate`` call at most (bounds activation memory); None: any.
    max_batch: int | None

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        """The (width, height) the estimator wants its frames at."""

    def estimate(self, rgb):
        """Relative depth (B,1,h,w), larger = nearer, for frames (B,3,h,w) in 0..1
        (a numpy array or a tensor; the weight-free estimator answers in kind)."""


def estimate_in_batches(estimator: DepthEstimator, rgb):
    """``estimator.estimate`` over ``rgb`` (B,3,h,w), at most ``max_batch`` frames a call."""
    step = estimator.max_batch or rgb.shape[0]
    if step >= rgb.shape[0]:
        return estimator.estimate(rgb)
    return concat([estimator.estimate(rgb[i : i + step])
                   for i in range(0, rgb.shape[0], step)])


def input_interpolation(model: DepthModel | str) -> str:
    """The FFmpeg scaler that makes ``model``'s input frames from decoded ones.

    A learned model gets its input resized as its reference does (cubic):
    swscale's fast bilinear, fine for the weight-free default's small and
    blurred input, moves a learned model's depth away from the reference's
    (correlation 0.983-0.988 on a random Depth-Anything-V2, against 0.995-0.9999
    with bicubic: ``tests/integration/test_depth_anything_reference.py``).
    """
    return "BICUBIC" if needs_weights(str(model)) else "FAST_BILINEAR"


def prepare(model: DepthModel | str) -> None:
    """Pay ``model``'s one-time costs in this process now -- its modules -- so
    that a worker's first conversion does not (a learned model's weights still
    load on first use). Blocks; call it from a background thread."""
    if DepthModel(model) is DepthModel.HEURISTIC:
        from stereo_inference.depth import heuristic  # noqa: F401 (its imports)


def load_estimator(
    model: DepthModel | str, *, models_dir: Path | None, device, stride: int = 1
) -> DepthEstimator:
    """The estimator named ``model`` on ``device`` (a string or torch.device).

    A learned model runs on every ``stride``-th frame, the frames between
    following the optical flow (``stabilized.FlowStabilized``); 1: every frame.

    Raises ModelNotInstalledError when its weights are not in ``models_dir``,
    InvalidRequestError for an unknown name or for ``iw3`` (which is not a frame
    estimator).
    """
    try:
        model = DepthModel(model)
    except ValueError as exc:
        names = ", ".join(m.value for m in DepthModel)
        raise InvalidRequestError(f"unknown depth model {model!r}; choose one of {names}") from exc
    if model is DepthModel.HEURISTIC:
        from stereo_inference.depth.heuristic import HeuristicDepth

        return HeuristicDepth(device)
    if model is DepthModel.IW3:
        raise InvalidRequestError("iw3 converts whole segments; it is not a frame estimator")
    from stereo_inference.depth.depth_anything import DepthAnythingDepth
    from stereo_inference.depth.stabilized import FlowStabilized
    from stereo_inference.depth.video_depth_anything import VideoDepthAnythingDepth

    kind = VideoDepthAnythingDepth if model is DepthModel.VDA_SMALL else DepthAnythingDepth
    # a learned model: held steady along the optical flow between the frames it runs on
    return FlowStabilized(kind.load(model.value, models_dir=models_dir, device=device),
                          stride=stride)


def default_depth_model(models_dir: Path | None) -> DepthModel:
    """The best installed model, else heuristic (``stereo_models.depth_models``)."""
    return best_installed(models_dir)


def ensure_installed(model: DepthModel | str, models_dir: Path | None, *,
                     auto_download: bool, hub_endpoint: str | None = None) -> None:
    """Download ``model`` when it needs weights that are missing and ``auto_download``
    allows it (the first conversion that asks for a model installs it).

    Raises ModelNotInstalledError when it is missing and may not (or cannot) be
    downloaded: no models folder, downloads turned off, or the hub unreachable.
    """
    name = str(model)
    if not needs_weights(name) or is_installed(name, models_dir):
        return
    if not auto_download or models_dir is None:
        raise ModelNotInstalledError(missing_model_message(name, models_dir))
    from shared_types.errors import ModelDownloadError
    from stereo_models.model_install import download_model

    log.info("depth model %s is not installed: downloading it into %s", name, models_dir)
    try:
        download_model(name, models_dir, endpoint=hub_endpoint)
    except ModelDownloadError as exc:
        raise ModelNotInstalledError(f"{missing_model_message(name, models_dir)} ({exc})") from exc
