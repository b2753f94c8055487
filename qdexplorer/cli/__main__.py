"""`python -m qdexplorer.cli`: the command line without the launcher (tests, scripts)."""
import sys

from . import main

sys.exit(main())
