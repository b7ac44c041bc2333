"""The website's rendering in one place: the jinja2 templates under one base template
(``bangscore/site/templates``), the labels pages show (:mod:`bangscore.site.labels`), the
price chart's SVG markup (:mod:`bangscore.site.chart`) and the renderer
(:mod:`bangscore.site.render`).

The builder renders the static pages with it, the server the browse, search, error and account
pages; it imports the snapshot contract and scoring's vocabulary, never the builder or the server.
"""
