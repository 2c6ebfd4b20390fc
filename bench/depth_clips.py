"""How good is the weight-free depth on real video clips with measured depth?

``bench/depth_real.py`` plays real photographs as synthetic camera moves; this
bench plays real videos: consecutive frames of a real camera (a real handheld
or driven path, motion blur, rolling shutter, exposure changes, sensor noise,
compression, real occlusions, a real lens) with each frame's depth measured
by a depth camera or a laser scanner (``bench/real_clips.py``; the clips,
their sources and licences in ``bench/data/real_clips/LICENCES.md``).

Each clip runs through the engine as a conversion runs it, from its first
frame (``depth_real.run_engine``: the estimator's input size, the CPU batch, the
lookahead where the engine has one); ``old`` is the engine of a git ref (main
before issue 50 by default), ``new`` the working tree, both in the same run.
Scores, over the pixels whose depth was measured (``depth_real.scores``):
ordinal pair accuracy on the clip's first frame (``first``) and over the clip
(``shot``), and flicker, where the true depth at a pixel changed by under
0.5 % from one frame to the next (a moving camera leaves fewer such pixels;
"nan" when 100 or fewer remain). Context: ``ramp`` (bottom nearest) and ``dis``
(plain DIS flow over 3 frames, ``depth_real.dis_reference``).

SPLITS: every clip is either tuning (``TUNING``) or held out (``HELD_OUT``),
decided when it is added and before any engine has run on it. A run leaves
the held-out clips out unless asked (``--held-out``): the engines are run on
them only in a final measurement, never while tuning. A clip in neither
tuple is refused until its split is decided.

    .venv/bin/python bench/depth_clips.py                   # tuning clips, old and new
    .venv/bin/python bench/depth_clips.py --held-out        # and the held-out ones (final only)
    .venv/bin/python bench/depth_clips.py --references-only --held-out   # ramp and dis only
    .venv/bin/python bench/depth_clips.py --cv-threads 1    # steadier CPU figures
    .venv/bin/python bench/depth_clips.py --crf 28          # through x264, as an upload

Prints a markdown table and summary, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np
from depth_real import (
    REPO,
    crf_of,
    engine_arguments,
    engine_options,
    extract_ref,
    run_engine,
    run_worker,
    score_all,
    summary_cells,
)
from real_clips import clips, load_clip
from upload_compression import uploaded

# Decided when the clips were added, before any engine ran on them (LICENCES.md):
# each kind of motion on both sides where the clips allow, no frame in both.
TUNING = ("redkitchen-still", "redkitchen-pan", "redkitchen-truck", "studyroom-truck",
          "kitti-dolly", "kitti-crawl")
HELD_OUT = ("redkitchen-dolly", "redkitchen-sweep", "redkitchen-turn", "studyroom-dolly",
            "kitti-slowing", "kitti-stopped")
SPLITS = ("tuning", "held out")


def split(name: str) -> str:
    if name in HELD_OUT:
        return "held out"
    if name in TUNING:
        return "tuning"
    raise ValueError(f"clip {name!r} has no split: add it to TUNING or HELD_OUT in "
                     f"bench/depth_clips.py (and LICENCES.md) before running an engine on it")


def chosen(names: list[str] | None, held_out: bool) -> list[str]:
    """The clips a run scores: those named (their splits must be decided), or
    every stored clip, the held-out ones only when asked."""
    todo = names if names is not None else clips()
    for name in todo:
        split(name)
    return [n for n in todo if held_out or split(n) != "held out"]


def frames(name: str, crf: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(rgb, depth) of a clip; with ``crf``, as an upload carries its frames
    (``upload_compression.uploaded``)."""
    return uploaded(*load_clip(name), crf, f"clip-{name}")


def worker(args) -> None:
    import cv2

    if args.cv_threads:
        cv2.setNumThreads(args.cv_threads)
    names = json.loads(args.todo)
    run_engine(load_clip(names[0])[0][:4])  # warm up (lazy imports and set-up), so the
    for name in names:                      # first clip's CPU is not charged for them
        rgb, _ = frames(name, crf_of(args))
        depth, cpu = run_engine(rgb)
        np.savez(Path(args.out) / f"{name}.npz", depth=depth, cpu=cpu)


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--clips", nargs="+", default=None, help="these clips only")
    p.add_argument("--held-out", action="store_true",
                   help="include the held-out clips (HELD_OUT); only in a final measurement")
    p.add_argument("--references-only", action="store_true",
                   help="score ramp and dis only, running no engine (to check the data)")
    engine_options(p)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    for inner in ("--out", "--todo"):  # what the worker process is given
        p.add_argument(inner, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args)
    todo = chosen(args.clips, args.held_out)
    if not todo:
        sys.exit("no clips to score: none stored under bench/data/real_clips with a split "
                 "(or all held out: --held-out)")
    rows = []
    with tempfile.TemporaryDirectory(prefix="depth-clips-") as tmp:
        versions: dict[str, Path] = {}
        if not args.references_only:
            versions = {"new": REPO}
            if args.old_ref:
                versions = {"old": extract_ref(args.old_ref, Path(tmp) / "old"), **versions}
        for label, src in versions.items():
            out = Path(tmp) / label
            out.mkdir(parents=True, exist_ok=True)
            run_worker(label, src, Path(__file__), ["--out", str(out), "--todo", json.dumps(todo),
                                                    *engine_arguments(args)])
        for name in todo:
            rgb, truth = frames(name, crf_of(args))
            seed = zlib.crc32(name.encode())  # the same pairs in any subset run
            rows.append({"clip": name, "split": split(name), "frames": len(rgb),
                         **score_all(rgb, truth, seed, Path(tmp), list(versions), name)})
    print_table(rows, list(versions))
    print(json.dumps(rows))
    return rows


def print_table(rows: list[dict], labels: list[str]) -> None:
    methods = ["ramp", "dis", *labels]
    head = ["clip", "frames", *(f"{v} {s}" for v in methods for s in ("first", "shot", "flicker")),
            *(f"{v} ms/frame" for v in labels)]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = [r["clip"] + ("" if r["split"] == "tuning" else f" ({r['split']})"), r["frames"]]
        for v in methods:
            cells += [r[v]["first"], r[v]["shot"], r[v]["flicker"]]
        cells += [r[v]["ms_per_frame"] for v in labels]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    print()
    head = ["split", "clips", *(f"{v} {s}" for v in methods
                                for s in ("first (mean/min)", "shot (mean/min)", "flicker")),
            *(f"{v} ms/frame" for v in labels)]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for part in SPLITS:
        group = [r for r in rows if r["split"] == part]
        if group:
            ms = [f"{np.mean([r[v]['ms_per_frame'] for r in group]):.2f}" for v in labels]
            print("| " + " | ".join([part, str(len(group)), *summary_cells(group, methods), *ms])
                  + " |")


if __name__ == "__main__":
    main()
