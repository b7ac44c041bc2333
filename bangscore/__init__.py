"""BangScore: rates PC (Steam) games 0-100 for how much real game a buyer gets for the price.

One import package, ``bangscore``, whose subpackages are the repository's four layer folders:

- ``bangscore.ingest``: readers of the bundled dumps and adapters of the live sources;
- ``bangscore.scoring``: the value model (pure arithmetic on catalog records);
- ``bangscore.build``: the snapshot builder (catalog in, bytes per object key out);
- ``bangscore.shim``: the server (keys, quota, serving and composing snapshot objects).

Beside them: the command line (:mod:`bangscore.cli`, the composition root), the watch mail
(:mod:`bangscore.mail`), the site, the stores, the wire contract and storage; the package root
holds the typed settings (:mod:`bangscore.settings`), the client and the shared errors. In a
source checkout the four layer subpackages are symbolic links to the top-level folders; the
wheel holds them as ordinary folders. The prefix keeps the import names unambiguous: ``build``
alone is PyPA's packaging tool.
"""
