"""`qd.extension`: Quadrants' optional backend features, by name, for `require=` in ported tests.

qdexplorer supports `data64` (f64/i64) on every backend and `adstack` (reverse-mode autodiff
through dynamic loops, turned on by `qd.init(ad_stack_experimental_enabled=True)`); the others
(quantized types, ...) are outside its subset.
"""


class _Extension:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"qd.extension.{self.name}"

    def __eq__(self, other) -> bool:  # `qd.extension.adstack in require`: one extension, however reached
        return isinstance(other, _Extension) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


class _Extensions:
    def __getattr__(self, name: str) -> _Extension:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Extension(name)


extension = _Extensions()
