"""Build: score the catalog and turn it into a complete snapshot of final bytes per path."""
