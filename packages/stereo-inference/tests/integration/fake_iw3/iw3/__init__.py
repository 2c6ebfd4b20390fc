"""A stand-in for nagadomi/nunif's iw3, used by the engine's tests."""
