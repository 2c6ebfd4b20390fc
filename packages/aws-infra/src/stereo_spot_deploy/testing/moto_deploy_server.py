"""moto_server patched for StereoSpot's tests: ``moto_patches`` (IAM checks
that read like AWS's, and the calls moto lacks, SQS ``RedriveAllowPolicy``
among them), DynamoDB requests serialised as in ``aws_adapters.testing.atomic_moto``.

The one moto server of the Terraform tests: the data plane and deploy targets
run on it as is, the deployment harness with IAM enforcement turned on
(``/moto-api/reset-auth``, see ``deployment.enforce_iam``). Run it like moto_server:
``python -m stereo_spot_deploy.testing.moto_deploy_server -H 127.0.0.1 -p 5000``
"""

from __future__ import annotations

import sys

from stereo_spot_deploy.testing.moto_patches import apply_all


def main(argv: list[str] | None = None) -> None:
    apply_all()
    from aws_adapters.testing.atomic_moto import main as moto_main

    moto_main(argv if argv is not None else sys.argv[1:])


if __name__ == "__main__":
    main()
