"""A finding to share: an A/B of two saved runs as one self-contained HTML page (`page`), its plots
as inline SVG (`svg`). Above bench (it reads runs and their comparison), beside the engine; the CLI's
`report` command and the window's File ▸ Export A/B Report write it."""
from .page import build_report, code_of, write_report

__all__ = ["build_report", "code_of", "write_report"]
