"""The watch emails, rendered from templates, with the signed links of :mod:`bangscore.mail.links`.

The bodies are jinja2 templates beside the site's (``bangscore/site/templates/mail``): a text
part (no escaping) and an HTML part (autoescaped). Headers are built by
:mod:`bangscore.mail.smtp` from neutralised values only.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from bangscore.mail.links import WatchLinks
from bangscore.mail.smtp import header_text, mailbox, new_message
from bangscore.stores.watchstore import PendingConfirmation, PendingSignup

_TEMPLATES = Environment(
    loader=PackageLoader("bangscore.site", "templates/mail"),
    autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
    undefined=StrictUndefined,
    keep_trailing_newline=True,
)


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


def signup_message(signup: PendingSignup, from_address: str, links: WatchLinks) -> EmailMessage:
    """Given a queued sign-up, the sender and the links, return its email: for a new address
    the link that creates the account (``mail/signup``); for an address that already has an
    account, word to its owner that someone tried to sign up with it, with no link
    (``mail/signup_taken``)."""
    if signup.password_hash is None:
        subject = "Someone tried to sign up to BangScore with this address"
        text, html = bodies("signup_taken", account_url=f"{links.site_url}/account")
    else:
        subject = "Finish creating your BangScore account"
        text, html = bodies("signup", url=links.signup_url(signup.signup_id))
    return compose(
        subject=subject,
        from_address=from_address,
        to=signup.email,
        message_id=make_msgid(domain=domain(from_address)),
        text=text,
        html=html,
    )


def domain(address: str) -> str:
    """Given the From setting (``Name <user@host>``), return its domain for Message-IDs."""
    return address.rsplit("@", 1)[-1].strip(" >") or "bangscore.local"
