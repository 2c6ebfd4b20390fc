import pytest
from shared_types.models import DepthModel

from stereo_models.default_depth import (
    FIRST_MODEL,
    choices_line,
    choose_default_depth,
    cpu_estimates,
    duration_words,
)


def installed(models_dir, name):
    folder = models_dir / name
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"0")


def never(*_):
    raise AssertionError("not to be asked")


def choose(models_dir, *, gpu, online, auto_download=True, **kw):
    return choose_default_depth(models_dir, has_gpu=lambda: gpu, auto_download=auto_download,
                                hub_answers=lambda name: online, **kw)


def test_an_installed_model_is_the_default_and_nothing_is_asked(tmp_path):
    installed(tmp_path, "distill-any-depth-small")
    choice = choose_default_depth(tmp_path, has_gpu=never, auto_download=True,
                                  hub_answers=never, measure=never)
    assert choice.model is DepthModel.DAD_SMALL
    assert not choice.download and choice.notice is None


def test_a_gpu_online_downloads_the_first_model(tmp_path):
    choice = choose(tmp_path, gpu=True, online=True, measure=never)
    assert (choice.model, choice.download) == (FIRST_MODEL, True)
    assert "downloading it for its first use" in choice.notice


def test_a_cpu_online_keeps_the_weight_free_default_with_both_times(tmp_path):
    choice = choose(tmp_path, gpu=False, online=True, measure=lambda: (600, 1280 * 720),
                    cores=2)
    assert (choice.model, choice.download, choice.notice) == (DepthModel.HEURISTIC, False, None)
    heuristic, model = choice.estimates
    assert heuristic.model == "heuristic" and model.model == FIRST_MODEL.value
    assert 50 < model.seconds / heuristic.seconds < 500  # the model is ~100x slower


@pytest.mark.parametrize(("online", "auto_download"), [(False, True), (True, False)])
def test_without_a_model_to_be_had_the_default_runs_and_says_how_to_install_one(
        tmp_path, online, auto_download):
    for gpu in (True, False):
        choice = choose(tmp_path, gpu=gpu, online=online, auto_download=auto_download)
        assert choice.model is DepthModel.HEURISTIC and not choice.download
        assert "stereo-spot models download depth-anything-v2-small" in choice.notice
        assert "\n" not in choice.notice


def test_without_a_models_folder_the_hub_is_not_asked():
    choice = choose_default_depth(None, has_gpu=lambda: True, auto_download=True,
                                  hub_answers=never)
    assert choice.notice is not None and choice.model is DepthModel.HEURISTIC


def test_estimates_scale_with_frames_and_cores_and_need_a_length():
    one = cpu_estimates(100, 1280 * 720, 2)
    assert cpu_estimates(200, 1280 * 720, 2)[1].seconds == pytest.approx(2 * one[1].seconds)
    assert cpu_estimates(100, 1280 * 720, 4)[1].seconds == pytest.approx(one[1].seconds / 2)
    assert cpu_estimates(None, 1280 * 720) == ()
    assert choices_line((), pick="x") is None


@pytest.mark.parametrize(("seconds", "words"), [
    (0.2, "about 1 s"), (75, "about 75 s"), (600, "about 10 min"), (3900, "about 65 min"),
    (54000, "about 15 h 0 min")])
def test_durations_read_as_estimates(seconds, words):
    assert duration_words(seconds) == words
