"""The deploy scripts' one error hierarchy (classified like the pipeline's)."""

from shared_types.errors import PermanentError


class DeployError(PermanentError):
    """A deploy step failed; the message says which and what to do."""


class MissingSettingError(DeployError):
    """The env file lacks a value a command needs (run `nx run aws-infra:apply`)."""


class CommandFailedError(DeployError):
    """An external command (docker, git, terraform) exited non-zero."""


class DeployTimeoutError(DeployError):
    """A build or rollout did not finish in the allowed time."""
