"""The website's rendering in one place: the jinja2 templates under one base template
(``bangscore/site/templates``, the game page's charts and the badge among them as SVG
templates), the labels pages show (:mod:`bangscore.site.labels`), the charts' and the badge's
geometry as plain values (:mod:`bangscore.site.chart`, :mod:`bangscore.site.history_chart`,
:mod:`bangscore.site.badge`) and the renderer (:mod:`bangscore.site.render`).

The builder renders the static pages with it, the server the browse, search, error and account
pages; it imports the snapshot contract and scoring's vocabulary, never the builder or the server.
"""
