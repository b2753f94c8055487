"""Entry point of the frozen app: the launcher's `main` (no arguments opens the window on the bundled demo).

PyInstaller needs a script, not a console_scripts entry; multiprocessing's freeze_support lets the
spawned compile-pool and device-worker processes start from the frozen executable.
"""
import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from qdexplorer.launcher import main
    sys.exit(main())
