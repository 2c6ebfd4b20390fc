"""The ``web-ui`` entry point reads settings from the environment once and serves."""

from __future__ import annotations

import uvicorn

from web_ui import main as entry


def test_main_serves_the_app_from_environment_settings(monkeypatch, tmp_path):
    served = {}

    def fake_run(app, **kwargs):  # uvicorn is the vendor boundary here
        served.update(kwargs, app=app)

    monkeypatch.setattr(uvicorn, "run", fake_run)
    monkeypatch.setenv("STEREO_SPOT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("STEREO_SPOT_PORT", "8123")
    monkeypatch.setenv("STEREO_SPOT_HOST", "0.0.0.0")
    monkeypatch.setenv("ETA_SECONDS_PER_MB", "4")

    entry.main()

    assert (served["host"], served["port"]) == ("0.0.0.0", 8123)
    app = served["app"]
    assert app.state.settings.eta_seconds_per_mb == 4.0
    mounts = {getattr(r, "path", None) for r in app.routes}
    assert "/storage" in mounts
    assert "/static" in mounts
    assert (tmp_path / "state.sqlite3").exists()
