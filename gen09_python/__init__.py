"""The Python language pack: parse with ``compile``, hard-lint with ruff, entities from ``ast``."""
