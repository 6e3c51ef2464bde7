"""`python -m factgraph ...` is the `factgraph` command."""

from factgraph.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
