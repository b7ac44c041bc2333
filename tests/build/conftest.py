"""Fixtures of these tests: the SeaweedFS server (tests/servers.py)."""

from tests.servers import aws_env, bucket, seaweed, seaweed_factory

__all__ = ["aws_env", "bucket", "seaweed", "seaweed_factory"]
