"""Calibration: the figures the model reads from the real catalogue (scoring/genre_norms.json,
:mod:`.norms` and :mod:`.prior`) and the report of how the score behaves on it
(scoring/CALIBRATION.md: :mod:`.summary`, :mod:`.report`, :mod:`.figures`, :mod:`.bands`,
:mod:`.targets`). ``make calibrate`` writes both (:mod:`bangscore.cli.calibrate`)."""
