"""Decoding on the GPU's NVDEC, straight into the depth stage's batch on the device.

On a GPU machine without NVENC the output is encoded by x264 on the CPU, and
FFmpeg's software decoder took 2.6-5 CPU seconds of every 300 1080p frames
from it (a fifth of what x264 itself uses) before the frames were even
uploaded. NVDEC decodes on the GPU, and through PyAV's ``cuda`` hwaccel its
frames stay there: each frame's planes are taken into torch through DLPack
and copied into a (B, H*3/2, W) batch tensor on the device, in the engine's
yuv420p layout (NVDEC's NV12 chroma de-interleaved by the copy). No CPU
scaler pass, no page-locked staging, no upload.

Used where it gives the same frames as the software path (``usable``): an
8-bit 4:2:0 stream of a codec NVDEC decodes, and no tone mapping (it runs on
host arrays). A phone's portrait video is turned upright by the copy. H.264,
HEVC, VP9 and AV1 decoding is bit-exact by their specifications, so the
pictures are the software decoder's. A frame the GPU's decoder does not take
comes back as a software frame (``allow_software_fallback``) and is copied
all the same, and the first frame marked interlaced sends the whole decode
back to the software path, which deinterlaces it (``decode.FrameReader``).

One CUDA context: FFmpeg decodes in the device's primary context, torch's,
but only if that context's flags are the ones it asks for (blocking sync:
host waits sleep); torch made it with CUDA's default flags, and FFmpeg
then refused the device ("Operation not supported"). ``usable`` sets the
flags FFmpeg wants on the primary context first (CUDA allows it on an
active context; torch's waits then sleep too, as ``arrays.settle`` already
makes its own). A context of FFmpeg's own instead would not order its
copies with torch's: frames read through DLPack came out torn.

Ordering: FFmpeg queues its copies out of NVDEC's surfaces on CUDA's legacy
default stream, which is the decoding thread's current stream in torch too,
so the batch's copies run after them; a batch is handed over only once they
are done (``arrays.settle``), so the depth stage's own stream reads whole frames.
"""

from __future__ import annotations

import ctypes
import logging
from functools import cache

import av

from stereo_inference.arrays import device_type
from stereo_inference.scaler import Scaler

log = logging.getLogger(__name__)

ENABLED = True  # off: a GPU conversion decodes in software (benchmarks compare the two)
# the decoders NVDEC runs for PyAV's cuda hwaccel (8-bit 4:2:0 in all of them)
CODECS = frozenset({"h264", "hevc", "vp8", "vp9", "av1", "mpeg1video", "mpeg2video"})
SOURCE_FORMATS = frozenset({"yuv420p", "yuvj420p"})  # what NVDEC gives as NV12
_COPIED = frozenset({"cuda", "nv12", "yuv420p", "yuvj420p"})  # frames copied plane by plane


def usable(device, *, codec: str, pix_fmt: str | None, eye_format: str,
           filtered: bool) -> bool:
    """Whether a conversion on ``device`` decodes on NVDEC: a CUDA device whose
    driver has it, an 8-bit 4:2:0 stream (``pix_fmt``) of a ``codec`` it
    decodes, 8-bit output (``eye_format``), and no eye filter between the
    decoder and the batch."""
    if not (ENABLED and device_type(device) == "cuda" and codec in CODECS
            and pix_fmt in SOURCE_FORMATS and eye_format == "yuv420p" and not filtered):
        return False
    from av.codec.hwaccel import hwdevices_available

    return "cuda" in hwdevices_available() and _shared_context(_index(device))


CU_CTX_SCHED_BLOCKING_SYNC = 4  # the primary context's flags FFmpeg asks for


@cache
def _shared_context(index: int) -> bool:
    """Whether the primary context of CUDA device ``index`` has (now) the flags
    FFmpeg's cuda device needs to share it with torch."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        device = ctypes.c_int()
        failed = (cuda.cuInit(0) or cuda.cuDeviceGet(ctypes.byref(device), index)
                  or cuda.cuDevicePrimaryCtxSetFlags_v2(device, CU_CTX_SCHED_BLOCKING_SYNC))
    except (OSError, AttributeError) as exc:  # no driver library, or an old one
        failed = exc
    if failed:
        log.warning("NVDEC left unused: the CUDA context cannot be shared (%s)", failed)
    return not failed


def _index(device) -> int:
    import torch

    device = torch.device(device)
    return device.index if device.index is not None else torch.cuda.current_device()


class DevicePlanes:
    """Frames' planes copied into batch tensors on ``device``: the device's
    counterpart of ``planes.batch_array`` and ``planes.read_into``, for the
    decoding thread. ``hwaccel`` is what the container is opened with (None on
    a CPU device, where it only copies software frames: the tests' case)."""

    def __init__(self, device) -> None:
        import torch

        self.device = torch.device(device)
        self.hwaccel = None
        self.scaler = Scaler()  # software frames of another kind (the decoding thread's)
        if self.device.type == "cuda":
            from av.codec.hwaccel import HWAccel

            index = self.device.index
            self.hwaccel = HWAccel(device_type="cuda",
                                   device=None if index is None else str(index),
                                   allow_software_fallback=True, is_hw_owned=True)

    def batch_array(self, size: tuple[int, int], frames: int):
        """An empty (frames, H*3/2, W) uint8 tensor on the device."""
        import torch

        w, h = size
        return torch.empty((frames, h * 3 // 2, w), dtype=torch.uint8, device=self.device)

    def read_into(self, frame: av.VideoFrame, out, turns: int = 0) -> None:
        """Copy ``frame`` (NVDEC's NV12 on the GPU, or a software yuv420p or nv12
        frame) into ``out`` (H*3/2, W), turned counter-clockwise by ``turns``
        quarter turns (as ``decode.rotate``), area-averaged when its size
        differs (a stream that changes size midway)."""
        h, w = out.shape[0] * 2 // 3, out.shape[1]
        if frame.format.name not in _COPIED:  # a software frame of another kind
            frame = self.scaler.frame(frame, format="yuv420p")
        luma = _plane(frame, 0)
        chroma = out[h:].view(2, h // 2, w // 2)
        if len(frame.planes) == 2:  # NV12: U and V interleaved
            uv = _plane(frame, 1).permute(2, 0, 1)
        else:
            uv = (_plane(frame, 1), _plane(frame, 2))
        if turns % 4:
            luma, uv = luma.rot90(turns), [plane.rot90(turns) for plane in uv]
        if tuple(luma.shape) == (h, w):
            out[:h].copy_(luma, non_blocking=True)
            for dst, src in zip(chroma, uv, strict=True):
                dst.copy_(src, non_blocking=True)
            return
        out[:h].copy_(_resized(luma.to(self.device), (h, w)))
        for dst, src in zip(chroma, uv, strict=True):
            dst.copy_(_resized(src.to(self.device), (h // 2, w // 2)))


def _plane(frame: av.VideoFrame, index: int):
    """Plane ``index`` of ``frame`` as a tensor, without a copy (DLPack)."""
    from torch.utils.dlpack import from_dlpack

    # (PyAV takes no consumer stream: the copies are ordered on the legacy default one)
    return from_dlpack(frame.planes[index].__dlpack__(stream=None))


def _resized(plane, size: tuple[int, int]):
    from torch.nn import functional as F  # noqa: N812

    return F.interpolate(plane[None, None].float(), size=size, mode="area").round_()[0, 0]
