"""The website's "rate a list of games" page (docs/API.md#website): paste appids or store
links, get their rows with the verdict, in the order pasted; the same lookup as
``GET /api/v1/lookup``, rendered with the site's templates. :mod:`bangscore.shim.website`
routes it.
"""

from __future__ import annotations

import re

import orjson
from starlette.requests import Request
from starlette.responses import Response

from bangscore.contract.limits import MAX_APPID_DIGITS, MAX_LOOKUP_APPIDS
from bangscore.contract.not_rated import REASON_LABEL
from bangscore.errors import BadRequest, ParamError
from bangscore.manifest import etag_for
from bangscore.shim.answer import HTML, Resolved
from bangscore.shim.pages import PageAnswer, Pages, adult_shown, here
from bangscore.shim.source import LoadedSnapshot
from bangscore.site.adult import keep_adult

# A token of the rate-a-list box: an appid, or a store link holding /app/<appid>.
_APPID_TOKEN = re.compile(rf"[0-9]{{1,{MAX_APPID_DIGITS}}}")
_STORE_LINK = re.compile(rf"/app/([0-9]{{1,{MAX_APPID_DIGITS}}})(?:[/?#]|$)")
_SEPARATORS = re.compile(r"[\s,;]+")
RATE_ACCEPTS = (
    f"at most {MAX_LOOKUP_APPIDS} games a list: appids or store links, one a line or "
    "separated by commas"
)
# The pasted text shown back in the form and read, at most (100 store links fit in 10 KB).
MAX_RATE_TEXT = 16 * 1024


def appids_in(text: str) -> tuple[list[int], list[str]]:
    """Given what a visitor pasted (appids and store links such as
    ``https://store.steampowered.com/app/620/Portal_2/``, separated by spaces, line breaks,
    commas or semicolons), return the appids each once in the order pasted, and the tokens
    that are neither (shown back as not understood)."""
    appids: dict[int, None] = {}
    ignored: list[str] = []
    for token in _SEPARATORS.split(text):
        if not token:
            continue
        if _APPID_TOKEN.fullmatch(token):
            appids[int(token)] = None
        elif link := _STORE_LINK.search(token):
            appids[int(link.group(1))] = None
        else:
            ignored.append(token)
    return list(appids), ignored


async def rate(request: Request) -> Response:
    """Serve ``/rate?ids=``: paste up to 100 appids or store links, get their rows with the
    verdict in the order pasted, the known apps that are not rated with the reason, and the
    appids nobody knows; the same lookup as ``GET /api/v1/lookup``."""
    pages: Pages = request.app.state.pages
    items = request.query_params.multi_items()

    def read() -> tuple[bool, str]:
        adult, rest = adult_shown(items)
        unknown = sorted({k for k, _ in rest if k != "ids"})
        if unknown:
            raise BadRequest(
                [ParamError(k, "unknown parameter; accepted: ids, adult") for k in unknown]
            )
        # The page shows the text back, so the text is the reading, whatever the order.
        return adult, next((v for k, v in rest if k == "ids"), "")[:MAX_RATE_TEXT]

    async def refuse(error: BadRequest) -> PageAnswer:
        return PageAnswer(400, pages.site.rate_page("", errors=error.errors))

    async def render(snap: LoadedSnapshot, reading: tuple[bool, str]) -> Resolved | PageAnswer:
        adult, text = reading
        appids, ignored = appids_in(text)
        if len(appids) > MAX_LOOKUP_APPIDS:
            error = ParamError("ids", f"{RATE_ACCEPTS} (this one holds {len(appids)})")
            return PageAnswer(400, pages.site.rate_page(text, errors=[error]))
        body, _ = snap.index.lookup(tuple(appids), snap.not_rated)
        answer = orjson.loads(body)
        games = [g for g in answer["games"] if adult or not g["adult"]]
        unrated = [
            {**n, "reason_text": REASON_LABEL.get(n["reason"], n["reason"].replace("_", " "))}
            for n in answer["not_rated"]
        ]
        for entry in unrated:
            known = snap.not_rated.lookup(entry["appid"])
            entry["name"] = known[0] if known else ""
        html = pages.site.rate_page(
            text,
            asked=len(appids),
            games=games,
            hidden=len(answer["games"]) - len(games),
            not_rated=unrated,
            not_found=answer["not_found"],
            ignored=ignored,
            dates=await pages.dates(snap),
            here=here(f"{pages.root}/rate", {"ids": text} if text else {}),
        )
        html = keep_adult(html, pages.root) if adult else html
        return Resolved(html, etag_for(html), HTML)

    return await pages.serve(request, pages.remembered(request, read, render, refuse))
