"""The names of the comfort controls a conversion takes (``ConversionParams``).

Only the names live here (contracts): what each does is the engine's
(``stereo_inference.shaping``, ``viewing``, ``convergence``, ``comfort_report``).
"""

from __future__ import annotations

from enum import StrEnum


class DepthCurve(StrEnum):
    """How normalised depth (0 far .. 1 near) is bent before it becomes disparity."""

    LINEAR = "linear"
    NEAR = "near"  # d**2: more depth between near things, the background flatter
    FAR = "far"  # sqrt(d): more depth between far things, near things flatter
    S_CURVE = "s-curve"  # smoothstep: the middle stretched, both ends flatter


class SynthesisedEye(StrEnum):
    """Which view is made: both halves of the disparity, or one eye all of it
    (the other eye is then the source picture itself)."""

    BOTH = "both"
    LEFT = "left"
    RIGHT = "right"


class ComfortAction(StrEnum):
    """What a conversion does about viewing comfort."""

    OFF = "off"  # no report
    REPORT = "report"  # write ``<output>.comfort.json``
    FIX = "fix"  # report, and clamp each shot into the comfort zone


class ViewingPreset(StrEnum):
    """Where the 3D is watched (``stereo_inference.viewing`` holds the sizes)."""

    VR_HEADSET = "vr-headset"
    VISION_PRO = "vision-pro"
    PHONE_VR = "phone-vr"
    TV_55 = "tv-55"
    TV_65 = "tv-65"
    PROJECTOR_100 = "projector-100"
    LAPTOP = "laptop"
    CUSTOM = "custom"
