"""Signed links of the watch emails, and the emails themselves rendered from templates.

Links are signed with itsdangerous under the site's session secret (each kind under its own
salt), so every replica and ``bangscore alerts send`` make and check the same links. Tokens
carry opaque ids, never an address (the access log keeps query strings):

- ``{site}/account/watches/confirm?t=`` carries a pending confirmation's id (valid for 30
  days);
- ``{site}/account/watches/unsubscribe?t=`` carries a watch id; it is the RFC 8058 one-click
  target (a POST with ``List-Unsubscribe=One-Click``).

For both, a GET shows a page with a button and only a POST acts, so a mail gateway's link
scanner confirms and removes nothing.

The bodies are jinja2 templates beside the site's (``bangscore/site/templates/mail``): a text
part (no escaping) and an HTML part (autoescaped). Headers are built by
:mod:`bangscore.mail` from neutralised values only.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

from itsdangerous import BadSignature, URLSafeSerializer, URLSafeTimedSerializer
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from bangscore.mail import header_text, mailbox, new_message
from bangscore.stores.watchstore import PendingConfirmation

CONFIRM_SALT = "bangscore-watch-confirm-id"
UNSUBSCRIBE_SALT = "bangscore-watch-unsubscribe"
CONFIRM_SECONDS = 30 * 86_400

_TEMPLATES = Environment(
    loader=PackageLoader("bangscore.site", "templates/mail"),
    autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
    undefined=StrictUndefined,
    keep_trailing_newline=True,
)


class WatchLinks:
    """Makes and checks the signed confirmation and unsubscribe links of one site."""

    def __init__(self, secret: str, site_url: str) -> None:
        self.site_url = site_url.rstrip("/")
        self._confirm = URLSafeTimedSerializer(secret, salt=CONFIRM_SALT)
        self._unsubscribe = URLSafeSerializer(secret, salt=UNSUBSCRIBE_SALT)

    def confirm_url(self, confirm_id: str) -> str:
        """Given a pending confirmation's opaque id, return its signed confirmation link."""
        return f"{self.site_url}/account/watches/confirm?t={self._confirm.dumps(confirm_id)}"

    def unsubscribe_url(self, watch_id: str) -> str:
        """Given a watch id, return its signed one-click unsubscribe link."""
        return f"{self.site_url}/account/watches/unsubscribe?t={self._unsubscribe.dumps(watch_id)}"

    def confirmation_id(self, token: str) -> str | None:
        """Given a confirmation token, return its confirmation id, or None if forged or
        expired."""
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


def bodies(template: str, **context: Any) -> tuple[str, str]:
    """Given a mail template's name (``alert``, ``confirm``) and its values, return the text
    and the HTML part (the HTML autoescaped). Raises jinja2.UndefinedError for a missing value."""
    text = _TEMPLATES.get_template(f"{template}.txt").render(**context)
    html = _TEMPLATES.get_template(f"{template}.html").render(**context)
    return text, html


def compose(
    *,
    subject: str,
    from_address: str,
    to: str,
    message_id: str,
    text: str,
    html: str,
    unsubscribe_url: str | None = None,
) -> EmailMessage:
    """Given the parts of one email, return it with every header built from neutralised values
    (:func:`bangscore.mail.header_text`, :func:`bangscore.mail.mailbox`) and, with an
    ``unsubscribe_url``, the RFC 2369/8058 one-click headers. Raises UnsafeMessage for an
    address that is not a plain mailbox."""
    message = new_message()
    message["Subject"] = header_text(subject)
    message["From"] = from_address
    message["To"] = mailbox(to, utf8=True)
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = message_id
    if unsubscribe_url is not None:
        message["List-Unsubscribe"] = f"<{unsubscribe_url}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    return message


def confirmation_message(
    pending: PendingConfirmation, from_address: str, links: WatchLinks
) -> EmailMessage:
    """Given a pending confirmation, the sender and the links, return the confirmation email
    (plain text and HTML from ``mail/confirm``); its link carries the confirmation's id."""
    text, html = bodies("confirm", url=links.confirm_url(pending.confirm_id))
    return compose(
        subject="Confirm your BangScore watch alerts",
        from_address=from_address,
        to=pending.email,
        message_id=make_msgid(domain=domain(from_address)),
        text=text,
        html=html,
    )


def domain(address: str) -> str:
    """Given the From setting (``Name <user@host>``), return its domain for Message-IDs."""
    return address.rsplit("@", 1)[-1].strip(" >") or "bangscore.local"
