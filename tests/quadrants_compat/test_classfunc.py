import qdexplorer.lang as qd
from tests.quadrants_compat.upstream import get_host_arch_list

from tests.quadrants_compat import test_utils


@test_utils.test(arch=get_host_arch_list())
def test_classfunc():
    @qd.data_oriented
    class Foo:
        def __init__(self):
            self.val = qd.Matrix.field(n=3, m=3, dtype=qd.f32, shape=3)

        @qd.func
        def add_mat(self, a, b):
            return a + b

        @qd.kernel
        def fill(self):
            self.val[0] = self.add_mat(self.val[1], self.val[2])

    foo = Foo()
    foo.fill()


