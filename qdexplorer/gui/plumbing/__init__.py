"""What the window stands on: can a display open, signals, the GUI-thread collector, workers, file watching."""
