import json
from pathlib import Path

import pytest
from shared_types.models import ConversionParams, DepthModel
from stereo_media.stereo_boxes import read_st3d
from stereo_media.testing.media_facts import media_facts
from stereo_media.testing.rich_media import make_rich_video

from stereo_inference import convert_file
from stereo_inference.errors import EngineTransientError, ModelNotInstalledError

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
    result = convert_file(clip, out, mode="half-sbs", params=IW3, iw3_low_vram=True)
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
