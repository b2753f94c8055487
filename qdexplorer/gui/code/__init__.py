"""The code panes: a task's source, LLVM IR, PTX and SASS, the PTX editing loop, diffs and CHI IR passes."""
