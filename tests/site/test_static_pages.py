"""The website's static pages come from one table: a row (path, template) is all the builder
and the shim need, so a new static page is its template, its row and its test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from bangscore.contract.objects import static_page_key
from bangscore.manifest import read_body, read_manifest_view
from bangscore.site import static_pages
from bangscore.site.static_pages import STATIC_PAGES, StaticPage
from tests.support import factories

TEMPLATES = Path(static_pages.__file__).parent / "templates"


@pytest.mark.parametrize("page", STATIC_PAGES, ids=[p.path for p in STATIC_PAGES])
def test_each_row_names_a_template_and_a_key_under_site(page: StaticPage) -> None:
    assert (TEMPLATES / page.template).is_file()
    assert page.path.startswith("/") and not page.path.endswith("/")
    assert page.key == static_page_key(page.path) == f"site{page.path}.html"


def test_a_row_added_to_the_table_is_built_and_served(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    added = StaticPage("/about/again", "about_score.html")
    monkeypatch.setattr(static_pages, "STATIC_PAGES", (*STATIC_PAGES, added))
    storage, _ = factories.publish_catalog(factories.small_catalog())
    entries = read_manifest_view(storage, "s1").entries
    stored = read_body(storage, entries["site/about/again.html"])
    assert stored == read_body(storage, entries[STATIC_PAGES[0].key])  # the same template
    app, _, _ = factories.make_app(storage, tmp_path)
    with TestClient(app, base_url=factories.SITE) as client:
        page = client.get("/about/again")
        assert page.status_code == 200 and page.content == stored
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        revalidated = client.get("/about/again", headers={"If-None-Match": page.headers["etag"]})
        assert revalidated.status_code == 304
        shown = client.get("/about/again?adult=true")
        assert shown.status_code == 200 and 'href="/games?adult=true"' in shown.text
        refused: Any = client.get("/about/again?adult=maybe")
        assert refused.status_code == 400 and "adult" in refused.text
        assert client.get("/about/elsewhere").status_code == 404
