"""`python -m simulee` runs the command-line interface."""

from simulee.cli import main

raise SystemExit(main())
