"""A tiny calculator package used by gen09's example."""
