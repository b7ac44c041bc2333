"""The website's adult toggle (docs/API.md#website): ``adult=true`` shows adult games, and every
link of a page shown with it keeps it.

The site's pages are rendered for its default (adult games hidden). :func:`keep_adult` turns
such a page into the same page for a visitor who turned adult games on: every link to a page
that lists or shows games (``/``, ``/games``, ``/search``, ``/game/...``) gains ``adult=true``,
every GET form to ``/games`` or ``/search`` carries it as a hidden field, and the toggle link
(``id="adult-toggle"``) turns into "Hide adult games", pointing at the page without it. Pure
bytes to bytes: the builder uses it for the precomputed adult home page, the shim for a game
page or a browse or search page asked with ``adult=true``.

Links of the docs, the account pages and the score's explanation list no game and are left
as they are.
"""

from __future__ import annotations

import re
from typing import Final

PARAMETER: Final = "adult"
SHOW_TEXT: Final = "Show adult games"
HIDE_TEXT: Final = "Hide adult games"
HIDDEN_FIELD: Final = b'<input type="hidden" name="adult" value="true">'
# The opening tag of every link and form; the tag's attributes decide what is rewritten.
_TAG = re.compile(rb"<(a|form)\b[^>]*>")
_TOGGLE = re.compile(rb'(<a\b[^>]*\bid="adult-toggle"[^>]*>)' + SHOW_TEXT.encode() + rb"</a>")
_HREF = re.compile(rb'\bhref="([^"]*)"')
_ACTION = re.compile(rb'\baction="([^"]*)"')


def _lists_games(path: bytes, root: bytes) -> bool:
    """Given a link's path (no query) and the site's root path, return True when it names a
    page that lists or shows games."""
    if not path.startswith(root + b"/"):
        return False
    rest = path[len(root) :]
    return rest in (b"/", b"/games", b"/search") or rest.startswith(b"/game/")


def with_parameter(href: bytes) -> bytes:
    """Given an href (HTML-escaped), return it with ``adult=true`` added to its query."""
    base, hash_, fragment = href.partition(b"#")
    joined = b"&amp;" if b"?" in base and not base.endswith(b"?") else b"" if b"?" in base else b"?"
    return base + joined + b"adult=true" + hash_ + fragment


def without_parameter(href: bytes) -> bytes:
    """Given an href (HTML-escaped) carrying ``adult=true``, return it without."""
    base, hash_, fragment = href.partition(b"#")
    path, _, query = base.partition(b"?")
    kept = [p for p in query.split(b"&amp;") if p and p != b"adult=true"]
    return path + (b"?" + b"&amp;".join(kept) if kept else b"") + hash_ + fragment


def toggle_href(here: str) -> str:
    """Given the root-relative URL of a page as the site shows it by default (path and query,
    unescaped), return the toggle link's target: the same page with ``adult=true``."""
    return here + ("&" if "?" in here else "?") + "adult=true"


def keep_adult(page: bytes, root: str = "") -> bytes:
    """Given a page rendered for the site's default (UTF-8 HTML) and the site's root path
    (``""`` at the host's root), return it as shown with ``adult=true`` (see the module)."""
    root_bytes = root.rstrip("/").encode()

    def toggle(found: re.Match[bytes]) -> bytes:
        tag = _HREF.sub(lambda h: b'href="' + without_parameter(h[1]) + b'"', found[1])
        return tag + HIDE_TEXT.encode() + b"</a>"

    def rewrite(found: re.Match[bytes]) -> bytes:
        tag = found[0]
        if b'id="adult-toggle"' in tag:
            return tag
        if found[1] == b"a":
            href = _HREF.search(tag)
            if href is None or not _lists_games(href[1].split(b"?")[0].split(b"#")[0], root_bytes):
                return tag
            return tag[: href.start(1)] + with_parameter(href[1]) + tag[href.end(1) :]
        action = _ACTION.search(tag)
        method_get = b'method="post"' not in tag.lower()
        if action is None or not method_get or not _lists_games(action[1], root_bytes):
            return tag
        return tag + HIDDEN_FIELD

    return _TOGGLE.sub(toggle, _TAG.sub(rewrite, page))


BOX_START: Final = b'<section id="better-box"'
BOX_END: Final = b"</section><!--/better-box-->"


def replace_better_box(page: bytes, box: bytes) -> bytes:
    """Given a game page and a better-value box (``<section id="better-box">`` ... its end
    marker, as the ``better_box`` macro renders it), return the page with its box replaced;
    the page unchanged when it has none."""
    start = page.find(BOX_START)
    end = page.find(BOX_END, start)
    if start < 0 or end < 0:
        return page
    return page[:start] + box + page[end + len(BOX_END) :]
