"""Scoring: the bang_score, its tier and price thresholds, and the one-genre mapping.

Pure functions only; :mod:`scoring.calibrate` is the one module that reads a catalog and
writes files (the calibration report). The formula in :mod:`scoring.value` is private.
"""
