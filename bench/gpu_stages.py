"""Where a GPU conversion's time goes: each stage alone, then the whole, same run.

For issue 17's GPU goal (1080p half-SBS with the DA-V2-small architecture at
>= 0.8x the frames per second of a plain x264 transcode of the same clip, same
settings, same machine). One process measures, on one clip:

- ``transcode``: the plain transcode (decode -> libx264, same crf and preset,
  frame threads on both sides, video only) through PyAV, in a child process
  (process start included, as an ffmpeg CLI run would). PyAV's libx264 is the
  library the engine encodes with; the device machine has no ffmpeg binary.
- ``decode``: the engine's ``FrameReader`` alone, as a GPU half-SBS conversion
  sets it up (eyes at the eye size, RGB at the model's input size).
- ``encode``: the engine's ``StereoEncoder`` alone on decoded frames of the
  output size.
- ``model B=n``: the depth model's ``estimate`` alone on n frames a call.
- ``depth stage``: the estimator as a conversion wraps it (flow stabilisation)
  plus normalisation, on a batch as the decoder hands it.
- ``render``: ``StereoRenderer.render`` alone (upload, plan, warp, pack, download).
- ``convert``: ``convert_file`` end to end, with its per-stage busy seconds
  and the process's CPU seconds; ``--nvdec-ab`` also converts with the
  software decoder instead of NVDEC (``stereo_inference.nvdec``) and compares
  the two outputs.

Frames per second of each, and ratios to ``transcode``. Needs a CUDA device
for the figures that matter; runs anywhere (``--device cpu`` on a small clip is a
quick check of the script itself)::

    python3 bench/gpu_stages.py --clip clip1080.mp4 --depth depth-anything-v2-small

Prints one JSON object (and writes it to ``--out`` when given).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

# sibling scripts
from conversion_probes import GilProbe, StartupTrace
from gpu_variants import EngineSwitches, Variant, optional_module
from sample_difference import batches_difference, videos_difference
from shared_types.conversion import EngineRuntime

TRANSCODE = """
import sys, time, av
from fractions import Fraction
src, dst, crf, preset = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
with av.open(src) as inp, av.open(dst, "w", format="mp4") as out:
    vin = inp.streams.video[0]
    vin.thread_type = "AUTO"
    rate = vin.average_rate or Fraction(30)
    vout = out.add_stream("libx264", rate=rate, options={"crf": crf, "preset": preset})
    vout.width, vout.height, vout.pix_fmt = vin.width, vin.height, "yuv420p"
    vout.time_base = vin.time_base
    vout.codec_context.time_base = vin.time_base
    vout.codec_context.thread_type = "AUTO"
    n = 0
    for frame in inp.decode(vin):
        if frame.format.name != "yuv420p":
            frame = frame.reformat(format="yuv420p")
        for packet in vout.encode(frame):
            out.mux(packet)
        n += 1
    for packet in vout.encode(None):
        out.mux(packet)
