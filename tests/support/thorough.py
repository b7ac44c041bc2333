"""The tests too costly for the fast loop: ``make check`` leaves them out (marker ``thorough``,
added by tests/conftest.py), ``make test`` runs them with the rest.

Chosen by measurement, not by guess: each test of ``make check``'s selection was run in one
process with its CPU time (the process's and its children's, setup and teardown included)
recorded, on 2 Dec 2026 at 04:47 UTC (load average 6.4 to 8.4: the machine's other work
inflates every figure alike; 61.0 s for the 2,916 tests). Listed: each test function with a
case at 0.18 s or more, 54 functions (104 cases, 33.3 s). With those left out, the rest was
measured again on ``make check``'s two pytest-xdist workers at 04:59 UTC (load 5.3 to 6.0;
24.9 s for 2,850 tests) and the functions with a case at 0.2 s or more were added: 8 more
(17 cases, 2.9 s). Measured once more the first way on 2 Dec 2026 at 07:47 UTC (load 10: another
engineer's builds; 25.4 s of the tests' own CPU for 2,961 tests, 29.7 s for the process), the
functions with a case at 0.15 s or more were added, for the margin the fast loop's 20 s needs:
22 more (28 cases, 5.9 s), most of them small builds and first users of a module's app; then
the dumps read by two workers (3.18 s, 09:25 UTC, load 1.7); 85 functions, 151 cases in all.
The figure beside each is its cases' sum in the run that listed
it. The property tests (Hypothesis) stay in the loop at fewer examples (tests/conftest.py's
``check`` profile). A test renamed or removed here fails
tests/test_fast_loop.py, so the list cannot go stale silently; a new test past 0.15 s belongs
here (a ``thorough`` test is ``make test``'s, never skipped).
"""

from __future__ import annotations

