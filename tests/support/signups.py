"""Signing up on a real server, whose sign-ups go by email (bangscore.shim.account.signups):
the link the email would carry, read from the server's store, and the whole sign-up."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
from argon2 import PasswordHasher

from bangscore.mail.links import WatchLinks
from bangscore.stores import open_stores, open_watch_store
from bangscore.stores.keystore import AccountRecord
from bangscore.stores.secret import load_session_secret

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
PASSWORD = "long enough pw!"


def signup_links(
    state_dir: Path, site_url: str, email: str, store_url: str | None = None
) -> dict[str, str]:
    """Given a server's state folder, the site URL its links use and an address, return its
    queued sign-ups' ids and links (those their emails carry)."""
    store = open_watch_store(store_url or f"sqlite:///{state_dir / 'bangscore.sqlite3'}")
    try:
        queued = [s for s in store.pending_signups() if s.email == email and s.password_hash]
    finally:
        store.close()
    links = WatchLinks(load_session_secret(None, state_dir), site_url)
    return {s.signup_id: links.signup_url(s.signup_id) for s in queued}


def signup_link(state_dir: Path, site_url: str, email: str, store_url: str | None = None) -> str:
    """Given a server's state folder, the site URL its links use and an address with one
    queued sign-up (and the server's store when not the state folder's), return its link.
    Raises ValueError unless exactly one is queued."""
    [link] = signup_links(state_dir, site_url, email, store_url).values()
    return link


def follow_signup_link(client: httpx.Client, link: str) -> httpx.Response:
    """Given a client and a sign-up link, open it and press its button; return the answer
    (303 to the account page once the account is created)."""
    page = client.get(link)
    assert page.status_code == 200, page.text
    return client.post(link, data={"csrf": CSRF.findall(page.text)[0]})


def signed_up(
    url: str,
    state_dir: Path,
    email: str,
    password: str = PASSWORD,
    headers: dict[str, str] | None = None,
) -> tuple[httpx.Client, str]:
    """Given a server's URL and state folder, an address (and the headers the client sends),
    sign up as a visitor would (the form, then the email's link) and return the signed-in
    client and its CSRF token."""
    client = httpx.Client(base_url=url, timeout=30, headers=headers)
    token = CSRF.findall(client.get("/account").text)[0]
    form = {"csrf": token, "email": email, "password": password}
    answer = client.post("/account/signup", data=form)
    assert answer.status_code == 200 and "Check your inbox" in answer.text, answer.text
    created = follow_signup_link(client, signup_link(state_dir, url, email))
    assert created.status_code == 303, created.text
    return client, CSRF.findall(client.get("/account").text)[0]


def signed_in_old_account(
    url: str, store_url: str, email: str, password: str = PASSWORD
) -> tuple[httpx.Client, str]:
    """Given a server's URL and key store and an address, make the address an account as
    one made before sign-up went by email (its address not confirmed for watch alerts), sign
    in to it and return the client and its CSRF token."""
    store = open_stores(store_url)
    try:
        store.accounts.create_account(AccountRecord(email, PasswordHasher().hash(password), 1, ""))
    finally:
        store.close()
    client = httpx.Client(base_url=url, timeout=30)
    token = CSRF.findall(client.get("/account").text)[0]
    form = {"csrf": token, "email": email, "password": password}
    assert client.post("/account/signin", data=form).status_code == 303
    return client, CSRF.findall(client.get("/account").text)[0]
