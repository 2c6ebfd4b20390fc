import json
from pathlib import Path

import pytest
from shared_types.conversion import EngineRuntime
from shared_types.models import ConversionParams, DepthModel
from stereo_media.stereo_boxes import read_st3d
from stereo_media.testing.media import make_video
from stereo_media.testing.media_facts import media_facts
from stereo_media.testing.rich_media import make_rich_video

from stereo_inference import convert_file
from stereo_inference.errors import (
    EngineTransientError,
    InvalidRequestError,
    ModelNotInstalledError,
)

from .conftest import read_video

FAKE = Path(__file__).parent / "fake_iw3"
IW3 = ConversionParams(depth_model=DepthModel.IW3, divergence=3.0, convergence=0.25, crf=18)


@pytest.fixture
def fake_iw3(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(FAKE))
    monkeypatch.setenv("PYTHONPATH", str(FAKE))
    log = tmp_path / "iw3-args.json"
    monkeypatch.setenv("FAKE_IW3_LOG", str(log))
    return log


def test_iw3_gets_the_conversion_arguments_and_its_output_is_kept(fake_iw3, clip, tmp_path):
    out = tmp_path / "o.mp4"
    result = convert_file(
        clip, out, mode="half-sbs", params=IW3, runtime=EngineRuntime(iw3_low_vram=True))
    args = json.loads(fake_iw3.read_text())
    assert args["input"] == str(clip)
    assert args["half_sbs"]
    assert args["low_vram"]
    assert (args["divergence"], args["convergence"], args["crf"]) == (3.0, 0.25, 18)
    assert args["output"] != str(out)  # written to a partial name, then moved
    assert result.depth_model == "iw3"
    assert result.frames == 24
    assert read_video(out)["size"] == (160, 96)


def test_iw3_anaglyph_passes_the_method(fake_iw3, clip, tmp_path):
    params = ConversionParams.model_validate({**IW3.model_dump(), "anaglyph_method": "gray"})
    convert_file(clip, tmp_path / "o.mp4", mode="anaglyph", params=params)
    assert json.loads(fake_iw3.read_text())["anaglyph"] == "gray"


def test_the_comfort_controls_iw3_has_reach_it_under_its_own_names(fake_iw3, clip, tmp_path):
    params = ConversionParams.model_validate({
        **IW3.model_dump(), "synthesised_eye": "right", "auto_convergence": True,
        "edge_dilation": 3, "depth_curve": "near"})
    convert_file(clip, tmp_path / "o.mp4", mode="sbs", params=params)
    args = json.loads(fake_iw3.read_text())  # parsed by iw3's own option names and choices
    assert (args["synthetic_view"], args["convergence_mode"], args["edge_dilation"],
            args["mapper"]) == ("right", "sod_v1", [3], "pow2")
    convert_file(clip, tmp_path / "plain.mp4", mode="sbs", params=IW3)
    args = json.loads(fake_iw3.read_text())  # negative control: the defaults ask nothing
    assert (args["synthetic_view"], args["convergence_mode"], args["edge_dilation"],
            args["mapper"]) == ("both", "constant", [0], None)


@pytest.mark.parametrize("mode", ["sbs", "half-tb"])
def test_the_comfort_report_of_an_iw3_output_is_measured_from_its_pair(
        fake_iw3, tmp_path, monkeypatch, mode):
    """The fake moves its right view 6 px left: everything 6 px in front of the
    screen, at the borders too. The report measured from the pair says so;
    unshifted (the negative control), it says 0."""
    clip = make_video(tmp_path / "textured.mp4", seconds=1.0, size=(320, 192))
    reports = {}
    for shift in (6, 0):
        monkeypatch.setenv("FAKE_IW3_SHIFT", str(shift))
        out = tmp_path / f"o{shift}.mp4"
        result = convert_file(clip, out, mode=mode, params=IW3)
        assert result.comfort_report == tmp_path / f"o{shift}.mp4.comfort.json"
        reports[shift] = json.loads(result.comfort_report.read_text())
    assert reports[6]["eye_width"] == 320
    (shifted,), (flat,) = reports[6]["shots"], reports[0]["shots"]
    assert shifted["frames"] == flat["frames"] == 24
    assert shifted["near_px"] == pytest.approx(6, abs=1)
    assert shifted["far_px"] <= 1
    assert shifted["edge_violation_s"] == pytest.approx(1.0, abs=0.05)  # every frame
    assert flat["near_px"] <= 1 and flat["far_px"] <= 1
    assert flat["edge_violation_s"] == 0


