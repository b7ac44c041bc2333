"""The bundled raw dumps under ``data/raw`` (provenance in ``data/README.md``): the file
readers (:mod:`.files`), one reader per dump (:mod:`.readers`, :mod:`.pics`,
:mod:`.insights`, :mod:`.legacy`, :mod:`.early_window`; the cells they read: :mod:`.cells`)
and the registry of bundled sources (:mod:`.registry`). No HTTP.
"""
