import json
import subprocess

import av
import numpy as np
import pytest
from shared_types.conversion import EngineRuntime
from shared_types.models import ConversionParams, OutputMode
from stereo_media.ffmpeg import ffmpeg_path

from stereo_inference import ConversionResult, convert_file
from stereo_inference.errors import InvalidInputError

from .conftest import read_video

GEOMETRY = {
    OutputMode.SBS: (320, 96),
    OutputMode.HALF_SBS: (160, 96),
    OutputMode.TB: (160, 192),
    OutputMode.HALF_TB: (160, 96),
    OutputMode.ANAGLYPH: (160, 96),
    OutputMode.VR180: (320, 160),  # a 160x160 half sphere per eye
    OutputMode.RGBD: (320, 96),
    OutputMode.HALF_RGBD: (160, 96),
}


@pytest.mark.parametrize("mode", list(OutputMode))
def test_each_mode_keeps_every_frame_the_audio_and_has_its_geometry(clip, tmp_path, mode):
    out = tmp_path / f"out_{mode}.mp4"
    result = convert_file(clip, out, mode=mode)
    source, converted = read_video(clip), read_video(out)
    assert converted["frames"] == source["frames"] == result.frames == 24
    assert converted["size"] == GEOMETRY[mode] == (result.width, result.height)
    assert converted["times"] == source["times"]
    assert converted["audio"] == 1
    assert result.depth_model == "heuristic"
    assert not list(tmp_path.glob(".*partial*"))
    # where the time went: every stage worked, and a one-thread stage no longer
    # than the call (render's busy time is summed over its threads)
    assert {"decode", "depth", "render", "encode", "mux", "codec threads"} <= set(result.stages)
    for name in ("decode", "depth", "render", "encode"):
        assert result.stages[name]["busy_s"] > 0
        assert result.stages[name]["cpu_s"] > 0
    for name in ("decode", "depth", "encode"):
        assert result.stages[name]["busy_s"] <= result.elapsed_s


def test_variable_frame_rate_timestamps_are_kept(vfr_clip, tmp_path):
    out = tmp_path / "vfr_out.mp4"
    convert_file(vfr_clip, out, mode="half-sbs")
    source, converted = read_video(vfr_clip), read_video(out)
    assert converted["times"] == source["times"]
    gaps = np.diff(converted["times"])
    assert gaps.max() > 1.5 * gaps.min()  # really irregular


