import subprocess
import sys

from stereo_inference.progress_bar import progress_bar


def test_the_bar_draws_frames_done_of_frames_known(capsys):
    with progress_bar(enabled=True) as update:
        update(3, None)  # the total is not known yet
        update(10, 10)
    assert "10/10" in capsys.readouterr().out


def test_without_a_bar_rich_is_never_imported():
    # rich's import is ~0.1 s of a short conversion's start-up
    code = ("import sys\n"
            "from stereo_inference.progress_bar import progress_bar\n"
            "with progress_bar(enabled=False) as update:\n"
            "    assert update is None\n"
            "print('rich' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert done.stdout.strip() == "False"
