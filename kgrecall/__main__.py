"""``python -m kgrecall`` runs the command line."""

from kgrecall.cli import main

main()
