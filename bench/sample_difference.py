"""How far apart two runs' pictures are: the check that a faster path (two CUDA
streams, graphs, NVDEC) makes the same frames. Used by ``gpu_stages.py``."""

from __future__ import annotations

from pathlib import Path


def videos_difference(a: Path, b: Path) -> dict:
    """Mean and largest absolute difference of two videos' decoded samples, and
    the frames compared (a race between streams would show as garbage)."""
    import av
    import numpy as np

    with av.open(str(a)) as ca, av.open(str(b)) as cb:
        pairs = zip(ca.decode(video=0), cb.decode(video=0), strict=False)
        diffs = [np.abs(fa.to_ndarray(format="yuv420p").astype(np.int16)
                        - fb.to_ndarray(format="yuv420p").astype(np.int16)) for fa, fb in pairs]
    return {"frames": len(diffs), "mean_abs": round(float(np.mean([d.mean() for d in diffs])), 4),
            "max_abs": int(max(d.max() for d in diffs))}


def batches_difference(a, b) -> dict:
    """Frames and largest absolute sample difference of two ``FrameReader``s'
    batches (NVDEC's on the device against the software decoder's)."""
    import numpy as np
    from stereo_inference.arrays import to_numpy

    frames, largest = 0, 0
    for x, y in zip(a, b, strict=True):
        diff = np.abs(to_numpy(x.eyes).astype(np.int16) - to_numpy(y.eyes).astype(np.int16))
        frames, largest = frames + len(diff), max(largest, int(diff.max()))
    return {"frames": frames, "max_abs": largest}
