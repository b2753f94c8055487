"""The window of a real Quadrants program: its kernels, tasks, edits, and Quadrants against qdexplorer."""
