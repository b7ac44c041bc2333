"""The site's signing secret (docs/API.md#website): it signs session cookies and the watch
emails' links, so the server, the account site and ``bangscore alerts send`` must share it.
Configured (``BANGSCORE_SESSION_SECRET``) or kept in the state folder beside the SQLite store.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from pydantic import SecretStr

from bangscore.errors import StoreMissing


def load_session_secret(
    configured: SecretStr | None, state_dir: Path, *, create: bool = True
) -> str:
    """Given the configured secret (or None) and the state folder, return the session secret.

    Without configuration, a random secret is created once in ``STATE/session_secret`` (mode
    0600) and reused, so every process sharing the state folder signs cookies alike; replicas
    on several hosts must be configured with one secret. Raises OSError if it cannot be saved,
    and StoreMissing if it does not exist and ``create`` is false (``serve``: a vanished
    state folder must not become new, empty state).
    """
    if configured is not None and configured.get_secret_value():
        return configured.get_secret_value()
    path = state_dir / "session_secret"
    if path.exists():
        return path.read_text().strip()
    if not create:
        raise StoreMissing(
            f"no session secret at {path} (`bangscore keys create` creates it, or set "
            "BANGSCORE_SESSION_SECRET)"
        )
    state_dir.mkdir(parents=True, exist_ok=True)
    # Written aside then hard-linked into place: atomic, and the first process to link wins.
    temp = state_dir / f".session_secret.{os.getpid()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_urlsafe(48))
    try:
        os.link(temp, path)
    except FileExistsError:
        pass
    finally:
        temp.unlink()
    return path.read_text().strip()
