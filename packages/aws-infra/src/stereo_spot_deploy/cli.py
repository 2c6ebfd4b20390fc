"""``python -m stereo_spot_deploy``: the commands behind the aws-infra Nx targets.

  write-env      terraform output -json (stdin) -> env file
  build SERVICE  docker build the service image, tagged with the release
  push SERVICE   push it to ECR
  deploy SERVICE new task definition revision + ECS force-new-deployment, wait
  sagemaker-build   start the inference CodeBuild project and wait
  sagemaker-deploy  new model + endpoint config, update the endpoint, wait
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from stereo_spot_deploy import codebuild, ecs, images, sagemaker
from stereo_spot_deploy.commands import release_tag, source_commit
from stereo_spot_deploy.config import SERVICES, DeployConfig
from stereo_spot_deploy.envfile import deploy_env_from_outputs, read_env_file, write_env_file
from stereo_spot_deploy.errors import DeployError
from stereo_spot_deploy.polling import Poller

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[4]
DEFAULT_ENV_FILE = REPO_ROOT / "packages/aws-infra/.deploy.env"
# The Nx targets pass no options: these variables choose another env file
# (another stack) and another tag than HEAD's, as STEREO_SPOT_IMAGE_TAG does for
# the terraform targets.
ENV_FILE_VAR = "STEREO_SPOT_DEPLOY_ENV_FILE"
TAG_VAR = "STEREO_SPOT_IMAGE_TAG"


def _parser(environ: Mapping[str, str]) -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--env-file", type=Path,
                        default=Path(environ.get(ENV_FILE_VAR) or DEFAULT_ENV_FILE),
                        help=f"default: ${ENV_FILE_VAR}, else {DEFAULT_ENV_FILE}")
    common.add_argument("--tag", default=environ.get(TAG_VAR) or None,
                        help=f"image tag (default: ${TAG_VAR}, else the short git SHA of HEAD)")
    common.add_argument("--timeout-s", type=float, default=3600.0)
    parser = argparse.ArgumentParser(prog="stereo-spot-deploy", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("write-env", parents=[common],
                   help="write the env file from `terraform output -json` on stdin")
    for name in ("build", "push", "deploy"):
        cmd = sub.add_parser(name, parents=[common])
        cmd.add_argument("service", choices=SERVICES)
    sub.add_parser("sagemaker-build", parents=[common])
    sub.add_parser("sagemaker-deploy", parents=[common])
    return parser


def _client(service: str, config: DeployConfig) -> Any:
    import boto3

    return boto3.client(service, region_name=config.region)


def run(argv: list[str], environ: Mapping[str, str] | None = None) -> None:
    """Run one command. Raises DeployError (and its subclasses) on failure."""
    args = _parser(os.environ if environ is None else environ).parse_args(argv)
    if args.command == "write-env":
        write_env_file(deploy_env_from_outputs(sys.stdin.read()), args.env_file)
        log.info("wrote %s", args.env_file)
        return

    config = DeployConfig(read_env_file(args.env_file))
    tag = args.tag or release_tag(REPO_ROOT)
    poller = Poller(timeout_s=args.timeout_s)

    if args.command == "build":
        ref = images.image_ref(config.repository(args.service), tag)
        images.build_image(REPO_ROOT, args.service, ref)
    elif args.command == "push":
        ref = images.image_ref(config.repository(args.service), tag)
        images.push_image(_client("ecr", config), ref)
    elif args.command == "deploy":
        ref = images.image_ref(config.repository(args.service), tag)
        ecs.deploy_service(_client("ecs", config), config.cluster, config.service(args.service),
                           ref, container=args.service,
                           wait_max_attempts=max(1, int(args.timeout_s // 15)))
    elif args.command == "sagemaker-build":
        ref = images.image_ref(config.repository("inference"), tag)
        codebuild.build_inference_image(
            _client("codebuild", config), _client("ecr", config), config.codebuild_project,
            ref, tag, poller, source_version=source_commit(REPO_ROOT))
    elif args.command == "sagemaker-deploy":
        ref = images.image_ref(config.repository("inference"), tag)
        if not images.image_exists(_client("ecr", config), ref):
            raise DeployError(f"{ref} is not in ECR: run `npx nx run "
                              "stereo-inference:sagemaker-build` for this tag first")
        stamp = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
        sagemaker.deploy_endpoint(_client("sagemaker", config), config.sagemaker_endpoint, ref,
                                  config.sagemaker_role_arn, tag, poller, stamp=stamp)


def main(argv: list[str] | None = None) -> int:
    """Entry point: configure logging, run, turn DeployError (and an AWS call
    that failed) into one line on stderr and exit status 1."""
    from botocore.exceptions import BotoCoreError, ClientError

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        run(sys.argv[1:] if argv is None else argv)
    except DeployError as exc:
        print(f"stereo-spot-deploy: {exc}", file=sys.stderr)
        return 1
    except (BotoCoreError, ClientError) as exc:
        print(f"stereo-spot-deploy: AWS refused a call: {exc}", file=sys.stderr)
        return 1
    return 0
