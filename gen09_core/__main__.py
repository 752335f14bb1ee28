"""``python -m gen09_core`` runs the CLI."""

from gen09_core.cli import main

main()
