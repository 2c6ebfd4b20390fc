from pathlib import Path

from shared_types.testing.import_graph import find_cycles

import stereo_inference


def test_the_packages_imports_form_no_cycle():
    assert find_cycles(Path(stereo_inference.__file__).parent) == []
