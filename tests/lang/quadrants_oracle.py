"""Running one program under qdexplorer.lang and, where it is installed, real Quadrants, in this
process: the tests that take Quadrants as the oracle for a few kernels (the difftest runs whole
programs in children instead)."""
import qdexplorer.lang as ours


def implementations():
    """qdexplorer.lang, then Quadrants if it imports."""
    yield ours
    try:
        import quadrants as real
    except ImportError:
        return
    yield real


def run_on_each(program) -> list:
    """`program(qd)`'s result under each implementation, each between qd.init(arch=qd.cpu) and qd.reset()."""
    out = []
    for qd in implementations():
        qd.init(arch=qd.cpu)
        try:
            out.append(program(qd))
        finally:
            qd.reset()
    return out
