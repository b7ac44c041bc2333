"""Signed links of the watch emails and the address confirmation message.

Links are signed with itsdangerous under the site's session secret (each kind under its own
salt), so every replica and ``bangscore alerts send`` make and check the same links:

- ``{site}/account/watches/confirm?t=`` confirms an address (valid for 30 days);
- ``{site}/account/watches/unsubscribe?t=`` removes one watch without signing in; it is the
  RFC 8058 one-click target (a POST with ``List-Unsubscribe=One-Click``), and a GET shows a
  form that POSTs to it, so a mail scanner fetching the link removes nothing.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from html import escape

from itsdangerous import BadSignature, URLSafeSerializer, URLSafeTimedSerializer

CONFIRM_SALT = "bangscore-watch-confirm"
UNSUBSCRIBE_SALT = "bangscore-watch-unsubscribe"
CONFIRM_SECONDS = 30 * 86_400


class WatchLinks:
    """Makes and checks the signed confirmation and unsubscribe links of one site."""

    def __init__(self, secret: str, site_url: str) -> None:
        self.site_url = site_url.rstrip("/")
        self._confirm = URLSafeTimedSerializer(secret, salt=CONFIRM_SALT)
        self._unsubscribe = URLSafeSerializer(secret, salt=UNSUBSCRIBE_SALT)

    def confirm_url(self, email: str) -> str:
        """Given an address, return its signed confirmation link."""
        return f"{self.site_url}/account/watches/confirm?t={self._confirm.dumps(email)}"

    def unsubscribe_url(self, watch_id: str) -> str:
        """Given a watch id, return its signed one-click unsubscribe link."""
        return f"{self.site_url}/account/watches/unsubscribe?t={self._unsubscribe.dumps(watch_id)}"

    def confirmed_email(self, token: str) -> str | None:
        """Given a confirmation token, return its address, or None if forged or expired."""
        try:
            value = self._confirm.loads(token, max_age=CONFIRM_SECONDS)
        except BadSignature:
            return None
        return value if isinstance(value, str) else None

    def unsubscribed_watch(self, token: str) -> str | None:
        """Given an unsubscribe token, return its watch id, or None if forged."""
        try:
            value = self._unsubscribe.loads(token)
        except BadSignature:
            return None
        return value if isinstance(value, str) else None


def confirmation_message(email: str, from_address: str, links: WatchLinks) -> EmailMessage:
    """Given an address, the sender and the links, return the confirmation email (plain
    text and HTML) that an address's first watch sends."""
    url = links.confirm_url(email)
    message = EmailMessage()
    message["Subject"] = "Confirm your BangScore watch alerts"
    message["From"] = from_address
    message["To"] = email
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain=_domain(from_address))
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(
        "You asked BangScore to watch a game for you.\n\n"
        f"Confirm this address to receive its alerts:\n{url}\n\n"
        "Until it is confirmed we send nothing else to this address. If you did not ask, "
        "ignore this email.\n"
    )
    message.add_alternative(
        "<p>You asked BangScore to watch a game for you.</p>"
        f'<p><a href="{escape(url)}">Confirm this address</a> to receive its alerts.</p>'
        "<p>Until it is confirmed we send nothing else to this address. If you did not ask, "
        "ignore this email.</p>",
        subtype="html",
    )
    return message


def _domain(address: str) -> str:
    return address.rsplit("@", 1)[-1].strip(" >") or "bangscore.local"
