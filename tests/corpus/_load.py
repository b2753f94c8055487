"""benchmarks/corpus.py loaded by path (benchmarks/ is not a package)."""
import importlib.util
import sys
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus.py"


def corpus():
    if "qdx_corpus_runner" not in sys.modules:
        spec = importlib.util.spec_from_file_location("qdx_corpus_runner", RUNNER)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["qdx_corpus_runner"] = mod  # dataclasses look their module up by name
        spec.loader.exec_module(mod)
    return sys.modules["qdx_corpus_runner"]
