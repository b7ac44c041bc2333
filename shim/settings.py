"""Typed configuration, read once at the entry point (the CLI or the app factory).

Every setting can come from an environment variable prefixed ``BANGSCORE_`` (for example
``BANGSCORE_SITE_URL``) or a ``.env`` file; command-line options override them. With no
configuration, everything lives under ``./var`` so that ``keys create`` in one shell and
``serve`` in another share the same keys, counts and snapshots.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """BangScore configuration. Paths are relative to the working directory."""

    model_config = SettingsConfigDict(env_prefix="BANGSCORE_", env_file=".env", extra="ignore")

    state_dir: Path = Field(Path("var"), description="Folder for snapshots, keys and counts")
    data_dir: Path = Field(Path("data"), description="Bundled raw dumps (data/raw)")
    snapshot: str | None = Field(
        None, description="Snapshot store: a folder or s3://bucket/prefix (default STATE/snapshots)"
    )
    store: str | None = Field(
        None, description="Key and counter store: sqlite:///PATH or redis://HOST:PORT/DB"
    )
    catalog: Path | None = Field(
        None, description="Catalog file from `bangscore ingest` (default: built from bundled dumps)"
    )
    site_url: str = Field("http://127.0.0.1:8000", description="The website's base URL")
    base_url: str | None = Field(None, description="The API's base URL (default: site_url)")
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    workers: int = Field(1, ge=1, le=64)
    anonymous_daily_limit: int = Field(1000, ge=1, description="Per-IP allowance without a key")
    page_daily_limit: int = Field(5000, ge=1, description="Per-IP allowance of website pages")
    pointer_poll_seconds: float = Field(5.0, gt=0, description="How often replicas re-read current")
    key_cache_seconds: float = Field(2.0, ge=0, description="Key lookups cached (revocation lag)")
    cache_bytes: int = Field(512 * 1024 * 1024, ge=0, description="Snapshot object cache budget")
    forwarded_allow_ips: str = Field(
        "127.0.0.1", description="Proxies whose X-Forwarded-For is trusted for the client IP"
    )
    keep_snapshots: int = Field(7, ge=1)
    export: str | None = Field(
        None, description="Bulk export store: a folder or s3://bucket/prefix (unset: no export)"
    )
    export_link_seconds: int = Field(
        3600, ge=60, le=7 * 86400, description="Lifetime of Bulk export download links"
    )
    session_secret: str | None = Field(
        None,
        description="Signs account-site cookies; the same on every replica "
        "(default: generated once under STATE/session_secret)",
    )
    itad_api_key: SecretStr | None = Field(None, description="IsThereAnyDeal API key (ingest)")
    review_depth: int = Field(500, ge=1, le=10_000, description="Reviews sampled per paid game")

    @field_validator("site_url", "base_url")
    @classmethod
    def _strip_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else value

    @property
    def api_base_url(self) -> str:
        """Return the API base URL: base_url if set, else site_url."""
        return self.base_url or self.site_url

    @property
    def snapshot_location(self) -> str:
        """Return the snapshot store location (folder or s3:// URL)."""
        return self.snapshot or str(self.state_dir / "snapshots")

    @property
    def catalog_path(self) -> Path:
        """Return the catalog file `bangscore ingest` writes and `bangscore build` reads."""
        return self.catalog or self.state_dir / "catalog.json.gz"

    @property
    def store_url(self) -> str:
        """Return the key/counter store URL (default: SQLite file under the state folder)."""
        return self.store or f"sqlite:///{self.state_dir / 'bangscore.sqlite3'}"
