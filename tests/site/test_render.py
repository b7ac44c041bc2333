"""The site renderer: templates compile once per process, and each renderer keeps its own
site URL and stylesheet version."""

from __future__ import annotations

import pytest

from bangscore.site import render
from bangscore.site.render import Listing, SiteRenderer


@pytest.mark.parametrize(
    ("site_url", "home_link"),
    [
        pytest.param("http://127.0.0.1:8000", 'href="/"', id="at-the-root"),
        pytest.param("https://example.org/bang", 'href="/bang/"', id="under-a-path"),
    ],
)
def test_renderers_share_compiled_templates_but_not_their_site(
    site_url: str, home_link: str
) -> None:
    SiteRenderer(site_url="http://first.example", base_url="http://first.example").search_page(
        "", Listing([], 1, 0, 0)
    )
    compiled = dict(render._BYTECODE._code)

    page = SiteRenderer(site_url=site_url, base_url=site_url).search_page("", Listing([], 1, 0, 0))

    assert compiled and dict(render._BYTECODE._code) == compiled
    assert home_link.encode() in page
    assert site_url.encode() in page
    assert b"first.example" not in page
