"""Show the deployment harness's report at the end of the run, even without ``-s``."""

from __future__ import annotations

from stereo_spot_deploy.testing.deployment import REPORT


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    lines = config.stash.get(REPORT, [])
    if lines:
        terminalreporter.section("deployment harness: calls per role")
        for line in lines:
            terminalreporter.write_line(line)
