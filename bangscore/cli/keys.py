"""The ``keys`` and ``usage`` commands of the command line: API keys created, revoked and
listed in the key store (:mod:`bangscore.stores`), and the operators' usage report
(:mod:`bangscore.cli.usage`). A key is printed once, alone on the last line; nothing else here
prints a key.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from typing import Any

from bangscore.cli.arguments import bounded_int, printable, when
from bangscore.settings import Settings
from bangscore.stores import Stores, open_stores
from bangscore.stores.keystore import issue_key


def _open_store(settings: Settings, *, create: bool) -> Stores:
    """Given settings, open their stores. ``create``: a SQLite file may be created; without
    it a missing one raises StoreMissing (a mistyped path must not look like an empty store).
    """
    return open_stores(settings.store_url, create=create)


def cmd_keys_create(args: argparse.Namespace, settings: Settings) -> int:
    """Create a key and print it once, alone on the last line (the store is created if
    it does not exist yet: creating keys is what starts one)."""
    from bangscore.stores.addresses import normalize_email

    account = normalize_email(args.account)
    if account is None:
        print(
            f"error: --account must be an email address, not {printable(args.account[:80])}",
            file=sys.stderr,
        )
        return 2
    from bangscore.stores.secret import load_session_secret

    try:
        store = _open_store(settings, create=True)
        load_session_secret(settings.session_secret, settings.state_dir)
        key, record = issue_key(store.keys, account, args.plan, args.limit, int(time.time()))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(
        f"created key {record.key_id} for {record.account}: plan {record.plan}, "
        f"{record.daily_limit}/day"
    )
    print("the key is shown only once; store it now:")
    print(key)
    return 0


def revoked_id(given: str) -> str | None:
    """Given what an operator typed to revoke a key, return its 8-character id: the id itself
    (as ``keys list`` shows it) or the id inside a whole key (``bsk_`` and 33 characters,
    checksum valid); None for anything else. The whole key is never echoed back."""
    from bangscore.stores.keys import KEY_ID_CHARS, is_well_formed, key_id

    if is_well_formed(given):
        return key_id(given)
    # Not a prefix of a mistyped key: its id could name some other key.
    if len(given) == KEY_ID_CHARS and given.isascii() and given.isalnum():
        return given
    return None


def cmd_keys_revoke(args: argparse.Namespace, settings: Settings) -> int:
    """Revoke a key given its 8-character id or the whole key."""
    from bangscore.errors import UnknownKey

    wanted = revoked_id(args.key_id)
    if wanted is None:
        print(
            "error: give the key's 8-character id (`bangscore keys list` shows it) or the "
            "whole key (bsk_ and 33 letters and digits, checksum valid); "
            f"{printable(args.key_id[:12])}... is neither",
            file=sys.stderr,
        )
        return 2
    try:
        record = _open_store(settings, create=False).keys.revoke_key(wanted)
    except UnknownKey:
        print(f"error: no key with id {wanted}", file=sys.stderr)
        return 1
    print(f"revoked key {record.key_id} ({record.account})")
    return 0


def cmd_keys_list(args: argparse.Namespace, settings: Settings) -> int:
    """List keys: id, account, plan, limit, state, created, last used, today's count."""
    today = dt.datetime.now(dt.UTC).date()
    views = _open_store(settings, create=False).keys.list_keys(today, args.account)
    print(
        f"{'id':<9} {'account':<28} {'plan':<5} {'limit':>7} {'state':<8} "
        f"{'created':<17} {'last used':<17} {'today':>6}"
    )
    for v in views:
        r = v.record
        print(
            f"{r.key_id:<9} {printable(r.account):<28} {r.plan:<5} {r.daily_limit:>7} "
            f"{r.state:<8} {when(r.created_at):<17} {when(v.last_used):<17} {v.today:>6}"
        )
    return 0


def cmd_usage_report(args: argparse.Namespace, settings: Settings) -> int:
    """Print accounts whose keys together exceed one key's plan limit on a UTC day (term 4)."""
    from bangscore.cli.usage import (
        abuse_report,
        format_network_report,
        format_report,
        network_report,
    )

    try:
        day = dt.date.fromisoformat(args.date) if args.date else dt.datetime.now(dt.UTC).date()
    except ValueError:
        print(f"error: --date must be YYYY-MM-DD, not {args.date!r}", file=sys.stderr)
        return 2
    store = _open_store(settings, create=False)
    try:
        views = store.keys.list_keys(day)
        networks: dict[str, str] = {}
        for email in {v.record.account for v in views if v.today > 0}:
            account = store.accounts.find_account(email)
            if account is not None and account.network:
                networks[email] = account.network
        report = format_report(abuse_report(views), day.isoformat()) + format_network_report(
            network_report(views, networks), day.isoformat()
        )
        print("\n".join(printable(line) for line in report.splitlines()))
    finally:
        store.close()
    return 0


def add_parsers(sub: Any) -> None:
    """Given the top-level subparsers, add ``keys`` and ``usage``."""
    keys = sub.add_parser("keys", help="create, revoke and list API keys").add_subparsers(
        dest="keys_command", required=True
    )
    from bangscore.stores.keystore import PLAN_LIMITS

    p = keys.add_parser(
        "create",
        help="create a key and print it once",
        description="Create a key and print it once. A bulk key needs --limit.",
    )
    p.add_argument("--account", required=True, help="owning account (email)")
    p.add_argument(
        "--plan",
        required=True,
        choices=["free", "pro", "bulk"],
        help=", ".join(f"{plan}: {n:,} requests a day" for plan, n in PLAN_LIMITS.items())
        + "; bulk: the --limit given (required)",
    )
    p.add_argument(
        "--limit",
        type=bounded_int(1, 1_000_000_000),
        help="daily limit (default: the plan's; required with --plan bulk)",
    )
    p.set_defaults(func=cmd_keys_create)
    p = keys.add_parser("revoke", help="revoke a key by its id or the whole key")
    p.add_argument("key_id", help="the 8-character id `keys list` shows, or the whole key")
    p.set_defaults(func=cmd_keys_revoke)
    p = keys.add_parser("list", help="list keys")
    p.add_argument("--account")
    p.set_defaults(func=cmd_keys_list)

    usage = sub.add_parser("usage", help="operators' usage reports").add_subparsers(
        dest="usage_command", required=True
    )
    p = usage.add_parser("report", help="accounts whose keys together exceed one key's limit")
    p.add_argument("--date", help="UTC day YYYY-MM-DD (default: today)")
    p.set_defaults(func=cmd_usage_report)
