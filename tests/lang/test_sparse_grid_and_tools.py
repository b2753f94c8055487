"""`qd.sparse.grid` / `qd.sparse.usage` and `qd.tools.PLYWriter` give what real Quadrants 1.3.3 gave
for the same program on the CPU (the usage figure and the PLY text below were printed by it)."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_a_sparse_grid_activates_the_cells_written_and_reports_its_usage():
    g = qd.sparse.grid({"pos": qd.math.vec2, "mass": qd.f32}, shape=(10, 10))
    g[0, 0].mass = 1.0
    g[3, 4].pos = qd.math.vec2(1.0, 2.0)
    assert qd.sparse.usage(g) == 0.019999999552965164
    assert g.mass.to_numpy().sum() == 1.0 and g.pos.to_numpy()[3, 4].tolist() == [1.0, 2.0]


def test_ply_writer_writes_quadrants_ascii_ply(tmp_path):
    w = qd.tools.PLYWriter(num_vertices=3)
    w.add_vertex_pos(np.array([0.0, 1.0, 2.0]), np.array([0.0, 0.0, 1.0]), np.array([1.0, 1.0, 1.0]))
    w.export_ascii(str(tmp_path / "t.ply"))
    assert (tmp_path / "t.ply").read_text() == ("ply\nformat ascii 1.0\ncomment created by PLYWriter\nelement vertex 3\n"
                                               "property float x\nproperty float y\nproperty float z\nend_header\n"
                                               "0.0 0.0 1.0 \n1.0 0.0 1.0 \n2.0 1.0 1.0 \n")
