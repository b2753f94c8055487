"""runtime_api.last_call_tasks(): Quadrants' `get_num_offloaded_tasks_on_last_call()` (its graph tests
read it), counted from the tasks the latest call launched."""
import pytest

import qdexplorer.lang as qd
from qdexplorer.lang.calls import runtime_api


@pytest.fixture(autouse=True)
def _cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_counts_the_tasks_of_the_latest_call_and_resets_with_init():
    x = qd.field(qd.f32, (8,))

    @qd.kernel(graph=True)
    def three(a: qd.template()):
        for i in range(8):
            a[i] = 1.0
        s = a[0]
        for i in range(8):
            a[i] += s

    @qd.kernel
    def one():
        for i in range(8):
            x[i] = 0.0

    assert runtime_api.last_call_tasks() == 0
    three(x)
    assert runtime_api.last_call_tasks() == 3 and x.to_numpy()[5] == 2.0
    one()
    assert runtime_api.last_call_tasks() == 1
    qd.init(arch=qd.cpu)
    assert runtime_api.last_call_tasks() == 0
