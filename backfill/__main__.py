"""Run the ``backfill`` command line: ``python -m backfill simulate ...``."""

from backfill.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
