"""BangScore: rates PC (Steam) games 0-100 for how much real game a buyer gets for the price.

One import package, ``bangscore``, whose subpackages are the repository's four layer folders:

- ``bangscore.ingest``: readers of the bundled dumps and adapters of the live sources;
- ``bangscore.scoring``: the value model (pure arithmetic on catalog records);
- ``bangscore.build``: the snapshot builder (catalog in, bytes per object key out);
- ``bangscore.shim``: the server (keys, quota, serving and composing snapshot objects).

The package root holds what sits above the layers: the command line (:mod:`bangscore.cli`, the
composition root) and its typed settings (:mod:`bangscore.settings`). In a source checkout the
four subpackages are symbolic links to the top-level folders; the wheel holds them as ordinary
folders. The prefix keeps the import names unambiguous: ``build`` alone is PyPA's packaging tool.
"""
