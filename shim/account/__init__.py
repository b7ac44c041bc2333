"""The account website under ``/account`` (docs/API.md#website): sign-up, sign-in, keys
(:mod:`bangscore.shim.account.accounts`), credentials (:mod:`bangscore.shim.account.passwords`)
and watches (:mod:`bangscore.shim.account.watches`). It reaches accounts, keys and watches
through :mod:`bangscore.stores`, as the operators' tools do.
"""
