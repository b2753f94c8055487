"""Reading dump folders: names Quadrants 1.3.3 writes on CUDA, which CI (no GPU) cannot produce."""
from qdexplorer.quadrants.dumps import parse_dump, split_task, stable_task_name


def test_cuda_dump_names_and_a_module_shared_by_two_tasks(tmp_path):
    for name, text in {
        "spin_c60_0_kernel_0_serial_llvm.ll": "define void @spin_c60_0_kernel_0_serial(ptr %c) {}",
        "spin_c60_0_kernel_1_range_for_llvm.ll": "define void @spin_c60_0_kernel_1_range_for(ptr %c) {}",
        # whole-module path: one module, dumped under its first task's name, holds both tasks
        "spin_c60_0_kernel_0_serial_before_ptx.ll": "define void @spin_c60_0_kernel_0_serial(ptr %c)\n"
                                                    "define void @spin_c60_0_kernel_1_range_for(ptr %c)",
        "spin_c60_0_kernel_0_serial.ptx": ".entry spin_c60_0_kernel_0_serial(\n.entry spin_c60_0_kernel_1_range_for(",
        "spin_c60_0_from_ast.ll": "kernel {}", "spin_c60_0_after_offload.ll": "kernel {}",
        "struct_0000_llvm.ll": "; the SNode tree",
    }.items():
        (tmp_path / name).write_text(text)
    (k,) = parse_dump(tmp_path, [{"func": "spin", "counter": 60, "file": "/p.py", "line": 3, "internal": False}])
    assert (k.name, k.file, k.internal) == ("spin_c60_0", "/p.py", False)
    assert [s for s, _ in k.stages] == ["from_ast", "after_offload"]
    t0, t1 = k.tasks
    assert t1.files["ptx"] == t0.files["ptx"] == str(tmp_path / "spin_c60_0_kernel_0_serial.ptx")
    assert t1.files["before_ptx"] == t0.files["before_ptx"]
    assert t1.files["llvm"].endswith("spin_c60_0_kernel_1_range_for_llvm.ll")


def test_task_name_parts():
    assert split_task("bounce_range_for") == ("bounce", "range_for")
    assert split_task("serial") == ("", "serial")
    assert split_task("my_loop_struct_for") == ("my_loop", "struct_for")
    assert stable_task_name("saxpy", 0, 1, "range_for") == "saxpy_kernel_1_range_for"
    assert stable_task_name("saxpy", 2, 1, "range_for") == "saxpy_i2_kernel_1_range_for"


def test_kernels_the_program_did_not_define_are_quadrants_own(tmp_path):
    (tmp_path / "ext_arr_to_ndarray_c18_0_kernel_0_serial_llvm.ll").write_text("")
    (tmp_path / "mine_c60_0_kernel_0_serial_llvm.ll").write_text("")
    ks = parse_dump(tmp_path, [{"func": "mine", "counter": 60, "file": "/p.py", "line": 1, "internal": False}])
    assert [(k.func, k.internal) for k in ks] == [("ext_arr_to_ndarray", True), ("mine", False)]


def test_quadrants_per_run_nonce_does_not_make_an_edit_stale(tmp_path):
    """Quadrants 1.3.3 ends each PTX with `// quadrants-session-nonce: <per run>` (seen on the H200): two runs
    of an unchanged kernel must count as the same generated code."""
    import os

    from qdexplorer.quadrants.edits import EditFolder, code_sha
    ptx = open(os.path.join(os.path.dirname(__file__), "data", "spin_whole_module_cuda.ptx")).read()
    assert "// quadrants-session-nonce: " in ptx
    other_run = ptx.replace("1796002314143695685-97d2fe96", "1796002365214039611-b47a0fe4")
    assert other_run != ptx and code_sha(other_run) == code_sha(ptx)
    assert code_sha(ptx.replace("0f3F7DF58D", "0f3F800000")) != code_sha(ptx)  # a real change still counts
    EditFolder(tmp_path, "ptx").write("spin_kernel_1_range_for", ptx, generated=ptx)
    (edit,) = EditFolder(tmp_path, "ptx").edits()
    assert edit.base_sha == code_sha(other_run)
