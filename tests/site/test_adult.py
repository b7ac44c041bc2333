"""The website's adult toggle: a page shown with ``adult=true`` keeps it in every link to a page
that lists or shows games, carries it in the search and filter forms, and offers to hide them."""

from __future__ import annotations

import pytest

from bangscore.site.adult import (
    keep_adult,
    replace_better_box,
    toggle_href,
    with_parameter,
    without_parameter,
)
from bangscore.site.render import Listing, SiteRenderer


@pytest.mark.parametrize(
    ("href", "kept"),
    [
        pytest.param(b"/games", b"/games?adult=true", id="no-query"),
        pytest.param(b"/games?genre=rpg", b"/games?genre=rpg&amp;adult=true", id="query"),
        pytest.param(b"/game/1/x#verdict", b"/game/1/x?adult=true#verdict", id="fragment"),
        pytest.param(b"/search?", b"/search?adult=true", id="empty-query"),
    ],
)
def test_with_and_without_the_parameter(href: bytes, kept: bytes) -> None:
    assert with_parameter(href) == kept
    assert without_parameter(kept) == href.rstrip(b"?")


@pytest.mark.parametrize("root", ["", "/bang"])
def test_keep_adult_rewrites_game_links_forms_and_the_toggle(root: str) -> None:
    page = (
        f'<a href="{root}/">Home</a><a href="{root}/games?genre=rpg&amp;page=2">Next</a>'
        f'<a href="{root}/game/620/portal-2">Portal 2</a><a href="{root}/docs">Docs</a>'
        f'<a href="{root}/about/score">About</a><a href="https://store.example/app/1/">Store</a>'
        f'<a id="adult-toggle" href="{root}/search?q=doom&amp;adult=true">Show adult games</a>'
        f'<form class="site-search" method="get" action="{root}/search"><input name="q"></form>'
        f'<form method="post" action="{root}/games"></form>'
        f'<form method="get" action="{root}/account/watch"></form>'
    ).encode()
    kept = keep_adult(page, root).decode()
    assert f'<a href="{root}/?adult=true">Home</a>' in kept
    assert f'href="{root}/games?genre=rpg&amp;page=2&amp;adult=true">Next' in kept
    assert f'href="{root}/game/620/portal-2?adult=true">' in kept
    assert f'href="{root}/docs">' in kept and f'href="{root}/about/score">' in kept
    assert 'href="https://store.example/app/1/">' in kept
    assert f'<a id="adult-toggle" href="{root}/search?q=doom">Hide adult games</a>' in kept
    assert (
        f'action="{root}/search"><input type="hidden" name="adult" value="true"><input name="q">'
        in kept
    )
    assert f'<form method="post" action="{root}/games"></form>' in kept
    assert f'<form method="get" action="{root}/account/watch"></form>' in kept
    assert kept.count("adult=true") == 3 + 0  # three links; the toggle drops it
    assert keep_adult(b"<p>no links</p>") == b"<p>no links</p>"


@pytest.mark.parametrize(
    ("here", "href"),
    [
        pytest.param("/", "/?adult=true", id="home"),
        pytest.param("/games?genre=rpg", "/games?genre=rpg&adult=true", id="with-query"),
    ],
)
def test_toggle_href(here: str, href: str) -> None:
    assert toggle_href(here) == href


def test_a_rendered_search_page_turns_into_its_adult_twin() -> None:
    site = SiteRenderer(site_url="http://127.0.0.1:8000", base_url="http://127.0.0.1:8000")
    listing = Listing([], 2, 3, 25, {"next": "/search?q=doom&page=3"})
    page = site.search_page("doom", listing, here="/search?q=doom&page=2")
    assert b'id="adult-toggle" href="/search?q=doom&amp;page=2&amp;adult=true">Show adult' in page
    kept = keep_adult(page)
    assert b'id="adult-toggle" href="/search?q=doom&amp;page=2">Hide adult games</a>' in kept
    assert b'href="/search?q=doom&amp;page=3&amp;adult=true"' in kept
    assert b'<input type="hidden" name="adult" value="true">' in kept


def test_replace_better_box() -> None:
    page = b'<p>a</p><section id="better-box" x><ol>old</ol></section><!--/better-box--><p>b</p>'
    box = b'<section id="better-box"><ol>new</ol></section><!--/better-box-->'
    assert replace_better_box(page, box) == b"<p>a</p>" + box + b"<p>b</p>"
    assert replace_better_box(b"<p>none</p>", box) == b"<p>none</p>"
