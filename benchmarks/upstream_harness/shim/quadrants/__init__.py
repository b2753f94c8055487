# Found first on PYTHONPATH by benchmarks/upstream_suite.py's runs under qdexplorer.lang: `import
# quadrants` gives qdexplorer.lang (the import system returns what this leaves in sys.modules).
import qdx_upstream_shim

qdx_upstream_shim.install()
