"""Which files a folder run takes, where each goes, and its manifest."""

from pathlib import Path

from shared_types.models import Container, ConversionParams, OutputMode

from local_stack.folder_convert import FolderRequest, Manifest, output_for, videos_under


def _tree(root: Path) -> None:
    for name in ["b.MP4", "a.mkv", "sub/c.mov", "notes.txt", ".hidden.mp4",
                 ".stereo-spot-x/d.mp4", "3d/a_Half_SBS.mp4"]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"x")


def test_videos_are_found_recursively_in_order_leaving_out_hidden_and_the_output(tmp_path):
    _tree(tmp_path)
    found = [p.relative_to(tmp_path).as_posix()
             for p in videos_under(tmp_path, leave_out=tmp_path / "3d")]
    assert found == ["a.mkv", "b.MP4", "sub/c.mov"]
    # negative control: without leave_out the output folder's videos are inputs too
    assert "3d/a_Half_SBS.mp4" in [p.relative_to(tmp_path).as_posix()
                                   for p in videos_under(tmp_path)]


def test_each_output_keeps_its_sub_folder_and_says_its_layout(tmp_path):
    request = FolderRequest(tmp_path / "in", tmp_path / "out", OutputMode.VR180,
                            ConversionParams(), Container.MKV)
    assert output_for(tmp_path / "in/sub/c.mov", request) == (
        tmp_path / "out/sub/c_180x180_3dh_LR.mkv")


def test_the_manifest_survives_a_reload(tmp_path):
    source = tmp_path / "a.mp4"
    source.write_bytes(b"12345")
    Manifest(tmp_path).record("a.mp4", source, tmp_path / "a_3d.mp4", OutputMode.SBS)
    again = Manifest(tmp_path)
    assert again.done["a.mp4"]["source_size"] == 5 and again.done["a.mp4"]["mode"] == "sbs"
    (tmp_path / ".stereo-spot-done.json").write_text("{broken")
    assert Manifest(tmp_path).done == {}  # a damaged manifest: outputs still decide
