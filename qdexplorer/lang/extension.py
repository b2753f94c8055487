"""`qd.extension`: Quadrants' optional backend features, by name, for `require=` in ported tests.

qdexplorer supports `data64` (f64/i64) on every backend; the others (sparse SNodes, autodiff
stacks, quantized types, ...) are outside its subset.
"""


class _Extension:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"qd.extension.{self.name}"


class _Extensions:
    def __getattr__(self, name: str) -> _Extension:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Extension(name)


extension = _Extensions()
