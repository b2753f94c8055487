"""cpu_programs.py's tiny kernel as a user runs it: `y = a*x + y` over 1024 f32 elements, 2000 calls,
then the sum printed (first_result.py times process start to that line)."""
import quadrants as qd

qd.init(arch=qd.cpu)
F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)


@qd.kernel
def axpy(x: F1, y: F1, alpha: qd.f32):
    for i in range(x.shape[0]):
        y[i] = alpha * x[i] + y[i]


x, y = qd.ndarray(qd.f32, shape=(1024,)), qd.ndarray(qd.f32, shape=(1024,))
x.fill(1.0)
for _ in range(2000):
    axpy(x, y, 0.5)
print("sum", float(y.to_numpy().sum()))
