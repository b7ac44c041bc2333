"""Typed configuration, read once at the entry point (the CLI or the app factory).

Every setting can come from an environment variable prefixed ``BANGSCORE_`` (for example
``BANGSCORE_SITE_URL``) or a ``.env`` file; command-line options override them. With no
configuration, everything lives under ``./var`` so that ``keys create`` in one shell and
``serve`` in another share the same keys, counts and snapshots.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path

from pydantic import Field, PrivateAttr, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """BangScore configuration. Paths are relative to the working directory."""

    model_config = SettingsConfigDict(env_prefix="BANGSCORE_", env_file=".env", extra="ignore")
    _site_url_derived: bool = PrivateAttr(default=False)

    state_dir: Path = Field(
        Path("var"), description="Folder for snapshots, keys, counts, catalog and caches"
    )
    data_dir: Path = Field(Path("data"), description="The bundled raw dumps (`data/raw`)")
    snapshot: str | None = Field(
        None,
        description="Snapshot store: a folder or `s3://bucket/prefix`",
        json_schema_extra={"shown_default": "`$STATE_DIR/snapshots`"},
    )
    store: str | None = Field(
        None,
        description="Key and counter store: `sqlite:///PATH`, or `redis://host:port/db` for many "
        "replicas",
        json_schema_extra={"shown_default": "`sqlite:///$STATE_DIR/bangscore.sqlite3`"},
    )
    catalog: Path | None = Field(
        None,
        description="Catalog written by `ingest`, read by `build` (absent: `build` joins the "
        "bundled dumps)",
        json_schema_extra={"shown_default": "`$STATE_DIR/catalog.json.gz`"},
    )
    site_url: str = Field(
        "",
        description="The website's base URL (game `url` fields, problem `type`s, account forms); "
        "unset, it follows `BANGSCORE_HOST`/`BANGSCORE_PORT` (a wildcard host becomes 127.0.0.1)",
        json_schema_extra={"shown_default": "`http://HOST:PORT`"},
    )
    base_url: str | None = Field(
        None,
        description="The API's base URL (Link headers, OpenAPI `servers`); recorded in each "
        "snapshot's manifest, and `Link` headers use the snapshot's own, so they agree with the "
        "bodies",
        json_schema_extra={"shown_default": "the site URL"},
    )
    host: str = Field("127.0.0.1", description="Address `serve` listens on")
    port: int = Field(8000, ge=1, le=65535, description="Port `serve` listens on")
    workers: int = Field(1, ge=1, le=64, description="Server processes of `serve`")
    access_log: bool = Field(
        True, description="Write the JSON access log to standard output (`serve --quiet`: off)"
    )
    access_log_queue_bytes: int = Field(
        4 * 1024 * 1024,
        ge=64 * 1024,
        description="Access-log lines waiting for a slow reader, per process (past it: dropped "
        "and counted)",
    )
    metrics_allow_ips: str = Field(
        "",
        description="Client addresses or networks /metrics answers (comma-separated; "
        "empty: every client; others get 404; a host name is refused at start)",
    )
    anonymous_daily_limit: int = Field(
        1000, ge=1, description="Per-IP allowance for API requests without a valid key"
    )
    page_daily_limit: int = Field(
        5000,
        ge=1,
        description="Per-IP allowance for website pages (`/`, `/games`, `/search`, game pages, "
        "`/docs`)",
    )
    pointer_poll_seconds: float = Field(
        5.0, gt=0, description="How often replicas look for a new snapshot"
    )
    key_cache_seconds: float = Field(
        2.0, ge=0, description="Key lookups cached per process (bounds revocation lag)"
    )
    cache_bytes: int = Field(
        512 * 1024 * 1024, ge=0, description="In-memory cache of snapshot bodies per process"
    )
    answer_cache_bytes: int = Field(
        256 * 1024 * 1024,
        ge=1024 * 1024,
        description="Remembered answers per snapshot (API answers, rendered website pages, "
        "each with the query strings naming it), in bytes of what they hold",
    )
    forwarded_allow_ips: str = Field(
        "",
        description="Proxies whose X-Forwarded-For is trusted for the client IP "
        "(comma-separated addresses or networks; empty: none, the peer address counts)",
    )
    max_request_line: int = Field(
        16 * 1024, ge=1024, le=1 << 20, description="Bytes of a request line (else 414)"
    )
    max_header_field: int = Field(
        16 * 1024, ge=1024, le=1 << 20, description="Bytes of one header field (else 431)"
    )
    max_request_head: int = Field(
        64 * 1024, ge=4096, le=4 << 20, description="Bytes of a whole request head (else 431)"
    )
    head_timeout_seconds: float = Field(
        10.0, gt=0, le=300, description="Time to send a complete request head (else 408/closed)"
    )
    body_timeout_seconds: float = Field(
        10.0, gt=0, le=300, description="Time to send a request body after its head (else 408)"
    )
    max_header_count: int = Field(
        100, ge=10, le=10_000, description="Header fields in one request head (else 431)"
    )
    max_client_connections: int = Field(
        64,
        ge=1,
        le=100_000,
        description="Open connections per client (an IPv4 address, an IPv6 /64) per process",
    )
    max_connections: int = Field(
        4096,
        ge=1,
        le=1_000_000,
        description="Open connections per process, all clients together (lowered to the "
        "descriptor limit less 128)",
    )
    keep_alive_seconds: int = Field(
        5, ge=1, le=300, description="Idle keep-alive connections are closed after this"
    )
    session_idle_seconds: int = Field(
        3600, ge=60, description="An account session ends after this long without a request"
    )
    session_max_seconds: int = Field(
        12 * 3600, ge=60, description="An account session ends this long after sign-in"
    )
    keep_snapshots: int = Field(
        7, ge=1, description="Snapshots kept for rollback, and Bulk exports kept"
    )
    build_workers: int = Field(
        1,
        ge=1,
        le=64,
        description="Processes reading the bundled dumps and rendering game pages in `bangscore "
        "build` (forked; worth more than 1 only on idle cores: `make build` and `make run` set "
        "it to `nproc`, `BUILD_WORKERS=N` overrides)",
    )
    retry_after_seconds: int = Field(
        5, ge=1, le=3600, description="Retry-After of a 503 (snapshot, object or key store down)"
    )
    export: str | None = Field(
        None, description="Bulk export store: a folder or s3://bucket/prefix (unset: no export)"
    )
    export_link_seconds: int = Field(
        3600, ge=60, le=7 * 86400, description="Lifetime of Bulk export download links"
    )
    export_downloads_per_client: int = Field(
        4,
        ge=1,
        le=1000,
        description="Export downloads one client address may have under way at once, per "
        "process (past it: 429 `too_many_downloads`)",
    )
    export_send_timeout_seconds: float = Field(
        60.0,
        gt=0,
        le=3600,
        description="Seconds an export download may wait for its reader to take the next chunk "
        "before it is dropped and its slot freed (nginx's send_timeout)",
    )
    session_secret: SecretStr | None = Field(
        None,
        description="Signs account sessions and local export links; replicas must share it",
        json_schema_extra={
            "shown_default": "generated in `$STATE_DIR/session_secret` by `keys create` "
            "(never by `serve`)"
        },
    )
    smtp_url: SecretStr | None = Field(
        None,
        description="SMTP server of the watch emails: `smtp://host:port` (STARTTLS when "
        "offered) or `smtps://user:pass@host:465`; unset, `alerts send` refuses to run "
        "unless `BANGSCORE_MAIL_DIR` keeps the mail in a folder. Only "
        "`alerts send` reads it: the server queues confirmations and never talks to SMTP",
    )
    mail_from: str = Field(
        "BangScore <alerts@bangscore.local>", description="From address of the watch emails"
    )
    smtp_utf8: bool = Field(
        False,
        description="The SMTP relay offers SMTPUTF8: accept non-ASCII addresses at sign-up "
        "(off: refused, as Amazon SES and most relays cannot take them)",
    )
    smtp_deadline_seconds: float = Field(
        600.0,
        gt=0,
        le=3600,
        description="Total time one `alerts send` may spend on SMTP (each read at most 20 s)",
    )
    webhooks_allow_loopback: bool = Field(
        False,
        description="Tests on one machine only: let webhooks post over http to loopback "
        "addresses (every other private, link-local or reserved address stays refused)",
    )
    webhooks_claim_seconds: int = Field(
        120,
        ge=1,
        le=3600,
        description="How long `alerts send` holds a webhook delivery it is sending: a killed "
        "run's deliveries are sent again once their claims lapse",
    )
    mail_dir: Path | None = Field(
        None,
        description="Local development: keep the watch and sign-up emails as `.eml` files in "
        "this folder instead of sending them over SMTP (`alerts send` writes there and prints "
        "each file and its links; `serve` then delivers the queued mail there every 2 s). "
        "`make run` passes `--mail-dir var/mail`",
    )
    itad_api_key: SecretStr | None = Field(None, description="IsThereAnyDeal key for `ingest`")
    steam_api_key: SecretStr | None = Field(
        None,
        description="Steam Web API key for `ingest`: `IStoreService/GetAppList` names the games "
        "changed on the store since the last refresh, which also get the per-game `appdetails` "
        "call",
    )
    review_depth: int = Field(
        500, ge=1, le=10_000, description="Reviews sampled per paid game by `ingest`"
    )

    @field_validator("metrics_allow_ips")
    @classmethod
    def _addresses_only(cls, value: str) -> str:
        allowed_networks(value)  # ValueError: refused at start, not a 500 at every scrape
        return value

    @field_validator("site_url", "base_url")
    @classmethod
    def _strip_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else value

    @model_validator(mode="after")
    def _site_follows_host_and_port(self) -> Settings:
        # Unconfigured, the site is where `serve` listens, so that body URLs, Link headers,
        # redirects and the account forms point at the server a browser really reaches.
        if not self.site_url:
            self.site_url = local_url(self.host, self.port)
            self._site_url_derived = True
        return self

    @property
    def site_url_configured(self) -> bool:
        """Return True if the site URL was given (option, variable, .env), False if it was
        derived from the host and port."""
        return not self._site_url_derived

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


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def allowed_networks(listed: str) -> tuple[Network, ...]:
    """Given a comma-separated list of addresses and networks (``10.0.0.0/8, ::1``), return
    them as networks (an address is its /32 or /128; host bits are ignored). Raises
    ValueError naming an item that is neither, a host name say: the server matches the
    client's address, and resolving a name per scrape would make the list follow DNS."""
    networks = []
    for item in (part.strip() for part in listed.split(",")):
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(
                f"{item[:80]!r} is not an IP address or network (host names are not resolved; "
                "list addresses such as 10.0.0.5 or networks such as 10.0.0.0/24)"
            ) from None
    return tuple(networks)


def local_url(host: str, port: int) -> str:
    """Given the address and port ``serve`` binds, return the URL a local browser uses for it.

    A wildcard address (0.0.0.0, ::) becomes the loopback address; an IPv6 literal is
    bracketed. Behind a proxy or on a public name, configure ``BANGSCORE_SITE_URL`` instead.
    """
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"
