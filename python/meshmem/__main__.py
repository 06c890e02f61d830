"""Entry point: python -m meshmem <command> ..."""
import sys

from meshmem.cli import main

sys.exit(main())
