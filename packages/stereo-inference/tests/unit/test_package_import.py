"""Loading the engine leaves the garbage collector as it found it, with what
it loaded in the oldest generation (not walked again by young collections)
and nothing frozen: a host process's own cycles stay collectable."""

import subprocess
import sys

PROBE = """
import gc, sys
{before}
seen = []
gc.callbacks.append(lambda phase, info: phase == "stop" and seen.append(info["generation"]))
import stereo_inference
young, middle, _ = gc.get_count()
print(gc.isenabled(), gc.get_freeze_count(), young, middle, len(seen))
"""


def probe(before: str = "") -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(before=before)],
                         capture_output=True, text=True, check=True, timeout=120)
    return out.stdout.split()


def test_loading_walks_nothing_and_freezes_nothing():
    enabled, frozen, young, _middle, collections = probe()
    assert enabled == "True"
    assert frozen == "0"
    assert int(young) < 700  # what was loaded waits in no young generation
    assert int(collections) <= 2  # (before: ~80 collections while numpy, PyAV... loaded)


def test_a_collector_turned_off_stays_off():
    enabled, frozen, *_ = probe("gc.disable()")
    assert (enabled, frozen) == ("False", "0")
