"""``python -m stereo_spot_deploy``."""

import sys

from stereo_spot_deploy.cli import main

sys.exit(main())
