"""The signed links of the watch emails: confirmation and one-click unsubscribe.

Links are signed with itsdangerous under the site's session secret (each kind under its own
salt), so every replica and ``bangscore alerts send`` make and check the same links. Tokens
carry opaque ids, never an address (the access log keeps query strings):

- ``{site}/account/watches/confirm?t=`` carries a pending confirmation's id (valid for 30
  days);
- ``{site}/account/watches/unsubscribe?t=`` carries a watch id; it is the RFC 8058 one-click
  target (a POST with ``List-Unsubscribe=One-Click``);
- ``{site}/account/signup/confirm?t=`` carries a pending sign-up's id (valid for 2 days): its
  POST creates the account.

Kept apart from :mod:`bangscore.mail.messages` because the server checks these links but never
composes or sends mail (the import contracts forbid it ``bangscore.mail.smtp``).
"""

from __future__ import annotations

from itsdangerous import BadSignature, URLSafeSerializer, URLSafeTimedSerializer

CONFIRM_SALT = "bangscore-watch-confirm-id"
UNSUBSCRIBE_SALT = "bangscore-watch-unsubscribe"
SIGNUP_SALT = "bangscore-account-signup"
CONFIRM_SECONDS = 30 * 86_400
SIGNUP_SECONDS = 2 * 86_400


class WatchLinks:
    """Makes and checks the signed confirmation and unsubscribe links of one site."""

    def __init__(self, secret: str, site_url: str) -> None:
        self.site_url = site_url.rstrip("/")
        self._confirm = URLSafeTimedSerializer(secret, salt=CONFIRM_SALT)
        self._unsubscribe = URLSafeSerializer(secret, salt=UNSUBSCRIBE_SALT)
        self._signup = URLSafeTimedSerializer(secret, salt=SIGNUP_SALT)

    def signup_url(self, signup_id: str) -> str:
        """Given a pending sign-up's opaque id, return its signed link (creates the account)."""
        return f"{self.site_url}/account/signup/confirm?t={self._signup.dumps(signup_id)}"

    def signup_id(self, token: str) -> str | None:
        """Given a sign-up token, return its sign-up id, or None if forged or expired."""
        try:
            value = self._signup.loads(token, max_age=SIGNUP_SECONDS)
        except BadSignature:
            return None
        return value if isinstance(value, str) else None

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