# Test module -> its functions left out of `make check`, each with its cases' CPU seconds.
THOROUGH: dict[str, dict[str, float]] = {
    "tests/bench/test_child.py": {
        "test_reports_the_commands_own_peak_not_its_starters": 1.00,
    },
    "tests/bench/test_export.py": {
        "test_figures_are_the_exports_bytes_and_rows": 0.18,
    },
    "tests/bench/test_figures.py": {
        "test_measure_reads_the_current_snapshot_and_the_disk": 0.26,
    },
    "tests/bench/test_forecast_backtest.py": {
        "test_observed_prices_come_from_the_raw_dumps_inside_the_sale": 1.63,
    },
    "tests/build/test_changes.py": {
        "test_the_changes_between_two_builds_are_the_detail_records_differences": 0.34,
    },
    "tests/build/test_export.py": {
        "test_export_records_equal_the_snapshot_detail_records": 0.24,
        "test_write_export_keeps_the_newest": 0.27,
    },
    "tests/build/test_feeds.py": {
        "test_each_entry_is_its_games_title_page_and_verdict": 0.30,
        "test_every_feed_is_valid_atom_read_by_feedparser": 0.27,
        "test_ids_stay_the_same_across_a_rebuild": 0.20,
        "test_the_deals_feed_of_a_first_build_holds_its_buy_now_games": 0.43,
    },
    "tests/build/test_parquet.py": {
        "test_games_read_back_as_the_detail_records": 0.31,
        "test_long_tables_hold_every_point": 0.16,
    },
    "tests/build/test_pipeline.py": {
        "test_a_build_records_its_day_and_forecasts_from_it": 0.72,
        "test_a_shrinking_catalogue_is_refused_unless_allowed": 0.22,
        "test_an_export_is_written_with_its_change_counts": 0.34,
        "test_the_export_reuses_the_snapshots_detail_records_byte_for_byte": 0.35,
    },
    "tests/build/test_snapshot.py": {
        "test_every_precomputed_combination_has_its_pages": 0.16,
        "test_forked_workers_render_the_same_objects_in_the_same_order": 0.54,
    },
    "tests/build/test_stage_cache.py": {
        "test_a_rebuild_reads_the_scores_back_and_a_changed_catalogue_scores_again": 0.44,
    },
    "tests/build/test_stages.py": {
        "test_a_build_reports_every_stage_and_they_add_up_to_at_most_the_whole": 0.39,
        "test_the_publish_bar_has_a_total_first_estimated_then_the_current_snapshot_s": 0.29,
        "test_timed_counts_the_producer_not_the_consumer": 0.30,
    },
    "tests/cli/test_build.py": {
        "test_a_build_from_a_damaged_dump_fails_naming_it_and_publishes_nothing": 0.35,
        "test_a_build_if_changed_is_skipped_while_its_inputs_and_snapshot_are_current": 0.46,
        "test_build_with_an_export_prints_what_changed_since_the_previous_export": 0.43,
        "test_build_without_an_export_prints_no_export_line": 0.19,
        "test_rollback_makes_an_older_snapshot_current_and_says_which_was": 0.35,
        "test_snapshots_list_gives_the_stored_size_the_build_reported": 0.20,
        "test_snapshots_refuses_an_id_it_does_not_keep_in_one_line": 0.59,
        "test_snapshots_verify_says_how_many_bodies_it_read": 0.21,
    },
    "tests/cli/test_main.py": {
        "test_build_bakes_the_url_of_the_configured_port": 0.16,
        "test_build_publishes_from_the_state_catalog": 0.22,
    },
    "tests/cli/test_serve.py": {
        "test_serve_refuses_a_host_name_in_metrics_allow_ips_at_start": 0.66,
    },
    "tests/cli/test_webhooks.py": {
        "test_a_store_of_no_known_kind_is_refused": 0.17,
        "test_add_list_test_and_remove": 0.27,
        "test_add_refuses_an_address_it_would_never_post_to": 0.62,
        "test_alerts_send_delivers_the_next_builds_events_once": 0.45,
    },
    "tests/contract/test_filters.py": {
        "test_a_year_filter_is_spelled_in_its_declaration_only": 1.91,
    },
    "tests/contract/test_search.py": {
        "test_a_query_work_is_bounded": 0.69,
    },
    "tests/ingest/dumps/test_registry.py": {
        # Measured on 2 Dec 2026 at 09:25 UTC (load 1.7): 3.18 s, the dumps read by two workers.
        "test_read_observations_by_workers_reads_what_one_process_reads": 3.18,
    },
    "tests/ingest/dumps/test_readers.py": {
        "test_insights_developer_loses_bidi_controls_in_the_real_dump_row": 0.26,
    },
    "tests/mail/test_webhooks.py": {
        "test_an_endpoint_failing_for_3_days_is_disabled_and_its_owner_told": 0.29,
    },
    "tests/scoring/calibration/test_report.py": {
        "test_summary_report_and_histogram": 0.68,
    },
    "tests/scoring/test_sales.py": {
        "test_the_dumps_see_the_summer_sale_2026_where_the_table_dates_it": 0.55,
    },
    "tests/shim/account/test_accounts.py": {
        "test_a_key_is_shown_once_works_counts_and_is_revoked": 0.50,
        "test_account_pages_are_never_cached_or_framed": 0.21,
        "test_account_pages_carry_rate_limit_headers": 0.27,
        "test_an_account_cannot_revoke_another_accounts_key": 0.43,
    },
    "tests/shim/account/test_watches.py": {
        "test_the_account_page_shows_each_watchs_state": 0.21,
    },
    "tests/shim/test_answer.py": {
        "test_publish_stores_large_json_and_html_compressed_only": 0.18,
    },
    "tests/shim/test_app.py": {
        "test_a_deleted_object_and_a_key_store_outage_say_what_failed": 0.20,
        "test_bodies_and_link_headers_follow_the_served_address_not_the_build_s": 0.18,
    },
    "tests/shim/test_compose.py": {
        "test_following_the_pointer_switches_and_then_warms_once_per_switch": 0.28,
        "test_old_snapshots_are_freed_after_a_switch": 0.80,
    },
    "tests/shim/test_downloads.py": {
        "test_export_needs_a_bulk_key": 0.24,
        "test_local_export_links_cannot_be_forged": 0.33,
        "test_local_export_links_download_until_they_expire": 0.25,
    },
    "tests/shim/test_edge.py": {
        "test_remembered_answers_stay_within_their_byte_budgets": 2.15,
    },
    "tests/shim/test_heap.py": {
        "test_a_serving_app_freezes_its_snapshot_until_shutdown": 0.55,
        "test_a_tests_app_leaves_the_collector_alone": 0.21,
        "test_settle_collects_then_freezes_what_is_alive": 0.74,
    },
    "tests/shim/test_lists.py": {
        "test_a_precomputed_page_is_the_stored_object": 0.36,
        "test_an_uncomputed_combination_is_composed_from_the_index": 0.19,
    },
    "tests/shim/test_pages.py": {
        "test_badge_and_about_pages": 0.19,
        "test_search_lists_at_most_ten_unrated_apps": 0.21,
        "test_search_names_known_games_that_are_not_rated": 0.21,
    },
    "tests/shim/test_push.py": {
        "test_a_feed_is_served_as_atom_and_counted_as_a_page": 0.40,
        "test_a_feed_that_does_not_exist_is_the_html_404": 0.40,
        "test_a_feeds_reading_view_is_a_page_of_the_same_entries": 0.43,
    },
    "tests/shim/test_readdress.py": {
        "test_a_snapshot_served_where_it_was_built_is_served_as_stored": 0.16,
        "test_every_body_of_a_snapshot_built_elsewhere_carries_the_served_address": 0.18,
    },
    "tests/shim/test_source.py": {
        "test_a_malformed_snapshot_is_refused_once_and_the_next_good_one_switched_to": 2.42,
        "test_an_app_started_on_a_malformed_snapshot_answers_503_until_a_good_one": 3.53,
        "test_the_follower_outlives_every_malformed_snapshot": 0.24,
    },
    "tests/stores/test_sqlite_store.py": {
        "test_one_process_holds_a_bounded_number_of_leases": 1.49,
    },
    "tests/test_api_doc.py": {
        "test_nothing_cites_documents_outside_the_repository": 0.20,
        "test_the_docs_and_the_models_agree_on_which_day_a_date_field_names": 0.21,
    },
    "tests/test_api_doc_examples.py": {
        "test_the_client_example_runs_as_written_on_recorded_answers": 0.23,
    },
    "tests/test_client_failures.py": {
        "test_24_hostile_16_mib_pages_leave_the_client_under_100_mb": 0.77,
    },
    "tests/test_layers.py": {
        "test_every_shim_module_serves_the_app": 0.54,
        "test_no_function_of_the_package_ranks_worse_than_c": 0.88,
        "test_no_module_of_ours_is_in_an_import_cycle": 0.64,
        "test_one_name_one_thing": 0.45,
    },
    "tests/test_packaging.py": {
        "test_layers_import_under_the_bangscore_prefix_only": 0.87,
    },
}


def is_thorough(nodeid: str) -> bool:
    """Given a test's node id (``path::function[case]``), return whether it is listed."""
    path, _, function = nodeid.partition("[")[0].partition("::")
    return function in THOROUGH.get(path, {})
