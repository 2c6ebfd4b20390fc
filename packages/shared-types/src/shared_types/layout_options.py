"""The layout and encoding options both ``convert`` commands take (``stereo-spot``
and ``stereo-inference``), turned into ``ConversionParams`` fields the same way."""

from __future__ import annotations

import argparse

from shared_types.models import PixelFormat, VideoCodec


def _choices(enum) -> dict:
    return {"type": enum, "choices": list(enum), "metavar": "{" + ",".join(enum) + "}"}


def add_layout_options(parser: argparse.ArgumentParser) -> None:
    """Add --cross-eyed, --codec, --pix-fmt, --bitrate, --max-fps, --start and --end
    to ``parser`` (the last two cut the source: ``stereo_media.source_cut``)."""
    parser.add_argument("--cross-eyed", action="store_true",
                        help="sbs/half-sbs: the right view on the left, for cross-eyed viewing")
    parser.add_argument("--codec", default=VideoCodec.X264, **_choices(VideoCodec),
                        help="video codec (default x264; av1 is SVT-AV1)")
    parser.add_argument("--pix-fmt", default=None, **_choices(PixelFormat),
                        help="8-bit or 10-bit 4:2:0 (default: 8-bit, 10-bit for HDR kept)")
    parser.add_argument("--bitrate", type=int, default=None, metavar="KBPS",
                        help="average bitrate in kbit/s instead of constant quality (--crf)")
    parser.add_argument("--max-fps", type=float, default=None, metavar="FPS",
                        help="leave out frames above this rate (a 60 fps source at 30)")
    parser.add_argument("--start", type=float, default=None, metavar="SECONDS",
                        help="convert from this time of the source (default: its beginning)")
    parser.add_argument("--end", type=float, default=None, metavar="SECONDS",
                        help="convert up to this time of the source (default: its end)")


def layout_params(args: argparse.Namespace) -> dict:
    """The ``ConversionParams`` fields of the options ``add_layout_options`` added."""
    return {"cross_eyed": args.cross_eyed, "codec": args.codec, "pix_fmt": args.pix_fmt,
            "bitrate_kbps": args.bitrate, "max_fps": args.max_fps}
