"""`python -m toolweave`: the `toolweave` command."""

from toolweave.cli import main

main()
