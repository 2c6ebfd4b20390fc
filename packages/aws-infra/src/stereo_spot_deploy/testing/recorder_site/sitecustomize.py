"""Loaded at interpreter start-up by the deployment harness (PYTHONPATH): record AWS calls."""

from stereo_spot_deploy.testing.call_recorder import install

install()
