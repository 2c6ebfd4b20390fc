"""``stereo-spot convert --segment-seconds 4 --subtitles-3d``: cues burned in 3D across cuts."""

import subprocess
from pathlib import Path

import av
import numpy as np
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.testing.media_facts import media_facts
from stereo_media.testing.rich_media import Cue, make_rich_video
from stereo_media.testing.stereo_offset import horizontal_offset

W, H, FPS = 320, 180, 12
CUE = Cue(3.5, 4.6, "NEAR TEXT")  # spans the cut at 4 s (8 s in two 4 s segments)


def test_a_cue_across_a_segment_cut_is_burned_in_front_in_both_segments(
    tmp_path: Path, stack_env, run_cli
):
    # dimmed so only the burned text is white; a keyframe every second
    scene = make_rich_video(tmp_path / "scene.mp4", seconds=8.0, size=(W, H), fps=FPS,
                            cues=(CUE,), chapters=(), audio=(),
                            video_filter="lutyuv=y=val*0.7")
    out = tmp_path / "out.mp4"
    result = run_cli(["convert", str(scene.path), "-o", str(out), "--mode", "sbs",
                      "--divergence", "5", "--convergence", "1", "--subtitles-3d",
                      "--workers", "2", "--segment-seconds", "4"],
                     stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "2 segment(s)" in result.stdout
    with av.open(str(out)) as c:
        frames = {round(float(f.pts * f.time_base) * FPS): f.to_ndarray(format="gray")
                  for f in c.decode(video=0)}
    # one frame of the cue in the first segment, one in the second
    for n in (int(3.75 * FPS), int(4.25 * FPS)):
        text_left, text_right = frames[n][:, :W] > 200, frames[n][:, W:] > 200
        assert text_left.sum() > 50 and text_right.sum() > 50, n  # burned, in both views
        rows = np.nonzero(text_left.any(axis=1))[0]
        band = slice(rows.min(), rows.max() + 1)
        text = horizontal_offset(text_left[band].astype(float), text_right[band].astype(float))
        objects = [horizontal_offset(frames[m][band, :W].astype(float),
                                     frames[m][band, W:].astype(float))
                   for m in (int(3.3 * FPS), int(4.8 * FPS))]  # just before and after the cue
        assert min(objects) > 0
        assert text > max(objects), (n, text, objects)
    assert (frames[int(5.5 * FPS)][:, :W] > 200).sum() <= 5  # nothing burned after the cue
    cues = media_facts(out).cues  # the track itself is still whole, for players
    assert [(round(a, 3), round(b, 3)) for a, b in cues] == [(3.5, 4.6)]


def test_over_b_frames_the_text_shows_on_the_cues_own_frames(tmp_path: Path, stack_env, run_cli):
    # x264 with B-frames: the MP4's edit list puts the first frame at 0, stream-copied
    # segments keep the raw times two frames later; the cues must move with them
    plain = make_rich_video(tmp_path / "plain.mp4", seconds=4.0, size=(W, H), fps=FPS,
                            cues=(Cue(2.0, 3.0, "ON TIME"),), chapters=(), audio=(),
                            video_filter="lutyuv=y=val*0.7")
    scene = tmp_path / "bframes.mp4"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-i", str(plain.path),
                    "-map", "0", "-c:v", "libx264", "-bf", "3", "-preset", "medium",
                    "-g", str(FPS), "-c:s", "copy", str(scene)], check=True, timeout=120)
    out = tmp_path / "out.mp4"
    result = run_cli(["convert", str(scene), "-o", str(out), "--subtitles-3d", "--workers", "1",
                      "--segment-seconds", "1"], stack_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr + result.stdout
    with av.open(str(out)) as c:
        lit = [i for i, f in enumerate(c.decode(video=0))
               if (f.to_ndarray(format="gray") > 200).sum() > 50]
    assert (lit[0], lit[-1]) == (2 * FPS, 3 * FPS - 1), lit  # 2.0 s up to, not at, 3.0 s
