"""The snapshot contract: what the builder writes and the server reads, below both.

The list filters, each declared once, and the object keys of list pages, details and indexes
(:mod:`bangscore.contract.filters`; what a filter declaration is:
:mod:`bangscore.contract.list_filter`), the compact index's layout
(:mod:`bangscore.contract.compact`), the page envelope and paging
(:mod:`bangscore.contract.paging`), every request limit (:mod:`bangscore.contract.limits`), the
search index format and its queries (:mod:`bangscore.contract.search`), and the route table
with its error codes (:mod:`bangscore.contract.api`; its patterns' pieces:
:mod:`bangscore.contract.patterns`). It imports no layer but scoring's vocabulary (genres,
not-rated reasons); :mod:`bangscore.manifest` and :mod:`bangscore.storage` sit beside it.
"""
