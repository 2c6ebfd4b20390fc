from pathlib import Path

from shared_types.testing.import_graph import find_cycles

import web_ui


def test_the_packages_imports_form_no_cycle():
    assert find_cycles(Path(web_ui.__file__).parent) == []
