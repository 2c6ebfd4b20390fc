from pathlib import Path

from shared_types.testing.import_graph import find_cycles

import video_worker


def test_the_packages_imports_form_no_cycle():
    assert find_cycles(Path(video_worker.__file__).parent) == []
