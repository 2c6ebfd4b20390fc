from pathlib import Path

from shared_types.testing.import_graph import find_cycles

import local_adapters


def test_the_packages_imports_form_no_cycle():
    assert find_cycles(Path(local_adapters.__file__).parent) == []
