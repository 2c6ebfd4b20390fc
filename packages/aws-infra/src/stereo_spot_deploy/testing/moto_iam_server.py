"""moto_server whose IAM checks read like AWS's for the services StereoSpot uses.

Stock moto authorises DynamoDB requests against the resource ``*``, so a
policy that names its tables (as ours do) is denied everything and one that
grants ``*`` passes everything. This launcher gives moto's DynamoDB handler
the resource AWS uses (the table ARN, ``/index/<name>`` for an index query),
checks ``GetQueueUrl`` against the queue it names, and names CloudWatch
actions ``cloudwatch:*`` as IAM does (moto takes the
prefix from the signing name, ``monitoring``, which no policy can grant).
Then it runs moto_server as usual:

    python -m stereo_spot_deploy.testing.moto_iam_server -H 127.0.0.1 -p 5000
"""

from __future__ import annotations

import sys
from typing import Any


def table_resource(params: dict[str, Any], *, account: str, region: str) -> str:
    """The ARN a DynamoDB request is authorised against, or ``*`` for calls on no table."""
    table = params.get("TableName")
    if not table and isinstance(params.get("RequestItems"), dict) and params["RequestItems"]:
        table = sorted(params["RequestItems"])[0]
    if not table:
        return "*"
    arn = f"arn:aws:dynamodb:{region}:{account}:table/{table}"
    return f"{arn}/index/{params['IndexName']}" if params.get("IndexName") else arn


def patch_dynamodb() -> None:
    from moto.dynamodb.responses import DynamoHandler

    def determine_resource(self: Any) -> str:
        return table_resource(getattr(self, "params", None) or {},
                              account=self.current_account, region=self.region)

    DynamoHandler._determine_resource = determine_resource


def patch_sqs_queue_names() -> None:
    """GetQueueUrl names its queue by QueueName (moto checks it against ``*``)."""
    from moto.sqs.responses import SQSResponse

    original = SQSResponse._determine_resource

    def determine_resource(self: Any) -> str:
        name = self._get_param("QueueName")
        if name and not self._get_param("QueueUrl"):
            owner = self._get_param("QueueOwnerAWSAccountId") or self.current_account
            return f"arn:aws:sqs:{self.region}:{owner}:{name}"
        return original(self)

    SQSResponse._determine_resource = determine_resource


def patch_action_prefixes() -> None:
    from moto.iam.access_control import IAMRequestBase

    original = IAMRequestBase.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if self._action.startswith("monitoring:"):
            self._action = "cloudwatch:" + self._action.removeprefix("monitoring:")

    IAMRequestBase.__init__ = init


def main(argv: list[str] | None = None) -> None:
    patch_dynamodb()
    patch_sqs_queue_names()
    patch_action_prefixes()
    from moto.server import main as moto_main

    moto_main(argv if argv is not None else sys.argv[1:])


if __name__ == "__main__":
    main()
