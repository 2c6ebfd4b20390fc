from pathlib import Path

import shared_types
from shared_types.testing.import_graph import find_cycles


def write(root: Path, name: str, source: str) -> None:
    path = root / (name.replace(".", "/") + ".py")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)


def test_a_cycle_hidden_in_a_function_is_found(tmp_path):
    write(tmp_path, "pkg.__init__", "")
    write(tmp_path, "pkg.a", "from pkg.b import f\n")
    write(tmp_path, "pkg.b", "def f():\n    from pkg import a\n")
    write(tmp_path, "pkg.c", "import pkg.a\n")
    assert find_cycles(tmp_path / "pkg") == [["pkg.a", "pkg.b"]]


def test_shared_types_imports_form_no_cycle():
    assert find_cycles(Path(shared_types.__file__).parent) == []
