"""Decoding on the GPU's NVDEC against FFmpeg's software decoder (issue 17).

On a GPU machine without NVENC the encoder is x264 on the CPU, and the
software decoder's frame threads take cores from it (~5 CPU seconds for
300 1080p frames on a 16-core H100 machine). This says whether NVDEC, through
PyAV's ``cuda`` hwaccel, is there and what it would save: each variant decodes
the whole clip and reports frames per second and the process's CPU seconds.

- ``software``: FFmpeg's decoder, automatic frame threads, planes to numpy
  (what ``FrameReader`` reads today);
- ``nvdec download``: NVDEC, each frame copied back to host memory (NV12);
- ``nvdec on device``: NVDEC, frames kept on the GPU and taken into torch
  through DLPack (Y and interleaved UV planes), copied into one batch tensor.

A variant that cannot run says why (no ``libnvcuvid`` in the driver, say)::

    python3 bench/nvdec_decode.py --clip clip1080.mp4
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _measure(name: str, decode, frames_expected: int | None) -> dict:
    start, cpu = time.perf_counter(), _cpu()
    try:
        frames, detail = decode()
    except Exception as exc:  # noqa: BLE001 -- the reason is the result
        return {"variant": name, "error": f"{type(exc).__name__}: {exc}"}
    wall = time.perf_counter() - start
    out = {"variant": name, "frames": frames, "fps": round(frames / wall, 1),
           "cpu_s": round(_cpu() - cpu, 2), **detail}
    if frames_expected is not None and frames != frames_expected:
        out["warning"] = f"{frames} frames, the software decoder gave {frames_expected}"
    return out


def software(path: Path):
    import av

    def run():
        n = 0
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            for frame in container.decode(stream):
                frame.to_ndarray(format="yuv420p")
                n += 1
        return n, {}
    return run


def nvdec(path: Path, *, on_device: bool):
    import av
    from av.codec.hwaccel import HWAccel

    def run():
        hw = HWAccel(device_type="cuda", allow_software_fallback=False,
                     is_hw_owned=on_device)
        n, detail = 0, {}
        batch = None
        with av.open(str(path), hwaccel=hw) as container:
            stream = container.streams.video[0]
            for frame in container.decode(stream):
                if on_device:
                    import torch
                    from torch.utils.dlpack import from_dlpack

                    # (PyAV hands no stream over: the capsule, after a sync)
                    torch.cuda.synchronize()
                    y = from_dlpack(frame.planes[0].__dlpack__(stream=None))
                    uv = from_dlpack(frame.planes[1].__dlpack__(stream=None))
                    if batch is None:
                        detail = {"format": frame.format.name, "y": [str(y.device), list(y.shape)],
                                  "uv": list(uv.shape)}
                        batch = torch.empty((8, y.numel() + uv.numel()), dtype=torch.uint8,
                                            device=y.device)
                    slot = batch[n % 8]
                    slot[:y.numel()].copy_(y.reshape(-1))
                    slot[y.numel():].copy_(uv.reshape(-1))
                else:
                    if not detail:
                        detail = {"format": frame.format.name}
                    frame.to_ndarray()
                n += 1
        if on_device:
            torch.cuda.synchronize()
        return n, detail
    return run


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--clip", type=Path, required=True)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args(argv)
    import av
    from av.codec.hwaccel import hwdevices_available

    results = [{"pyav": av.__version__, "hwdevices": list(hwdevices_available())}]
    expected = None
    for _ in range(args.repeat):
        for name, decode in (("software", software(args.clip)),
                             ("nvdec download", nvdec(args.clip, on_device=False)),
                             ("nvdec on device", nvdec(args.clip, on_device=True))):
            result = _measure(name, decode, expected)
            if name == "software" and "frames" in result:
                expected = result["frames"]
            results.append(result)
            print(json.dumps(result), flush=True)
    return results


if __name__ == "__main__":
    main()
