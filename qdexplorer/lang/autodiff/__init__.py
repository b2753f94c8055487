"""Autodiff: `qd.ad` (tapes, gradient clearing), reverse mode (a kernel's adjoint tasks), forward mode
(tangents) and the validation checker; both modes read one table of derivatives."""
