"""qdexplorer: explore, edit and time what Quadrants-style kernels compile to, task by task."""
__version__ = "0.1.0"
