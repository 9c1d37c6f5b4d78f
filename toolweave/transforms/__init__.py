"""Transforms: pure `Tool -> Tool` functions, one per module, applied at composition time."""

__all__: list[str] = []
