"""`python -m qdexplorer`: the same as the `qdexplorer` command."""
import sys

from .launcher import main

sys.exit(main())
