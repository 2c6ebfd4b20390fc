import sys
from pathlib import Path

import pytest
import torch

from stereo_inference.runtime import (
    compute_threads,
    cpu_threads,
    native_bfloat16,
    partial_path,
    resolve_device,
)


def test_the_partial_output_is_a_hidden_sibling_with_the_same_suffix():
    assert partial_path(Path("/out/seg.mkv")) == Path("/out/.seg.partial.mkv")
    assert partial_path(Path("/out/seg")) == Path("/out/.seg.partial.mp4")


def test_an_explicit_device_wins():
    assert resolve_device("cpu") == "cpu"
    assert resolve_device(torch.device("cuda", 1)) == "cuda:1"


def test_without_a_gpu_driver_the_device_is_the_cpu_and_torch_stays_unimported(monkeypatch):
    import stereo_inference.runtime as runtime

    monkeypatch.setattr(runtime, "GPU_NODES", ("/nonexistent/nvidiactl",))
    monkeypatch.delitem(sys.modules, "torch")
    assert resolve_device(None) == "cpu"
    assert "torch" not in sys.modules


def test_opencv_threads_alone_leave_torch_unimported(monkeypatch):
    import cv2

    monkeypatch.delitem(sys.modules, "torch")
    with compute_threads("cpu", 1, torch_too=False):
        assert cv2.getNumThreads() == 1
    assert "torch" not in sys.modules


def test_cpu_threads_are_restored_after_the_call():
    before = torch.get_num_threads()
    with compute_threads(torch.device("cpu"), 1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before



_FAULTS = """
import resource, sys
import numpy as np
from stereo_inference.runtime import reuse_freed_memory
if sys.argv[1] == "reuse":
    assert reuse_freed_memory() and reuse_freed_memory()  # idempotent
np.ones(8 << 20, np.uint8)  # the first time, the heap grows
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    np.ones(8 << 20, np.uint8)  # an 8 MiB per-frame buffer, written, freed
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def test_freed_frame_buffers_are_reused_not_page_faulted_in_again():
    import platform
    import subprocess

    import pytest

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("mallopt is glibc's")

    def faults(mode: str) -> int:  # a fresh process each: the setting is process-wide
        run = subprocess.run([sys.executable, "-c", _FAULTS, mode], capture_output=True,
                             text=True, check=True)
        return int(run.stdout)

    # each fresh 8 MiB buffer faults in >= 4 pages (2 MiB huge pages), 10 times
    assert faults("default") >= 10
    assert faults("reuse") < 10


def test_a_cpu_renders_one_batch_per_core_up_to_a_cap_and_a_gpu_one(monkeypatch):
    from stereo_inference import runtime

    monkeypatch.setattr(runtime.os, "cpu_count", lambda: 2)
    assert runtime.renderers("cpu", None) == 2
    assert runtime.renderers("cpu", 1) == 2  # a worker's share does not cap waiting threads
    monkeypatch.setattr(runtime.os, "cpu_count", lambda: 64)
    assert runtime.renderers("cpu", 8) == runtime.MAX_RENDERERS
    monkeypatch.setattr(runtime.os, "cpu_count", lambda: None)
    assert runtime.renderers("cpu", None) == 1
    assert runtime.renderers("cuda", 16) == runtime.renderers("cuda:1", None) == 1



BLAS_THREADS = """import ctypes, stereo_inference
with open("/proc/self/maps") as maps:
    path = next((line.split()[-1] for line in maps if "scipy_openblas" in line), None)
print(ctypes.CDLL(path).scipy_openblas_get_num_threads64_() if path else "none")
"""


@pytest.mark.parametrize(("chosen", "threads"), [(None, "1"), ("2", "2")])
def test_the_engine_loads_numpy_with_one_blas_thread_unless_the_user_chose(chosen, threads):
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if chosen:
        env["OPENBLAS_NUM_THREADS"] = chosen
    out = subprocess.run([sys.executable, "-c", BLAS_THREADS], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    if out == "none":
        pytest.skip("numpy here is not built on scipy-openblas")
    assert out == threads


@pytest.mark.parametrize(("flags", "native"), [
    ("fpu sse2 avx2 avx512f avx512bw avx512_bf16 avx512_vnni", True),  # AMD Zen 4
    ("fpu avx2 avx512f amx_bf16 amx_tile amx_int8", True),  # Intel Sapphire Rapids
    ("fpu sse2 avx2 avx512f avx512bw avx512_vnni", False),  # AVX-512 alone emulates it
    ("fpu sse2 avx2 fma", False),
])
def test_bfloat16_is_native_only_where_the_cpu_flags_say_so(tmp_path, flags, native):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: X\nflags\t\t: {flags}\n\n"
                       f"processor\t: 1\nflags\t\t: {flags}\n")
    assert native_bfloat16(cpuinfo) is native


def test_unreadable_cpu_flags_mean_no_native_bfloat16(tmp_path):
    assert native_bfloat16(tmp_path / "missing") is False
    (tmp_path / "empty").write_text("processor\t: 0\n")
    assert native_bfloat16(tmp_path / "empty") is False


def test_a_learned_model_on_a_cpu_takes_every_core_and_the_weight_free_depth_half():
    assert cpu_threads(4) == 2
    assert cpu_threads(4, learned_model=True) == 4
    assert cpu_threads(1) == 1
    assert cpu_threads(1, learned_model=True) == 1