@pytest.mark.parametrize("rotation", [90, 270])
def test_a_rotated_phone_video_comes_out_upright_and_side_by_side(clip, tmp_path, rotation):
    rotated = tmp_path / "rotated.mp4"
    subprocess.run(
        [ffmpeg_path(), "-loglevel", "error", "-display_rotation", str(rotation), "-i",
         str(clip), "-c", "copy", str(rotated)], check=True, timeout=60,
    )
    out = tmp_path / "rot_out.mp4"
    convert_file(rotated, out, mode="half-sbs", params=ConversionParams(divergence=0))
    converted = read_video(out)
    assert converted["rotation"] == 0 and converted["size"] == (96, 160)  # portrait, upright
    # the left eye is the picture as ffmpeg displays the source (it applies the rotation)
    shown = subprocess.run(
        [ffmpeg_path(), "-loglevel", "error", "-i", str(rotated), "-frames:v", "1",
         "-vf", "scale=48:160", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
        check=True, capture_output=True, timeout=60).stdout
    expected = np.frombuffer(shown, np.uint8).reshape(160, 48).astype(float)
    with av.open(str(out)) as c:
        left = next(c.decode(video=0)).to_ndarray(format="gray")[:, :48].astype(float)
    upright = np.abs(left - expected).mean()
    assert upright < 12 < np.abs(left - expected[::-1, ::-1]).mean()


@pytest.mark.parametrize(("mode", "size"), [
    (OutputMode.SBS, (324, 98)), (OutputMode.HALF_SBS, (162, 98)),
    (OutputMode.HALF_TB, (162, 98)), (OutputMode.ANAGLYPH, (162, 98)),
])
def test_a_source_with_odd_sides_converts_to_the_next_even_size(tmp_path, mode, size, caplog):
    """4:4:4 H.264 (or VP9, MPEG-4) may be 161x97; the 4:2:0 output rounds up, and says so."""
    odd = tmp_path / "odd.mp4"
    subprocess.run(
        [ffmpeg_path(), "-loglevel", "error", "-f", "lavfi", "-i",
         "testsrc2=size=162x98:rate=12:duration=1", "-vf", "scale=161:97", "-c:v", "libx264",
         "-preset", "ultrafast", "-pix_fmt", "yuv444p", str(odd)], check=True, timeout=60,
    )
    out = tmp_path / "odd_out.mp4"
    with caplog.at_level("WARNING", logger="stereo_inference.convert"):
        result = convert_file(odd, out, mode=mode)
    converted = read_video(out)
    assert converted["frames"] == result.frames == 12
    assert converted["size"] == size == (result.width, result.height)
    assert (f"odd.mp4 is 161x97; 4:2:0 video has no odd sizes, so the output is "
            f"{size[0]}x{size[1]}") in caplog.text


@pytest.mark.timeout(120)  # the weight-free depth once looped for ever on it
def test_a_source_of_a_few_pixels_converts_every_frame(tmp_path):
    tiny = tmp_path / "tiny.mp4"
    subprocess.run(
        [ffmpeg_path(), "-loglevel", "error", "-f", "lavfi", "-i",
         "testsrc2=size=2x2:rate=12:duration=1", "-c:v", "libx264", "-preset", "ultrafast",
         "-pix_fmt", "yuv444p", str(tiny)], check=True, timeout=60,
    )
    out = tmp_path / "tiny_out.mp4"
    result = convert_file(tiny, out, mode="sbs")
    converted = read_video(out)
    assert converted["frames"] == result.frames == 12
    assert converted["size"] == (4, 2)


def test_a_video_that_begins_after_its_audio_still_begins_there(clip, tmp_path):
    late = tmp_path / "late.mp4"  # the picture 0.5 s after the sound, as in some captures
    subprocess.run(
        [ffmpeg_path(), "-loglevel", "error", "-itsoffset", "0.5", "-i", str(clip), "-i",
         str(clip), "-map", "0:v", "-map", "1:a", "-c", "copy", str(late)],
        check=True, timeout=60,
    )
    out = tmp_path / "late_out.mp4"
    convert_file(late, out, mode="half-sbs")
    with av.open(str(out)) as c:
        starts = {s.type: float(s.start_time * s.time_base) for s in c.streams}
    assert starts["video"] - starts["audio"] == pytest.approx(0.5, abs=1 / 24)
    assert read_video(out)["frames"] == 24


def test_audio_the_container_cannot_hold_is_reencoded_to_aac(tmp_path, clip):
    source = tmp_path / "mulaw.mov"  # mp4 cannot hold mu-law audio
    subprocess.run(
        [ffmpeg_path(), "-loglevel", "error", "-i", str(clip), "-c:v", "copy",
         "-c:a", "pcm_mulaw", str(source)], check=True, timeout=60,
    )
    out = tmp_path / "mulaw_out.mp4"
    convert_file(source, out, mode="half-sbs")
    with av.open(str(out)) as c:
        assert [s.codec_context.name for s in c.streams.audio] == ["aac"]
        assert c.streams.audio[0].duration * c.streams.audio[0].time_base > 0.9
    assert read_video(out)["frames"] == 24


def test_the_result_is_json_and_its_depth_state_continues_the_next_segment(clip, tmp_path):
    first = convert_file(clip, tmp_path / "a.mp4", mode="anaglyph")
    state = json.loads(first.model_dump_json())["depth_state"]
    assert state["model"] == "heuristic"
    assert len(state["thumb"]) == 18 * 32
    second = convert_file(clip, tmp_path / "b.mp4", mode="anaglyph", depth_state=state)
    assert isinstance(second, ConversionResult)
    assert second.frames == 24


def test_progress_reports_frames_done_and_total(clip, tmp_path):
    seen = []
    convert_file(clip, tmp_path / "p.mp4", mode="tb", progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (24, 24)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_parameters_change_the_output(clip, tmp_path):
    flat = ConversionParams(divergence=0.0)
    deep = ConversionParams(divergence=5.0, convergence=1.0)
    a = read_video(convert_file(clip, tmp_path / "f.mp4", mode="sbs", params=flat) and
                   tmp_path / "f.mp4")["first"].astype(int)
    b = read_video(convert_file(clip, tmp_path / "d.mp4", mode="sbs", params=deep) and
                   tmp_path / "d.mp4")["first"].astype(int)
    # with no divergence both eyes are the same picture; with 5 % they differ
    assert np.abs(a[:, :160] - a[:, 160:]).mean() < 2
    assert np.abs(b[:, :160] - b[:, 160:]).mean() > 5


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda p: p.write_bytes(b""), "empty"),
        (lambda p: p.write_bytes(b"\x00garbage" * 500), "not a readable video"),
    ],
)
def test_zero_byte_and_corrupt_inputs_are_clear_errors(tmp_path, make, match):
    bad = tmp_path / "bad.mp4"
    make(bad)
    with pytest.raises(InvalidInputError, match=match):
        convert_file(bad, tmp_path / "o.mp4", mode="sbs")
    assert not (tmp_path / "o.mp4").exists()


def test_audio_only_input_is_a_clear_error(audio_only, tmp_path):
    with pytest.raises(InvalidInputError, match="audio-only"):
        convert_file(audio_only, tmp_path / "o.mp4", mode="sbs")


def test_an_unknown_mode_is_a_clear_error(clip, tmp_path):
    with pytest.raises(InvalidInputError, match="unknown output mode"):
        convert_file(clip, tmp_path / "o.mp4", mode="hologram")


def test_a_conversion_limited_to_one_core_gives_the_same_frames(clip, tmp_path):
    """``cores=1`` (one conversion per core on a busy machine) caps the decoder's,
    encoder's and render's threads; the output is the same video."""
    out = tmp_path / "one-core.mp4"
    result = convert_file(clip, out, mode="half-sbs", runtime=EngineRuntime(cores=1))
    assert result.frames == read_video(clip)["frames"]
    assert read_video(out)["size"] == read_video(clip)["size"]


