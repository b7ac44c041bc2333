"""Shim: the thin edge server that checks keys, counts quota and serves the snapshot."""
