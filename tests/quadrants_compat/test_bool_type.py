import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test(debug=True)
def test_bool_type_anno():
    @qd.func
    def f(x: bool) -> bool:
        return not x

    @qd.kernel
    def test():
        assert f(True) == False
        assert f(False) == True

    test()


