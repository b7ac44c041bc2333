"""Ingest: read the sources (bundled dumps or live APIs) and join them by appid into one catalog."""
