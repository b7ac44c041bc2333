"""The ``bangscore`` command line, the composition root: :mod:`bangscore.cli.main` reads the
settings once and hands typed values to the command groups, one module each
(:mod:`~bangscore.cli.build`, :mod:`~bangscore.cli.serve`, :mod:`~bangscore.cli.keys`,
:mod:`~bangscore.cli.watch`), which share argument types (:mod:`~bangscore.cli.arguments`);
the operators' usage report (:mod:`~bangscore.cli.usage`) and the README's settings table
(:mod:`~bangscore.cli.settings_doc`) sit beside them."""
