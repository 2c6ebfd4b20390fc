"""The ``depth_state`` a segment hands to the next: normaliser range plus the
estimator's own memory (the weight-free default keeps the last frame and its
accumulated depth), so a segment starts where the previous one stopped."""

from __future__ import annotations

from stereo_inference.depth import DepthEstimator
from stereo_inference.temporal import Normalizer, TemporalNormalizer


def resume(estimator: DepthEstimator, state: dict | None) -> TemporalNormalizer:
    """A normaliser seeded from ``state``; ``estimator`` restored from it too when
    the state came from the same model (other models keep other memories)."""
    state = state or {}
    carried = state.get("estimator")
    if carried and state.get("model") == estimator.name and hasattr(estimator, "restore"):
        estimator.restore(carried)
    return TemporalNormalizer(estimator.name, state)


def snapshot(estimator: DepthEstimator, normalizer: Normalizer) -> dict | None:
    """JSON-serialisable state after the last frame (None before any frame)."""
    state = normalizer.state()
    memory = estimator.state() if hasattr(estimator, "state") else None
    if state is not None and memory is not None:
        state["estimator"] = memory
    return state
