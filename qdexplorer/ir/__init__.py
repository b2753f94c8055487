"""The ground floor: what the front end hands to everything below it.

The Task IR (`nodes`), the scalar dtypes (`dtypes`), the errors that point at user code (`errors`) and
arrays already on a device (`device_array`). `codegen`, `compiler`, `runtime`, `counters`, `bench` and
`remote` import these and never the language, so loading a compiler does not load `qdexplorer.lang`.
"""

# `ir.Task`, `ir.Assign`...: the nodes are the package's own names, as everyone below the language reads them
from .nodes import (Expr, Const, ScalarArg, ArrayArg, SharedArray, LocalArray, Shape, Local, LocalRef, Load, BinOp,
                    UnOp, Compare, Cast, Select, MathCall, AtomicRMW, SimtIndex, Stmt, Assign, Store, ExprStmt, Print,
                    If, Loop, Break, Continue, Barrier, Block, Return, FuncDef, Call, Param, ImplicitArray, Task, walk, map_operands, memory_axes)