def test_no_comfort_report_for_iw3_with_comfort_off(fake_iw3, clip, tmp_path):
    params = ConversionParams.model_validate({**IW3.model_dump(), "comfort": "off"})
    result = convert_file(clip, tmp_path / "o.mp4", mode="sbs", params=params)
    assert result.comfort_report is None
    assert not (tmp_path / "o.mp4.comfort.json").exists()


@pytest.mark.parametrize(("control", "named"), [
    ({"floating_window": True}, "floating window"),
    ({"ipd_offset": 0.5}, "IPD offset"),
    ({"foreground_scale": 1.5}, "foreground scale"),
    ({"depth_curve": "s-curve"}, "depth curve"),
    ({"viewing": "tv-55"}, "viewing preset"),
])
def test_a_control_iw3_lacks_is_refused_before_iw3_runs(fake_iw3, clip, tmp_path, control,
                                                          named):
    params = ConversionParams.model_validate({**IW3.model_dump(), **control})
    with pytest.raises(InvalidRequestError, match=f"{named} is not available with the iw3"):
        convert_file(clip, tmp_path / "o.mp4", mode="sbs", params=params)
    assert not fake_iw3.exists()  # iw3 never ran
    assert list(tmp_path.glob("*.mp4")) == []


def test_an_iw3_failure_is_transient_and_leaves_no_file(fake_iw3, clip, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_IW3_FAIL", "1")
    with pytest.raises(EngineTransientError, match="out of memory"):
        convert_file(clip, tmp_path / "o.mp4", mode="sbs", params=IW3)
    assert list(tmp_path.glob("*.mp4")) == []


def test_without_iw3_installed_the_error_says_so(clip, tmp_path):
    with pytest.raises(ModelNotInstalledError, match="GPU image"):
        convert_file(clip, tmp_path / "o.mp4", mode="sbs", params=IW3)


@pytest.mark.parametrize("suffix", [".mp4", ".mkv"])
def test_iw3_output_goes_through_the_engines_final_mux(fake_iw3, tmp_path, suffix):
    """iw3 writes one audio track and no subtitles: the kept streams come from the source."""
    source = make_rich_video(tmp_path / "rich.mp4", seconds=2.0, size=(160, 96), fps=12)
    out = tmp_path / f"o{suffix}"
    convert_file(source.path, out, mode="half-tb", params=IW3)
    facts, src = media_facts(out), media_facts(source.path)
    assert [(s.kind, s.language, s.title) for s in facts.streams if s.kind != "video"] == \
        [(s.kind, s.language, s.title) for s in src.streams if s.kind != "video"]
    assert [t for _, _, t in facts.chapters] == [c.title for c in source.chapters]
    assert facts.tags["title"] == source.metadata["title"]
    assert len(facts.cues) == len(source.cues)
    if suffix == ".mkv":
        assert facts.stereo_mode == "top_bottom"
    else:
        assert read_st3d(out) == 1  # top-bottom


def test_every_layout_and_codec_is_asked_of_iw3_with_its_own_flags(tmp_path):
    from shared_types.models import ConversionParams, OutputMode

    from stereo_inference.iw3 import iw3_command

    def argv(mode, **params):
        return iw3_command(tmp_path / "i.mp4", tmp_path / "o.mp4", mode=OutputMode(mode),
                           params=ConversionParams(**params))

    assert "--vr180" in argv("vr180") and "--half-rgbd" in argv("half-rgbd")
    assert "--rgbd" in argv("rgbd") and "--cross-eyed" in argv("half-sbs", cross_eyed=True)
    codec = argv("sbs", codec="x265")
    assert codec[codec.index("--video-codec") + 1] == "libx265"
