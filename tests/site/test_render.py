"""The site renderer: templates compile once per process, and each renderer keeps its own
site URL and stylesheet version."""

from __future__ import annotations

import pytest
from markupsafe import Markup, escape

from bangscore.site import formats, render
from bangscore.site.render import Listing, SiteRenderer, escape_text


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


@pytest.mark.parametrize(
    ("observed", "as_of", "free", "shown"),
    [
        pytest.param("2026-07-24T09:00:00Z", "2026-07-24", False, "24 Jul 2026", id="fresh"),
        pytest.param("2026-01-25T00:00:00Z", "2026-07-24", False, "25 Jan 2026", id="180 days"),
        pytest.param(
            "2026-01-24T23:59:59Z", "2026-07-24", False, "last seen 24 Jan 2026", id="181"
        ),
        pytest.param("2025-01-01T00:00:00Z", None, False, "1 Jan 2025", id="no as-of date"),
        pytest.param(None, "2026-07-24", False, "—", id="undated"),
        # Team Fortress 2's $0 comes from a free marker of 31 Oct 2024: free, never stale.
        pytest.param("2024-10-31", "2026-07-24", True, "31 Oct 2024", id="free-never-stale"),
    ],
)
def test_price_seen_dates_a_stale_paid_price_last_seen(
    observed: str | None, as_of: str | None, free: bool, shown: str
) -> None:
    assert formats.price_seen(observed, as_of, free=free) == shown


@pytest.mark.parametrize(
    ("item", "words"),
    [
        pytest.param({"verdict": "buy_now"}, "Buy at this price", id="buy"),
        pytest.param(
            {"verdict": "wait_for_sale", "verdict_price_usd": 23.99}, "Wait for $23.99", id="wait"
        ),
        pytest.param(
            {
                "verdict": "wait_for_sale",
                "verdict_price_usd": 8.99,
                "verdict_price_seen_at": "2026-06-30",
            },
            "Wait for $8.99 (seen 30 Jun 2026)",
            id="wait, dated",
        ),
        pytest.param(
            {"verdict": "wait_for_sale", "verdict_price_usd": None},
            "Wait for a sale",
            id="wait, no price",
        ),
        pytest.param({"verdict": "skip"}, "Skip", id="skip"),
        pytest.param({}, "", id="no verdict"),
    ],
)
def test_verdict_words(item: dict[str, object], words: str) -> None:
    assert formats.verdict_words(item) == words


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("$20", id="tick"),
        pytest.param("<x&\"'>", id="hostile"),
        pytest.param("<x&\"'>", id="hostile-again-kept"),
        pytest.param(Markup("<b>safe</b>"), id="markup"),
        pytest.param(12.5, id="number"),
    ],
)
def test_escape_text_escapes_as_markupsafe_does(value: object) -> None:
    got = escape_text(value)
    assert got == escape(value) and isinstance(got, Markup)


NEXT_SALE = {
    "name": "Autumn Sale",
    "starts": "2026-10-01",
    "ends": "2026-10-08",
    "expected": False,
    "expected_price_usd": 8.99,
    "discounted_likelihood": 0.9,
    "basis": "sold at $8.99 in the last 2 of 2 seasonal sales seen",
}


@pytest.mark.parametrize(
    ("sale", "line"),
    [
        pytest.param(
            NEXT_SALE,
            "Expected in the Autumn Sale from 1 Oct 2026: about $8.99, sold at $8.99 in the last "
            "2 of 2 seasonal sales seen (discounted: 90% likely).",
            id="published-dates",
        ),
        pytest.param(
            {**NEXT_SALE, "expected": True, "starts": "2027-03-18", "name": "Spring Sale"},
            "Expected in the Spring Sale from 18 Mar 2027 (dates expected from past years): about "
            "$8.99, sold at $8.99 in the last 2 of 2 seasonal sales seen (discounted: 90% likely).",
            id="expected-dates-say-so",
        ),
        pytest.param(
            {
                **NEXT_SALE,
                "expected_price_usd": 19.99,
                "discounted_likelihood": 0.3,
                "basis": "not discounted in the 1 seasonal sale seen; 60% of games of its age were",
            },
            "In the Autumn Sale from 1 Oct 2026: likely its list price, $19.99; not discounted in "
            "the 1 seasonal sale seen; 60% of games of its age were (discounted: 30% likely).",
            id="a-discount-unlikely",
        ),
        pytest.param(
            {**NEXT_SALE, "confidence": "low"},
            "Expected in the Autumn Sale from 1 Oct 2026: about $8.99, sold at $8.99 in the last "
            "2 of 2 seasonal sales seen (discounted: 90% likely; low confidence).",
            id="with-its-confidence",
        ),
        pytest.param(None, "", id="no-forecast"),
    ],
)
def test_next_sale_line(sale: dict[str, object] | None, line: str) -> None:
    assert formats.next_sale_line({"next_sale": sale}) == line


@pytest.mark.parametrize(
    ("item", "words"),
    [
        pytest.param(
            {"price_usd": 14.99, "next_sale_price_usd": 8.99, "next_sale_starts": "2026-10-01"},
            "likely $8.99 from 1 Oct",
            id="cheaper",
        ),
        pytest.param(
            {
                "price_usd": 59.99,
                "next_sale_price_usd": 14.99,
                "next_sale_starts": "2026-12-17",
                "next_sale_confidence": "medium",
            },
            "likely $14.99 from 17 Dec (medium confidence)",
            id="with-its-confidence",
        ),
        pytest.param(
            {"price_usd": 8.99, "next_sale_price_usd": 8.99, "next_sale_starts": "2026-10-01"},
            "",
            id="no-cheaper-than-today",
        ),
        pytest.param(
            {"price_usd": 14.99, "next_sale_price_usd": None, "next_sale_starts": None},
            "",
            id="no-forecast",
        ),
    ],
)
def test_next_sale_words(item: dict[str, object], words: str) -> None:
    assert formats.next_sale_words(item) == words
