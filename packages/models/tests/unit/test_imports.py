from pathlib import Path

from shared_types.testing.import_graph import find_cycles

import stereo_models


def test_the_packages_imports_form_no_cycle():
    assert find_cycles(Path(stereo_models.__file__).parent) == []
