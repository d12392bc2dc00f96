"""Fusion: a captured graph becomes a few kernels (every fusion decision lives here)."""
