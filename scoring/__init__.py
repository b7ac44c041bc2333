"""Scoring: the bang_score, its tier and price thresholds, and the one-genre mapping.

Pure functions only, importing no other layer. :mod:`.calibration` derives the figures the model
reads (scoring/genre_norms.json) and the calibration report from a scored catalogue; the command
that loads the catalogue and writes those files is :mod:`bangscore.cli.calibrate`, the top
layer. The formula in :mod:`scoring.value` is private.
"""