def test_a_video_only_source_is_written_by_the_encoder_alone_playable_and_marked(
        vfr_clip, tmp_path, monkeypatch):
    """Nothing beside the picture to keep (a video-only segment): no ffmpeg mux
    pass; the encoder's MP4 has its index first and says it is side by side."""
    from stereo_media.stereo_boxes import read_st3d

    import stereo_inference.convert as convert
    from stereo_inference.mux import nothing_to_keep, source_streams

    def no_mux(*args, **kwargs):
        raise AssertionError("the final mux ran for a video-only source")

    monkeypatch.setattr(convert, "mux_output", no_mux)
    out = tmp_path / "direct.mp4"
    assert nothing_to_keep(source_streams(vfr_clip))
    result = convert_file(vfr_clip, out, mode="half-sbs")
    assert result.frames == read_video(vfr_clip)["frames"]
    assert read_video(out)["times"] == read_video(vfr_clip)["times"]
    assert read_st3d(out) is not None
    data = out.read_bytes()
    assert data.find(b"moov") < data.find(b"mdat")  # faststart


def test_a_source_with_audio_still_goes_through_the_mux(clip):
    from stereo_inference.mux import nothing_to_keep, source_streams

    assert not nothing_to_keep(source_streams(clip))


def test_a_conversion_reads_its_source_streams_once(clip, tmp_path, monkeypatch):
    """The direct-write check and the final mux share one description of the
    source (a teletext recording's costs an ffmpeg run and a page scan)."""
    import stereo_inference.convert as convert
    import stereo_inference.mux as mux

    reads = []
    real = mux.source_streams

    def counted(path):
        reads.append(path)
        return real(path)

    monkeypatch.setattr(convert, "source_streams", counted)
    monkeypatch.setattr(mux, "source_streams", counted)
    out = tmp_path / "once.mp4"
    convert_file(clip, out, mode="half-sbs")
    assert len(reads) == 1
    assert read_video(out)["audio"]


@pytest.mark.parametrize("mode", [OutputMode.HALF_SBS, OutputMode.ANAGLYPH])
def test_rendering_several_batches_at_once_gives_the_same_video(clip, tmp_path, monkeypatch,
                                                                 mode, encoded):
    """The frames handed to the encoder, in order, bit for bit."""
    import stereo_inference.convert as engine

    for count in (1, 3):
        monkeypatch.setattr(engine, "renderers", lambda device, cores, n=count: n)
        engine.convert_file(clip, tmp_path / f"r{count}.mp4", mode=mode,
                            params=ConversionParams(crf=18))
    one, several = encoded
    assert len(one) == len(several) == 24
    for a, b in zip(one, several, strict=True):
        np.testing.assert_array_equal(a, b)


def test_without_ffmpeg_a_video_only_source_still_converts_and_one_with_audio_says_why(
        vfr_clip, clip, tmp_path, monkeypatch):
    """The engine looks ffmpeg up only for the final mux (a GPU machine may have
    no ffmpeg binary: a video-only segment needs none)."""
    from shared_types.errors import FfmpegNotFoundError

    import stereo_inference.convert as convert

    def missing():
        raise FfmpegNotFoundError("ffmpeg not found")

    monkeypatch.setattr(convert, "ffmpeg_path", missing)
    result = convert_file(vfr_clip, tmp_path / "video_only.mp4", mode="half-sbs")
    assert result.frames == read_video(vfr_clip)["frames"]
    with pytest.raises(FfmpegNotFoundError):
        convert_file(clip, tmp_path / "with_audio.mp4", mode="half-sbs")
    assert not list(tmp_path.glob(".*partial*"))  # nothing half-written is left


@pytest.mark.parametrize("cores", [None, 1, 2])
def test_a_cut_off_download_converts_what_it_holds_and_says_so(tmp_path, caplog, cores):
    """A faststart MP4 cut in half still lists every frame in its index: the
    engine converts the frames there are and warns that the file is incomplete.
    Its last packet, cut mid-way, does not decode: it is skipped, whatever the
    decoder's thread count (with one or two threads it ended the decode and
    failed the conversion, as the stack's workers run it)."""
    whole = tmp_path / "whole.mp4"
    subprocess.run([ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=160x96:rate=24:duration=8", "-c:v", "libx264", "-g", "24",
                    "-movflags", "+faststart", str(whole)], check=True, timeout=60)
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    with caplog.at_level("WARNING", logger="stereo_inference.convert"):
        convert_file(whole, tmp_path / "a.mp4", mode="half-sbs")
        assert "incomplete" not in caplog.text
        result = convert_file(
            cut, tmp_path / "b.mp4", mode="half-sbs", runtime=EngineRuntime(cores=cores))
    assert 24 <= result.frames < 192
    assert "cut.mp4 ends after" in caplog.text and "of the 8.0 s its index lists" in caplog.text
    assert read_video(tmp_path / "b.mp4")["frames"] == result.frames

