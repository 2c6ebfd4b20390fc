"""What a conversion's layout and encoding options need around its renderer and
encoder: checks, the render step (cross-eyed, VR180, RGBD), the encoder
choice, the frame-rate cap and the metadata that marks the file."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from shared_types.models import CROSS_EYED_MODES, ConversionParams, OutputMode, stereo_packing
from stereo_media.hdr import HdrInfo
from stereo_media.spherical_boxes import add_vr180_metadata
from stereo_media.stereo_boxes import add_st3d

from stereo_inference import frame_rate_cap
from stereo_inference.codecs import EncoderChoice, choose_encoder
from stereo_inference.errors import InvalidRequestError
from stereo_inference.formats import RGBD_MODES
from stereo_inference.layouts import Vr180Projection, swap_halves, vr180_side
from stereo_inference.synthesis import StereoRenderer


def check_layout(mode: OutputMode, params: ConversionParams) -> None:
    """Raise InvalidRequestError for options that do not go with ``mode``."""
    if params.cross_eyed and mode not in CROSS_EYED_MODES:
        raise InvalidRequestError(f"--cross-eyed is for the side-by-side modes (sbs, half-sbs), "
                                  f"not {mode.value}")
    if params.subtitles_3d and mode in (OutputMode.VR180, *RGBD_MODES):
        raise InvalidRequestError(f"3D subtitles cannot be burnt into {mode.value}")


def renderer_class(mode: OutputMode) -> type[StereoRenderer]:
    """The renderer of ``mode``: RGBD layouts show depth instead of two views."""
    if mode in RGBD_MODES:
        from stereo_inference.rgbd import RgbdRenderer

        return RgbdRenderer
    return StereoRenderer


def render_step(mode: OutputMode, params: ConversionParams, render: Callable,
                eye: tuple[int, int], bit_depth: int) -> Callable:
    """``render`` followed by what the layout makes of its SBS frames."""
    if params.cross_eyed:
        return lambda batch: swap_halves(render(batch))
    if mode is OutputMode.VR180:
        project = Vr180Projection(eye, vr180_side(eye[0]), bit_depth=bit_depth)
        return lambda batch: project(render(batch))
    return render


def encoder_choice(params: ConversionParams, hdr: HdrInfo | None) -> EncoderChoice:
    """The encoder ``params`` ask for (an HDR source kept as HDR: 10-bit HEVC)."""
    return choose_encoder(params.codec, crf=params.crf, preset=params.preset,
                          bitrate_kbps=params.bitrate_kbps, pix_fmt=params.pix_fmt,
                          hdr_x265_params=hdr.x265_params if hdr is not None else None)


def output_fps(params: ConversionParams, fps: float) -> float:
    return min(fps, params.max_fps) if params.max_fps and fps > 0 else fps


def capped(batches, params: ConversionParams, time_base: Fraction):
    """``batches`` without the frames above ``params.max_fps`` (``frame_rate_cap``)."""
    return frame_rate_cap.capped(batches, params.max_fps, time_base)


def frames_kept(total: int | None, params: ConversionParams, fps: float) -> int | None:
    """About how many of ``total`` frames at ``fps`` the output has (for progress)."""
    if total is None or not params.max_fps or fps <= params.max_fps:
        return total
    return max(1, round(total * params.max_fps / fps))


def packing(mode: OutputMode, params: ConversionParams) -> str | None:
    return stereo_packing(mode, cross_eyed=params.cross_eyed)


def mark_file(path: Path, mode: OutputMode, params: ConversionParams) -> None:
    """Give the MP4 at ``path`` the boxes players read: ``st3d``, and ``sv3d``
    for VR180 (an MKV made from it by a stream copy carries both over)."""
    if mode is OutputMode.VR180:
        add_vr180_metadata(path)
    elif packed := packing(mode, params):
        add_st3d(path, packed)
