"""Scoring: the bang_score, its tier and price thresholds, and the one-genre mapping.

Pure functions only, importing no other layer: the calibration report that reads a catalog and
writes files is :mod:`bench.calibrate`, above the layers. The formula in
:mod:`scoring.value` is private.
"""
