from pathlib import Path

from shared_types.testing.import_graph import find_cycles

import media_worker


def test_the_packages_imports_form_no_cycle():
    assert find_cycles(Path(media_worker.__file__).parent) == []
