"""Deploy scripts for StereoSpot on AWS (boto3): image build/push, ECS
rollout, the CodeBuild inference image build and the SageMaker endpoint update.

Run as ``python -m stereo_spot_deploy <command>`` (the aws-infra Nx targets do);
every command reads the env file ``nx run aws-infra:apply`` writes.
"""
