"""The resolution of observations into records: layered observations (:mod:`.observations`),
which one wins per field (:mod:`.resolution`), cross-checks (:mod:`.checks`), prices as a
dated series (:mod:`.prices`), names and tag order. Pure: no files, no HTTP.
"""
