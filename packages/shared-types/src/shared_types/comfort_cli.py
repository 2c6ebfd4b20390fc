"""The comfort and viewing options, one definition for every command line
(``stereo-inference convert``, ``stereo-spot convert``), so each takes the
same names, defaults and help, and builds the same ``ConversionParams``."""

from __future__ import annotations

import argparse

from shared_types.models import (
    AnaglyphMethod,
    ComfortAction,
    ConversionParams,
    DepthCurve,
    SynthesisedEye,
    ViewingPreset,
)


def _choices(enum) -> dict:
    return {"choices": [m.value for m in enum], "metavar": "{" + ",".join(enum) + "}"}


def add_comfort_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the strength, comfort and viewing options to a convert parser."""
    parser.add_argument("--divergence", type=float, default=None,
                        help="max disparity, %% of width (default 2, or the --viewing "
                             "preset's strength)")
    parser.add_argument("--convergence", type=float, default=None,
                        help="screen plane 0 near .. 1 far (default 0.5, or the preset's)")
    parser.add_argument("--anaglyph-method", default="dubois", **_choices(AnaglyphMethod))
    parser.add_argument("--auto-convergence", action="store_true",
                        help="set the screen plane per shot from the depth (smoothed within "
                             "a shot, reset at cuts)")
    parser.add_argument("--foreground-scale", type=float, default=1.0,
                        help="multiply the disparity of what is in front of the screen "
                             "(0..3, default 1)")
    parser.add_argument("--edge-dilation", type=int, default=0,
                        help="grow near depth into its edges by N depth pixels (0..8)")
    parser.add_argument("--ipd-offset", type=float, default=0.0,
                        help="add this disparity everywhere, %% of width (-2..2; + = further)")
    parser.add_argument("--floating-window", action="store_true",
                        help="mask the frame edge that something in front of the screen crosses")
    parser.add_argument("--synthesised-eye", "--synthesized-eye", default="both",
                        help="which view is made; the other is the source (default both)",
                        **_choices(SynthesisedEye))
    parser.add_argument("--depth-curve", default="linear", **_choices(DepthCurve),
                        help="bend depth before it becomes disparity")
    parser.add_argument("--viewing", default=None, **_choices(ViewingPreset),
                        help="where it is watched: fits the strength to that screen and "
                             "keeps far things within the eyes' spacing")
    parser.add_argument("--ipd", type=float, default=63.0, metavar="MM",
                        help="the viewer's interpupillary distance (default 63 mm)")
    parser.add_argument("--screen-width", type=float, default=None, metavar="METRES",
                        help="--viewing custom: the screen's width")
    parser.add_argument("--viewing-distance", type=float, default=None, metavar="METRES",
                        help="--viewing custom: the distance to the screen")
    parser.add_argument("--comfort", default="report", **_choices(ComfortAction),
                        help="report: write <output>.comfort.json (per shot); fix: also "
                             "clamp each shot into the comfort zone; off")


def comfort_params(args: argparse.Namespace) -> dict:
    """The ``ConversionParams`` fields the options of ``add_comfort_arguments`` set.
    A preset sets the strength unless --divergence or --convergence is given."""
    given = {k: v for k, v in (("divergence", args.divergence),
                               ("convergence", args.convergence)) if v is not None}
    return {
        **given,
        "anaglyph_method": args.anaglyph_method,
        "auto_convergence": args.auto_convergence,
        "foreground_scale": args.foreground_scale,
        "edge_dilation": args.edge_dilation,
        "ipd_offset": args.ipd_offset,
        "floating_window": args.floating_window,
        "synthesised_eye": args.synthesised_eye,
        "depth_curve": args.depth_curve,
        "viewing": args.viewing,
        "viewer_ipd_mm": args.ipd,
        "screen_width_m": args.screen_width,
        "viewing_distance_m": args.viewing_distance,
        "fit_strength": not given,
        "comfort": args.comfort,
    }


def params_from_args(args: argparse.Namespace, **fields) -> ConversionParams:
    """``ConversionParams`` from the parsed options plus ``fields`` (ValueError
    with pydantic's words when a value is out of range)."""
    return ConversionParams(**{**comfort_params(args), **fields})
