import pkgutil

import shared_types
from shared_types.testing.import_graph import top_level_modules_loaded_by

VENDOR_SDKS = {"torch", "boto3", "botocore", "av", "cv2"}


def test_the_contracts_import_no_vendor_sdk():
    """Every service imports shared-types; none should pay for torch or boto3 by it."""
    public = [f"shared_types.{m.name}" for m in pkgutil.iter_modules(shared_types.__path__)
              if m.name != "testing"]
    assert len(public) > 10
    assert top_level_modules_loaded_by(*public) & VENDOR_SDKS == set()
