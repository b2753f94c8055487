"""Issue 42's CLI minors, each seen failing first."""
import re

from qdexplorer.cli import main

BROKEN = ("import numpy as np\nimport qdexplorer.lang as qd\n\n@qd.kernel\n"
          "def twice(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):\n"
          "    for i in range(x.shape[0]):\n        x[i] *= no_such_name\n\n"
          "@qd.workload(twice)\ndef small(rng):\n    return (np.ones(64, np.float32),)\n")


def test_compile_and_run_agree_on_an_unknown_name_and_say_it_once(tmp_path, capsys):
    """`compile` exited 2 and `run` 1 for the same unknown name, and each printed the message twice."""
    (tmp_path / "k.py").write_text(BROKEN)
    codes = []
    for cmd in ("compile", "run"):
        codes.append(main([cmd, str(tmp_path)]))
        out, err = capsys.readouterr()
        text = out + err
        assert text.count("name 'no_such_name' is not defined") == 1, text
        assert "k.py:7:" in text and "^^^^" in text
    assert codes == [2, 2]


def test_counters_of_an_unknown_task_lists_the_tasks(capsys):
    rc = main(["counters", "--task", "nosuch", "--in-process"])
    err = capsys.readouterr().err
    assert rc == 2 and "no task named nosuch" in err and "saxpy_kernel_0_range_for" in err, err


def test_every_option_has_help():
    """`--seed` had none: every option of every command says what it does."""
    from qdexplorer.cli import build_parser
    parser = build_parser()
    missing = []
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, p in sub.choices.items():
        for action in p._actions:
            if action.option_strings and not action.help and action.dest != "help":
                missing.append(f"{name} {action.option_strings[0]}")
    assert missing == []


def test_runs_lists_with_column_headers(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("QDEXPLORER_DATA_DIR", str(tmp_path / "data"))
    assert main(["bench", "--workload", "saxpy_1m", "--repeat", "2", "--save", "one"]) == 0
    capsys.readouterr()
    assert main(["runs"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    assert re.match(r"name\s+id\s+saved\s+on\s+launches\s+tasks\s+git$", lines[0]), lines
    assert lines[1].startswith("one ") and "#" in lines[1]
