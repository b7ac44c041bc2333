"""``bangscore ingest --dry-run``'s arithmetic: requests per host and least wall time."""

from __future__ import annotations

import pytest

from bangscore.ingest.live.adapters import DEFAULT_HOST_LIMIT, DEFAULT_RATE_LIMITS, Endpoints
from bangscore.ingest.live.http import RateLimit
from bangscore.ingest.live.plan import least_seconds, plan_refresh

HOSTS = Endpoints()


@pytest.mark.parametrize(
    ("requests", "limit", "seconds"),
    [
        pytest.param(60, RateLimit(60, 60.0), 0.0, id="within-the-burst"),
        pytest.param(61, RateLimit(60, 60.0), 1.0, id="one-past-the-burst"),
        pytest.param(400, RateLimit(200, 300.0), 300.0, id="store-host"),
    ],
)
def test_least_seconds_is_the_burst_then_the_refill_rate(
    requests: int, limit: RateLimit, seconds: float
) -> None:
    assert least_seconds(requests, limit) == seconds


def test_nightly_plan_of_the_rated_catalogue_fits_in_30_minutes() -> None:
    plan = plan_refresh(39_503, HOSTS, DEFAULT_RATE_LIMITS, DEFAULT_HOST_LIMIT, itad=True)
    nightly = {
        (line.adapter, line.host): line.requests for line in plan.lines if line.cycle == "nightly"
    }
    assert nightly == {
        ("store_items", "api.steampowered.com"): 396 + 1,
        ("itad", "api.isthereanydeal.com"): 2 * 198,
    }
    # api host: (397 - 60) s at 1/s; ITAD: (396 - 60) s at 1/s.
    assert plan.seconds("nightly") == 337 + 336
    assert plan.seconds("nightly") < 30 * 60
    text = plan.render()
    assert "least wall time: 11 min 13 s" in text
    assert "39,503 rated games" in text


def test_slow_cycle_shares_a_host_bucket_across_adapters() -> None:
    plan = plan_refresh(1_000, HOSTS, DEFAULT_RATE_LIMITS, DEFAULT_HOST_LIMIT, itad=False)
    assert [line.adapter for line in plan.lines if line.cycle == "nightly"] == ["store_items"]
    # reviews (1,000 on the store host: 800 past the burst at 200/300 s) + steamspy
    # (999 s) + achievements on the API host (940 s) + hltb (1,998 s) + pcgw (999 s).
    assert plan.seconds("slow") == pytest.approx(1_200 + 999 + 940 + 1_998 + 999)


def test_app_list_adds_one_nightly_request_on_the_api_host() -> None:
    plan = plan_refresh(
        39_503, HOSTS, DEFAULT_RATE_LIMITS, DEFAULT_HOST_LIMIT, itad=False, app_list=True
    )
    nightly = [(line.adapter, line.requests) for line in plan.lines if line.cycle == "nightly"]
    assert nightly == [("store_items", 397), ("app_list", 1)]
    assert plan.seconds("nightly") == 397 + 1 - 60  # one bucket for the host
