import ast
import pkgutil
from pathlib import Path

import shared_types
from shared_types.testing.import_graph import top_level_modules_loaded_by

VENDOR_SDKS = {"torch", "boto3", "botocore", "av", "cv2", "imageio_ffmpeg", "huggingface_hub",
               "numpy", "stereo_media", "stereo_models"}


def test_the_contracts_import_no_vendor_sdk():
    """Every service imports shared-types; none should pay for torch or boto3 by it."""
    public = [f"shared_types.{m.name}" for m in pkgutil.iter_modules(shared_types.__path__)
              if m.name != "testing"]
    assert len(public) > 10
    assert top_level_modules_loaded_by(*public) & VENDOR_SDKS == set()


MEDIA_AND_MODELS = {"av", "imageio_ffmpeg", "huggingface_hub", "stereo_media", "stereo_models"}


def imports_of(root: Path, banned: set[str]) -> dict[str, set[str]]:
    """Each module under ``root`` that imports one of ``banned`` anywhere (in a
    function too), with those names."""
    found: dict[str, set[str]] = {}
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            hits = {n.split(".")[0] for n in names} & banned
            if hits:
                found.setdefault(str(path.relative_to(root)), set()).update(hits)
    return found


def test_no_module_of_the_contracts_reads_media_or_models_even_lazily():
    """Media lives in stereo_media, models in stereo_models (test support included)."""
    assert imports_of(Path(shared_types.__file__).parent, MEDIA_AND_MODELS) == {}


def test_a_lazy_media_import_is_found(tmp_path):
    (tmp_path / "probe.py").write_text("def f():\n    import av.error\n")
    (tmp_path / "fine.py").write_text("from .probe import f\n")
    assert imports_of(tmp_path, MEDIA_AND_MODELS) == {"probe.py": {"av"}}
