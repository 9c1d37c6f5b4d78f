"""Composition: the Server (registry, catalog, mounts)."""
