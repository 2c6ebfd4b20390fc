"""Where the 3D is watched, turned into pixel disparity for one output size.

A viewing is a screen ``width_m`` wide seen from ``distance_m`` by eyes
``ipd_m`` apart (a headset's is the virtual screen its player shows). Two
limits follow, each in pixels of the eye image as the file holds it (a half
layout's eye is half as wide, and is stretched to the whole screen):

- **far** (uncrossed, behind the screen): the eyes may at most look parallel,
  so the on-screen separation never exceeds the IPD; within the comfort zone
  it is also at most the separation at which the vergence angle is 1 degree
  less than the screen's;
- **near** (crossed, in front of the screen): the separation at which the
  vergence angle is 1 degree more than the screen's (the "1 degree rule").

docs/ARCHITECTURE.md ("Comfort") gives the maths and the sizes assumed for
each preset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shared_types.models import ConversionParams, ViewingPreset

COMFORT_DEGREES = 1.0  # the 1 degree rule: vergence within +-1 deg of the screen's
_INCH = 0.0254


def _tv_width(diagonal_inches: float) -> float:
    """The width in metres of a 16:9 screen of ``diagonal_inches``."""
    return diagonal_inches * _INCH * 16 / math.hypot(16, 9)


# (screen width m, viewing distance m). Headsets: the virtual screen their video
# players show by default, as assumed in docs/ARCHITECTURE.md.
PRESETS: dict[ViewingPreset, tuple[float, float]] = {
    ViewingPreset.VR_HEADSET: (3.0, 2.5),  # a 62 deg wide virtual screen
    ViewingPreset.VISION_PRO: (2.4, 2.0),  # the player's window, 62 deg wide
    ViewingPreset.PHONE_VR: (2.0, 1.0),  # a cardboard viewer's lenses: 90 deg wide
    ViewingPreset.TV_55: (_tv_width(55), 2.5),
    ViewingPreset.TV_65: (_tv_width(65), 3.0),
    ViewingPreset.PROJECTOR_100: (_tv_width(100), 3.5),
    ViewingPreset.LAPTOP: (_tv_width(15.6), 0.6),
}


@dataclass(frozen=True)
class Viewing:
    width_m: float
    distance_m: float
    ipd_m: float = 0.063

    def metres_to_px(self, eye_width: int) -> float:
        return eye_width / self.width_m

    def far_limit_m(self, *, zone: bool) -> float:
        """The largest uncrossed separation on screen: the IPD, and with ``zone``
        also the 1 degree rule's."""
        if not zone:
            return self.ipd_m
        screen = self.screen_vergence()
        far = max(0.0, screen - math.radians(COMFORT_DEGREES))
        return min(self.ipd_m, self.ipd_m - 2 * self.distance_m * math.tan(far / 2))

    def near_limit_m(self) -> float:
        """The largest crossed separation on screen within the 1 degree rule."""
        near = self.screen_vergence() + math.radians(COMFORT_DEGREES)
        return 2 * self.distance_m * math.tan(near / 2) - self.ipd_m

    def screen_vergence(self) -> float:
        """The angle (radians) between the eyes' lines of sight meeting on the screen."""
        return 2 * math.atan(self.ipd_m / (2 * self.distance_m))

    def degrees(self, disparity_px: float, eye_width: int) -> float:
        """How far (degrees) a disparity (crossed positive) moves vergence off the screen's."""
        separation = disparity_px / self.metres_to_px(eye_width)  # crossed: positive
        vergence = 2 * math.atan((self.ipd_m + separation) / (2 * self.distance_m))
        return math.degrees(vergence - self.screen_vergence())


@dataclass(frozen=True)
class Limits:
    """Pixel limits for one eye width: ``far_px`` uncrossed (hard: the IPD),
    ``zone_far_px`` and ``near_px`` (the comfort zone)."""

    far_px: float
    zone_far_px: float
    near_px: float


def viewing_of(params: ConversionParams) -> Viewing | None:
    """The viewing ``params`` names (None when none is given)."""
    if params.viewing is None:
        return None
    ipd = params.viewer_ipd_mm / 1000.0
    if params.viewing is ViewingPreset.CUSTOM:
        if params.screen_width_m is None or params.viewing_distance_m is None:
            raise ValueError("a custom viewing needs screen_width_m and viewing_distance_m")
        return Viewing(params.screen_width_m, params.viewing_distance_m, ipd)
    width, distance = PRESETS[params.viewing]
    return Viewing(width, distance, ipd)


def limits(viewing: Viewing, eye_width: int) -> Limits:
    """The limits of ``viewing`` in pixels of an eye image ``eye_width`` wide."""
    scale = viewing.metres_to_px(eye_width)
    return Limits(far_px=viewing.far_limit_m(zone=False) * scale,
                  zone_far_px=viewing.far_limit_m(zone=True) * scale,
                  near_px=viewing.near_limit_m() * scale)


def fitted_strength(lim: Limits, eye_width: int, max_pct: float) -> tuple[float, float]:
    """(divergence %, convergence) that span exactly the comfort zone: the
    farthest depth at ``zone_far_px`` behind the screen, the nearest at
    ``near_px`` in front; both scaled down together when that exceeds ``max_pct``."""
    total = lim.zone_far_px + lim.near_px
    divergence = 100.0 * total / eye_width
    if divergence > max_pct:
        divergence = max_pct
    return divergence, lim.near_px / total if total > 0 else 0.5
