"""Response headers that protect browsers (docs/API.md#website): a Content-Security-Policy
and framing ban on HTML pages, HSTS when the site is served over https, and no cross-origin
reads of the account pages.

The pages need no inline script (the keys page's one script is served from
``/account/keys.js``) and their stylesheet is ``/style.css``; the charts and the account
pages' few extra rules are inline styles, so inline styles stay allowed.
"""

from __future__ import annotations

CONTENT_SECURITY_POLICY = (
    b"default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    b"img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HSTS = b"max-age=31536000"
ACCOUNT_PREFIX = "/account"


def browser_headers(path: str, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """Given a request path and a response's raw headers, return the headers with the page
    policy applied: CSP and ``X-Frame-Options: DENY`` on ``text/html``, and the CORS headers
    removed under ``/account``. (:data:`HSTS` is added by the edge to every answer when the
    site URL is https.)"""
    account = path == ACCOUNT_PREFIX or path.startswith(ACCOUNT_PREFIX + "/")
    if not account and not any(
        name == b"content-type" and value.startswith(b"text/html") for name, value in headers
    ):
        return headers  # the API's answers: nothing to add or remove
    out = [
        (name, value)
        for name, value in headers
        if not (account and name.startswith(b"access-control-"))
    ]
    names = {name for name, _ in out}
    html = any(name == b"content-type" and value.startswith(b"text/html") for name, value in out)
    if html and b"content-security-policy" not in names:
        out.append((b"content-security-policy", CONTENT_SECURITY_POLICY))
    if html and b"x-frame-options" not in names:
        out.append((b"x-frame-options", b"DENY"))
    return out
