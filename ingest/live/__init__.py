"""The live refresh: the polite HTTP client (:mod:`.http`), one module per source adapter,
the adapter registry every part reads (:mod:`.adapters`), the plan of a refresh
(:mod:`.plan`), live layers (:mod:`.layers`) and the run itself (:mod:`.refresh`). The only
part of the ingest that reaches the network (the ``http-stack`` import contract).
"""