print(n)
"""


def timed(fn, *, repeat: int = 2, warm_up: bool = True):
    """Median wall seconds of ``fn()`` over ``repeat`` runs (after one warm-up)."""
    if warm_up:
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--clip", type=Path, required=True)
    p.add_argument("--depth", default="depth-anything-v2-small")
    p.add_argument("--device", default="cuda")
    p.add_argument("--mode", default="half-sbs")
    p.add_argument("--crf", type=int, default=20)
    p.add_argument("--preset", default="veryfast")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--batches", default="1,4,8,16", help="model batch sizes to time")
    p.add_argument("--compile", action="store_true", help="also time torch.compile'd model")
    p.add_argument("--convert-batches", default="0",
                   help="frames a batch for the convert runs (0: the engine's default)")
    p.add_argument("--cores", default="",
                   help="also convert with these decoder/encoder thread counts (comma-separated)")
    p.add_argument("--streams-ab", action="store_true",
                   help="also convert on one CUDA stream, and compare the two outputs")
    p.add_argument("--graphs-ab", action="store_true",
                   help="also convert without CUDA graphs, and compare the outputs")
    p.add_argument("--switch-ms", default="",
                   help="also convert with these GIL switch intervals (ms, comma-separated)")
    p.add_argument("--no-x264", action="store_true",
                   help="also convert with frames made but not encoded (the pipeline's pace)")
    p.add_argument("--encode-frames", type=int, default=96,
                   help="frames the encoder alone is timed on")
    p.add_argument("--waits-ab", action="store_true",
                   help="also convert with the host spinning while it waits for the GPU")
    p.add_argument("--decoder-threads", default="",
                   help="also convert with the decoder on these many threads (comma-separated)")
    p.add_argument("--nvdec-ab", action="store_true",
                   help="also convert decoding in software, compare the outputs (and in "
                        "--pairs, time that conversion too)")
    p.add_argument("--queues", default="",
                   help="also convert with these many batches a queue between stages holds "
                        "(comma-separated; in --pairs, time those conversions too)")
    p.add_argument("--gil-probe", action="store_true",
                   help="probe the GIL's waits during each variant's last conversion "
                        "(and on the idle process first)")
    p.add_argument("--startup", action="store_true",
                   help="trace when each step of one more conversion (as shipped) first "
                        "began and ended, and profile its calling thread")
    p.add_argument("--pairs", type=int, default=0,
                   help="then time the transcode and the default conversion one after "
                        "the other this many times: the median of the pairs' ratios")
    p.add_argument("--skip", default="", help="comma-separated sections to leave out")
    p.add_argument("--ffmpeg", default=None,
                   help="ffmpeg for the engine (a video-only clip needs none)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))

    import numpy as np
    import torch
    from shared_types.models import ConversionParams, OutputMode
    from stereo_inference.convert import convert_file
    from stereo_inference.decode import FrameReader
    from stereo_inference.depth.architectures import random_depth_anything
    from stereo_inference.depth.depth_anything import DepthAnythingDepth
    from stereo_inference.depth.stabilized import FlowStabilized
    from stereo_inference.depth_state import resume
    from stereo_inference.encode import StereoEncoder, nvenc_available
    from stereo_inference.formats import eye_size, output_size
    from stereo_inference.synthesis import StereoRenderer
    from stereo_inference.video_info import probe_video

    cuda_graphs = optional_module("cuda_graphs")
    nvdec = optional_module("nvdec")

    dev = args.device
    mode = OutputMode(args.mode)
    info = probe_video(args.clip)
    frames = info.frames or round(info.duration_s * info.fps)
    w, h = info.width, info.height
    ew, eh = eye_size(mode, w, h)
    ow, oh = output_size(mode, w, h)
    results: dict = {"clip": {"size": [w, h], "frames": frames, "fps": info.fps},
                     "device": dev, "mode": mode.value, "depth": args.depth,
                     "torch": torch.__version__, "cpus": os.cpu_count()}
    if dev.startswith("cuda"):
        results["gpu"] = torch.cuda.get_device_name()
        results["nvenc"] = nvenc_available()
        if nvdec is not None:
            results["nvdec_used"] = nvdec.usable(
                dev, codec=info.codec, pix_fmt=info.pix_fmt, eye_format="yuv420p",
                filtered=False)
    fps: dict[str, float] = {}

    def record(name: str, seconds: float, n: int) -> None:
        fps[name] = round(n / seconds, 1)
        print(f"{name:28s} {n / seconds:8.1f} fps", flush=True)

    with tempfile.TemporaryDirectory(prefix="gpu-stages-") as tmp:
        work = Path(tmp)
        def transcode():
            subprocess.run([sys.executable, "-c", TRANSCODE, str(args.clip),
                            str(work / "plain.mp4"), str(args.crf), args.preset],
                           check=True, capture_output=True)
        if "transcode" not in skip:
            record("transcode", timed(transcode, repeat=args.repeat), frames)

        models = work / "models"
        random_depth_anything(args.depth).save_pretrained(models / args.depth)
        inner = DepthAnythingDepth.load(args.depth, models_dir=models, device=torch.device(dev))
        dw, dh = inner.input_size(w, h)
        results["depth_input"] = [dw, dh]

        def reader(batch: int) -> FrameReader:  # as a GPU conversion reads
            from stereo_inference.device_frames import pinned_empty

            on_gpu = dev.startswith("cuda")
            return FrameReader(args.clip, eye_size=(w, h), depth_size=None,
                               eye_format="yuv420p", batch_size=batch,
                               allocate=pinned_empty if on_gpu else np.empty)

        if "decode" not in skip:
            for batch in (1, 8):
                record(f"decode B={batch}", timed(lambda b=batch: sum(
                    len(x.eyes) for x in reader(b)), repeat=args.repeat), frames)
            if results.get("nvdec_used"):
                def nvdec_reader() -> FrameReader:  # as a GPU conversion reads with NVDEC
                    return FrameReader(args.clip, eye_size=(w, h), depth_size=None,
                                       eye_format="yuv420p", batch_size=8,
                                       nvdec=nvdec.DevicePlanes(dev))

                def on_nvdec():
                    got = sum(len(x.eyes) for x in nvdec_reader())
                    sync(dev)
                    return got
                record("decode nvdec B=8", timed(on_nvdec, repeat=args.repeat), frames)
                results["nvdec_decode_vs_software"] = batches_difference(nvdec_reader(), reader(8))
                print("nvdec_decode_vs_software", results["nvdec_decode_vs_software"],
                      flush=True)
        if not {"model", "depth", "render"} <= skip:
            sample = next(iter(reader(16)))  # 16 frames to feed the other stages

        if "encode" not in skip:  # the source's own frames at the output size
            packed = next(iter(FrameReader(args.clip, eye_size=(ow, oh), depth_size=(dw, dh),
                                           eye_format="yuv420p", batch_size=16))).eyes
            n = args.encode_frames

            def encode():
                enc = StereoEncoder(work / "enc.mp4", size=(ow, oh), fps=info.fps,
                                    time_base=Fraction(1, 15360), crf=args.crf,
                                    preset=args.preset, packing="sbs")
                for i in range(0, n, 16):
                    enc.write(packed, "yuv420p", [(i + j) * 512 for j in range(16)], [512] * 16)
                enc.close()
            record("encode", timed(encode, repeat=args.repeat), n)

        if "model" not in skip:
            from stereo_inference.device_frames import depth_input, upload

            rgb = depth_input(upload(sample.eyes, dev), (dw, dh), info.color)
            for batch in map(int, args.batches.split(",")):
                x = rgb[:batch] if batch <= len(rgb) else rgb.repeat(
                    (batch + len(rgb) - 1) // len(rgb), 1, 1, 1)[:batch]

                def model(x=x):
                    for _ in range(max(1, 32 // len(x))):
                        inner.estimate(x)
                    sync(dev)
                record(f"model B={batch}", timed(model, repeat=args.repeat),
                       max(1, 32 // len(x)) * len(x))
                if args.graphs_ab and cuda_graphs is not None and batch == 8:
                    cuda_graphs.ENABLED = False
                    record("model B=8 no graphs", timed(model, repeat=args.repeat), 32)
                    cuda_graphs.ENABLED = True
            if args.compile and dev.startswith("cuda"):
                if cuda_graphs is not None:  # (a graph would replay the uncompiled model)
                    cuda_graphs.ENABLED = False
                inner.model = inner.model.to(memory_format=torch.channels_last)
                x = rgb[:8]

                def channels_last(x=x):
                    for _ in range(4):
                        inner.estimate(x)
                    sync(dev)
                record("model B=8 channels_last", timed(channels_last, repeat=args.repeat), 32)
                inner.model = inner.model.to(memory_format=torch.contiguous_format)
                start = time.perf_counter()
                inner.model = torch.compile(inner.model)
                x = rgb[:8]
                inner.estimate(x)
                sync(dev)
                results["compile_s"] = round(time.perf_counter() - start, 1)

                def compiled(x=x):
                    for _ in range(4):
                        inner.estimate(x)
                    sync(dev)
                record("model B=8 compiled", timed(compiled, repeat=args.repeat), 32)
                inner.model = inner.model._orig_mod
                if cuda_graphs is not None:
                    cuda_graphs.ENABLED = True

        params = ConversionParams(depth_model=args.depth, crf=args.crf, preset=args.preset)
        if "depth" not in skip:
            for batch in (1, 8):
                def depth_stage(batch=batch):
                    est = FlowStabilized(inner)
                    renderer = StereoRenderer(mode, params, est, resume(est, None), dev,
                                              eye_size=(ew, eh), color=info.color)
                    renderer.use_opencv = False  # the device path, on a CPU too
                    for _ in range(2):
                        for i in range(0, 16, batch):
                            sample.depth = None
                            sub = _sub(sample, i, batch)
                            renderer.estimate(sub)
                    sync(dev)
                record(f"depth stage B={batch}", timed(depth_stage, repeat=args.repeat), 32)

        if "render" not in skip:
            est = FlowStabilized(inner)
            renderer = StereoRenderer(mode, params, est, resume(est, None), dev,
                                      eye_size=(ew, eh), color=info.color)
            renderer.use_opencv = False
            for batch in (1, 8):
                subs = [_sub(sample, i, batch) for i in range(0, 16, batch)]
                for sub in subs:
                    renderer.estimate(sub)

                def render(subs=subs):
                    for _ in range(2):
                        for sub in subs:
                            renderer.render(sub)
                    sync(dev)
                record(f"render B={batch}", timed(render, repeat=args.repeat), 32)

        if "convert" not in skip:
            cuda_streams = optional_module("cuda_streams")
            variants = [Variant(f"convert B={b}" if b else "convert", batch=b)
                        for b in map(int, args.convert_batches.split(","))]
            if args.streams_ab and cuda_streams is not None:
                variants.append(Variant("convert one stream", streams=False))
            if args.graphs_ab and cuda_graphs is not None:
                variants.append(Variant("convert no graphs", graphs=False))
            variants += [Variant(f"convert cores={n}", cores=int(n))
                         for n in filter(None, args.cores.split(","))]
            variants += [Variant(f"convert switch={ms}ms", switch_ms=float(ms))
                         for ms in filter(None, args.switch_ms.split(","))]
            if args.no_x264:
                variants.append(Variant("convert no x264", encode=False))
            if args.waits_ab:
                variants.append(Variant("convert spinning waits", sleeping_waits=False))
            if args.nvdec_ab and nvdec is not None:
                variants.append(Variant("convert software decode", nvdec=False))
            variants += [Variant(f"convert decoder threads={n}", decoder_threads=int(n))
                         for n in filter(None, args.decoder_threads.split(","))]
            queued = [Variant(f"convert queues={n}", queues=int(n))
                      for n in filter(None, args.queues.split(","))]
            variants += queued
            import stereo_inference.convert as converting

            switches = EngineSwitches((w, h))
            apply = switches.apply
            for v in variants:
                apply(v)
                stages = []
                out = work / f"{v.name.replace(' ', '_')}.mp4"

                def convert(stages=stages, out=out, cores=v.cores):
                    cpu, start, written = _cpu_s(), time.perf_counter(), []
                    result = convert_file(
                        args.clip, out, mode=mode, params=params,
                        progress=lambda n, total: written.append(time.perf_counter()),
                        runtime=EngineRuntime(models_dir=models, device=dev,
                                              ffmpeg=args.ffmpeg, cores=cores))
                    end = time.perf_counter()
                    # when x264 took its first batch and its last, and when the file was done
                    stages.append({**result.stages, "process_cpu_s": round(_cpu_s() - cpu, 2),
                                   "timeline_s": [round(t - start, 3)
                                                  for t in (written[0], written[-1], end)]})
                record(v.name, timed(convert, repeat=args.repeat), frames)
                results[f"{v.name} stages"] = stages[-1]
                if args.gil_probe:
                    if "gil idle" not in results:
                        with GilProbe() as probe:
                            time.sleep(1.0)
                        results["gil idle"] = probe.summary()
                    with GilProbe() as probe:
                        convert()
                    results[f"{v.name} gil"] = probe.summary()
                    print(f"{v.name} gil", results[f"{v.name} gil"], flush=True)
            apply(Variant("as shipped"))
            if args.startup:
                import cProfile
                import io
                import pstats

                with StartupTrace(converting) as trace:
                    profile = cProfile.Profile()
                    profile.runcall(convert_file, args.clip, work / "startup.mp4", mode=mode,
                                    params=params,
                                    runtime=EngineRuntime(models_dir=models, device=dev,
                                                          ffmpeg=args.ffmpeg))
                results["startup"] = trace.ordered()
                for step, span in results["startup"].items():
                    print(f"startup {step:32s} {span[0]:7.3f} {span[1]:7.3f}", flush=True)
                text = io.StringIO()
                pstats.Stats(profile, stream=text).sort_stats("cumulative").print_stats(45)
                if args.out:
                    args.out.with_name("startup_profile.txt").write_text(text.getvalue())
            if args.pairs:  # each ratio from two runs seconds apart: the machine's drift cancels
                paired = [Variant("as shipped")]
                if args.nvdec_ab and nvdec is not None:
                    paired.append(Variant("software decode", nvdec=False))
                paired += [Variant(v.name.removeprefix("convert "), queues=v.queues)
                           for v in queued if switches.queues is not None]
                ratios: dict[str, list[float]] = {v.name: [] for v in paired}
                for _ in range(args.pairs):
                    plain = timed(transcode, repeat=1, warm_up=False)
                    for v in paired:
                        apply(v)
                        ours = timed(lambda: convert_file(
                            args.clip, work / "pair.mp4", mode=mode, params=params,
                            runtime=EngineRuntime(models_dir=models, device=dev,
                                                  ffmpeg=args.ffmpeg)),
                                     repeat=1, warm_up=False)
                        ratios[v.name].append(round(plain / ours, 3))
                    apply(Variant("as shipped"))
                for name, got in ratios.items():
                    key = "pairs" if name == "as shipped" else f"pairs {name}"
                    results[key] = {"ratios": got, "median": round(statistics.median(got), 3)}
                    print(key, results[key], flush=True)
            if args.streams_ab and cuda_streams is not None:  # the same picture either way
                results["streams_vs_one_stream"] = videos_difference(
                    work / "convert.mp4", work / "convert_one_stream.mp4")
            if cuda_graphs is not None:  # signatures replayed from graphs
                from stereo_inference.depth import stabilized

                results["graphs_recorded"] = {"model": inner._forward.recorded,
                                              "stabiliser": stabilized._KEYFRAMES.recorded}
            if args.nvdec_ab and nvdec is not None:  # NVDEC decodes the same pictures
                results["nvdec_vs_software"] = videos_difference(
                    work / "convert.mp4", work / "convert_software_decode.mp4")
            if args.graphs_ab and cuda_graphs is not None:
                results["graphs_vs_none"] = videos_difference(
                    work / "convert.mp4", work / "convert_no_graphs.mp4")
    if "transcode" in fps:
        results["vs_transcode"] = {k: round(v / fps["transcode"], 3) for k, v in fps.items()}
    results["fps"] = fps
    text = json.dumps(results, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text)
    return results


def _cpu_s() -> float:
    """CPU seconds of this process so far, all its threads."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _sub(batch, start: int, size: int):
    from stereo_inference.decode import FrameBatch

    end = start + size
    return FrameBatch(depth_rgb=None, eyes=batch.eyes[start:end],
                      pts=batch.pts[start:end], durations=batch.durations[start:end],
                      time_base=batch.time_base)


if __name__ == "__main__":
    main()
