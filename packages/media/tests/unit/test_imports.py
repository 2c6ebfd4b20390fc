from pathlib import Path

from shared_types.testing.import_graph import find_cycles

import stereo_media


def test_the_packages_imports_form_no_cycle():
    assert find_cycles(Path(stereo_media.__file__).parent) == []
