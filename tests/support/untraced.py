"""The tests ``make test`` runs outside coverage's tracer: the lines and branches each one runs
are run by traced tests too, so leaving it untraced changes no figure of the coverage report,
and its CPU under the tracer (about twice its own, ``branch = true``) is saved.

Chosen by measurement, not by guess. On 3 Dec 2026 the whole suite ran with coverage's test
contexts (``--cov-context=test``; each subprocess a test starts recorded under a context of that
test's own, 01:18-01:29 UTC, load 1.4 to 3.5), and twice more, with and without coverage, with
each test's CPU time recorded (its process's and its children's, setup and teardown included;
00:51-01:15 UTC, load 3.5 to 5.2: another engineer's builds inflated both alike). Then, the test
functions in order of the CPU the tracer cost them, most first, each of the test's own process
(``TEST``) and of the processes it starts (``CHILDREN``, servers and commands: coverage's
``patch = ["subprocess"]``) was left untraced when every arc it ran was run by a test still
traced (or at import); those of a second or more are listed, 46 parts of 42 functions, 165 s
of CPU in all under coverage. The figure beside each is the seconds the tracer cost it. Then
the forecast backtest's fixture (its test's 4 arcs of its own now run by
tests/scoring/test_forecast.py's unit test) and 14 cases of the damaged dumps' test (below).

tests/conftest.py runs each listed test with coverage paused in its process (setup, call and
teardown: a module's fixtures first built by it are built untraced) and with the variables that
carry coverage to a subprocess (``COVERAGE_PROCESS_CONFIG``, ``COVERAGE_PROCESS_START``) out of
the environment of what it starts. ``make check`` runs without coverage: there it changes
nothing. A test renamed or removed here fails tests/test_untraced.py; the coverage floor
(``COV_FLOOR``) fails `make test` if a listed test ever is the only one to run a line. To
list more, measure again the same way (with ``--cov-context`` every test is traced; the
contexts tell which arcs each test alone runs). A test whose module's fixtures it builds first
leaves them untraced: compare the arcs a whole run covers before and after (a case of
hltb_2023 stays traced for that: the loop it ends ran, in one process, in the first case only).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

# The parts of a test left untraced: its own process, and the processes it starts.
TEST = "test"
CHILDREN = "children"
# What coverage's subprocess patch passes to a child so that it measures itself.
CHILD_VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")

# tests/ingest/dumps/test_expectations.py's test of each source's damaged dumps: the cases of the
# sources read after the storefront (hltb_2023, itad_2025: each reads the storefront's sample
# again) and of the storefront itself whose every arc other cases run too, chosen by their
# contexts as above; their figures are the module's own run with and without them listed, in
# one process, 58.1 and 31.7 s of CPU (3 Dec 2026 02:40-02:42 UTC, load 3.4-6.7).
DAMAGED = "test_a_damaged_dump_is_refused_naming_its_file_and_check"

# Test module -> its functions (or single cases, ``function[case]``) run untraced -> each part
# left untraced, with the CPU seconds the tracer cost it in the run that listed it.
UNTRACED: dict[str, dict[str, dict[str, float]]] = {
    "tests/bench/test_forecast_backtest.py": {
        "test_the_code_reads_the_tables_the_backtest_fitted": {TEST: 15.3},
    },
    "tests/bench/test_ranking.py": {
        "test_the_forecast_starts_from_the_build_day_not_from_prices_as_of": {TEST: 5.4},
    },
    "tests/build/test_as_of_real.py": {
        "test_the_catalogue_as_of_a_day_holds_no_later_observation": {TEST: 3.3},
    },
    "tests/build/test_buyer_real.py": {
        "test_every_better_value_box_is_the_best_of_its_genre_at_most_30_percent_dearer": {
            TEST: 1.5
        },
        "test_no_paid_buy_now_at_a_price_the_raw_dumps_saw_25pc_and_2_dollars_lower": {TEST: 6.4},
        "test_no_wait_names_a_price_25pc_and_2_dollars_above_a_newer_raw_price_of_its_tier": {
            TEST: 3.8
        },
        "test_the_real_verdicts_follow_the_sale_cycle": {TEST: 2.5},
    },
    "tests/build/test_push_real.py": {
        "test_the_deals_feed_holds_the_games_that_became_buy_now": {TEST: 1.0},
    },
    "tests/cli/test_serve.py": {
        "test_no_secret_in_a_one_worker_server_s_environment_and_a_killed_one_s_file_goes": {
            CHILDREN: 1.1
        },
    },
    "tests/contract/test_search.py": {
        "test_real_catalog_cyberpunk_finds_cyberpunk_2077_first": {TEST: 2.3},
    },
    "tests/hardening/test_access_log.py": {
        "test_a_reader_that_never_reads_bounds_memory_counts_drops_and_never_holds_shutdown": {
            TEST: 17.3
        },
        "test_two_workers_lines_never_interleave_with_a_slow_reader": {TEST: 4.6, CHILDREN: 3.1},
    },
    "tests/hardening/test_answers.py": {
        "test_1500_lookup_304s_of_100_appids_compress_no_answer": {TEST: 1.1},
        "test_star_is_counted_and_a_spent_key_gets_429_not_304": {CHILDREN: 1.3},
    },
    "tests/hardening/test_fuzz.py": {
        "test_every_response_conforms_and_none_is_5xx": {TEST: 5.8},
    },
    "tests/hardening/test_load.py": {
        "test_soak_counts_exactly_with_honest_headers": {TEST: 1.1},
    },
    "tests/hardening/test_memory.py": {
        "test_12_a_worker_over_the_real_catalogue_answers_everything_within_its_bound": {TEST: 1.3},
        "test_3000_distinct_queries_grow_a_worker_by_at_most_its_answer_budget_plus_16_mb": {
            TEST: 5.3
        },
    },
    "tests/hardening/test_operator.py": {
        "test_a_shrinking_catalogue_publishes_only_when_allowed": {CHILDREN: 1.2},
    },
    "tests/hardening/test_schemathesis.py": {
        "test_schemathesis_passes_over_the_whole_document": {CHILDREN: 6.5},
    },
    "tests/hardening/test_search_load.py": {
        "test_worst_queries_answer_bounded_pages_and_others_keep_being_served": {TEST: 2.9},
    },
    "tests/infra/test_locations.py": {
        "test_no_spelling_of_metrics_passes_the_edge": {TEST: 2.3, CHILDREN: 3.3},
    },
    "tests/ingest/dumps/test_expectations.py": {
        f"{DAMAGED}[hltb_2023-a-tenth-of-the-rows]": {TEST: 4.9},
        f"{DAMAGED}[hltb_2023-bad-compression]": {TEST: 1.3},
        f"{DAMAGED}[hltb_2023-empty]": {TEST: 1.4},
        f"{DAMAGED}[hltb_2023-key-renamed]": {TEST: 1.4},
        f"{DAMAGED}[hltb_2023-truncated]": {TEST: 1.3},
        f"{DAMAGED}[hltb_2023-wrong-json-shape]": {TEST: 1.2},
        f"{DAMAGED}[itad_2025-a-tenth-of-the-rows]": {TEST: 5.2},
        f"{DAMAGED}[itad_2025-bad-compression]": {TEST: 1.3},
        f"{DAMAGED}[itad_2025-bad-encoding]": {TEST: 1.4},
        f"{DAMAGED}[itad_2025-empty]": {TEST: 1.4},
        f"{DAMAGED}[itad_2025-key-renamed]": {TEST: 1.2},
        f"{DAMAGED}[itad_2025-wrong-columns]": {TEST: 1.3},
        f"{DAMAGED}[itad_2025-wrong-json-shape]": {TEST: 1.3},
        f"{DAMAGED}[steam_pics_2026-a-tenth-of-the-rows]": {TEST: 1.7},
    },
    "tests/ingest/resolve/test_tags.py": {
        "test_bundled_typical_order_recovers_genres_better_than_alphabetical": {TEST: 3.7},
    },
    "tests/mail/test_alerts_real.py": {
        "test_event_watches_fire_on_the_as_of_pair_as_the_raw_dumps_say": {TEST: 1.3},
    },
    "tests/scoring/calibration/test_bands.py": {
        "test_band_rows_partition_the_catalogue_and_each_row_sums_to_all": {TEST: 4.8},
        "test_no_game_under_70_percent_is_worth_it_and_the_report_says_so": {TEST: 1.0},
        "test_the_sale_target_is_the_lower_of_the_historical_low_and_a_quarter_of_list": {
            TEST: 4.3
        },
    },
    "tests/scoring/calibration/test_prior.py": {
        "test_the_norms_weights_are_the_least_the_real_catalogue_calls_for": {TEST: 3.6},
    },
    "tests/scoring/test_ranking.py": {
        "test_free_games_players_like_say_get_it": {TEST: 8.7},
        "test_listings_no_longer_sold_are_not_rated": {TEST: 3.0},
    },
    "tests/scoring/test_review_words.py": {
        "test_dota_2_s_sentence_quotes_the_recent_share_its_score_reads": {TEST: 2.3},
    },
    "tests/shim/account/test_accounts_browser.py": {
        "test_sign_up_out_and_in_from_either_loopback_name": {CHILDREN: 1.1},
    },
    "tests/shim/account/test_hooks_browser.py": {
        "test_add_a_webhook_and_read_its_log_in_chromium": {CHILDREN: 1.4},
    },
    "tests/shim/test_compose.py": {
        "test_every_precomputed_page_equals_its_composed_page": {TEST: 13.4},
        "test_vectorised_filter_agrees_with_the_reference": {TEST: 9.6},
    },
    # Listed later, on 3 Dec 2026: the arcs only it ran are run by tests/shim/test_pages.py's
    # test of searches waiting on the unrated names and by test_compose's series test (traced
    # again for it). Its CPU alone, its fixtures' first build included: 33.5 s traced, 20.5 s not.
    "tests/shim/test_memo.py": {
        "test_answers_on_the_real_catalogue_are_the_bytes_answered_without_the_memo": {TEST: 13.0},
    },
    "tests/shim/test_metrics.py": {
        "test_a_scrape_sums_every_worker": {CHILDREN: 1.1},
    },
    "tests/shim/test_verdict_browser.py": {
        "test_an_early_access_game_shows_its_flag": {TEST: 1.7},
    },
    "tests/storage/test_s3.py": {
        "test_publish_then_incremental_publish_skips_unchanged": {TEST: 1.2},
        "test_two_concurrent_publishers_one_wins": {TEST: 1.1},
    },
    "tests/stores/test_redis_replicas.py": {
        "test_redis_killed_mid_load_fails_open_and_counts_continue_when_back": {
            TEST: 1.8,
            CHILDREN: 1.1,
        },
        "test_two_replicas_share_what_was_left_while_redis_is_away": {TEST: 8.1},
        "test_two_shim_processes_sharing_redis_never_over_admit": {TEST: 3.2, CHILDREN: 1.5},
    },
}


def untraced_parts(nodeid: str) -> frozenset[str]:
    """Given a test's node id (``path::function[case]``), return the parts of it listed to run
    untraced (:data:`TEST`, :data:`CHILDREN`): its case's when the case is listed
    (``function[case]``), else its function's; empty for a test not listed."""
    path, _, test = nodeid.partition("::")
    listed = UNTRACED.get(path, {})
    return frozenset(listed.get(test, listed.get(test.partition("[")[0], {})))


@contextlib.contextmanager
def outside_coverage(parts: frozenset[str]) -> Iterator[None]:
    """Given the parts of a test to leave untraced, stop every Coverage measuring this process
    (when :data:`TEST` is among them) and take the variables that would trace a subprocess out
    of the environment (when :data:`CHILDREN` is) for the block; both are restored after.

    Every one, not only the newest: a pytest-xdist worker runs three (the one its interpreter
    started from the controller's ``COVERAGE_PROCESS_CONFIG``, pytest-cov's embedded one and
    its worker's), stacked, and stopping the newest resumes the one under it. They are started
    again oldest first, so the same one measures after the block as before it."""
    import coverage

    stopped = []
    while TEST in parts and (running := coverage.Coverage.current()) is not None:
        running.stop()
        stopped.append(running)
    saved = {}
    if CHILDREN in parts:
        saved = {name: os.environ.pop(name) for name in CHILD_VARIABLES if name in os.environ}
    try:
        yield
    finally:
        for running in reversed(stopped):
            running.start()
        os.environ.update(saved)
