"""Every way a profile can end, through a fake ncu on PATH: one state, one message, no traceback,
and the CLI saying what the engine's result says (the window shows the same result, tests/gui)."""
import json
import re

import pytest

from qdexplorer.cli import main
from qdexplorer.counters import probe
from qdexplorer.engine import Engine

from .conftest import FIXTURE, TASK


@pytest.fixture
def engine(fake_ncu):
    with Engine(None, in_process=True) as eng:
        yield eng


CASES = [
    ("denied", probe.RESTRICTED, "NVreg_RestrictProfilingToAdminUsers=0"),
    ("denied-in-container", probe.CONTAINER, "--cap-add PERFMON"),
    ("nokernels", "no_kernels", "ncu profiled no kernel"),
    ("garbage", "bad_report", "cannot be read"),
    ("binary", "failed", "ncu failed"),     # issue 41: ncu output that is not UTF-8 was a traceback
]


@pytest.mark.parametrize("mode,state,words", CASES)
def test_failures_give_one_state_and_message(fake_ncu, engine, capsys, monkeypatch, mode, state, words):
    # the driver restricts profiling to admins (this process is allowed to try: root, or CAP_PERFMON),
    # or it does not and the container still refuses
    monkeypatch.setattr(probe, "admin_only", lambda: mode == "denied")
    monkeypatch.setattr(probe, "in_container", lambda: mode == "denied-in-container")
    fake_ncu.mode(mode.split("-")[0])
    res = engine.counters(TASK)
    assert res.state == state and not res.ok
    assert words in res.message and "Traceback" not in res.message and "\n" not in res.message
    assert res.fallback is not None and res.fallback.registers and res.fallback.roofline.model
    assert engine.session.counters[(TASK, "current")] is res
    probe.forget()
    rc = main(["counters", "--task", TASK, "--in-process"])
    out = capsys.readouterr()
    assert rc == 3
    assert out.out.splitlines()[0] == f"No counters for {TASK}: {res.message}"
    assert "MODEL roofline" in out.out and "Traceback" not in out.out + out.err


def test_timeout_stops_ncu(fake_ncu, engine):
    fake_ncu.mode("hang")
    res = engine.counters(TASK, timeout=1.5)
    assert res.state == "timeout"
    assert "did not finish within 1.5 s" in res.message
    assert res.seconds < 120   # a hang guard: ncu was stopped, not waited for


def test_refusal_is_remembered_for_the_session(fake_ncu, engine, monkeypatch):
    monkeypatch.setattr(probe, "admin_only", lambda: True)
    fake_ncu.mode("denied")
    assert engine.counters(TASK).state == probe.RESTRICTED
    assert engine.counters(TASK, preset="full").state == probe.RESTRICTED
    assert len(fake_ncu.calls()) == 1          # the second request was answered by the probe


def test_good_report(fake_ncu, engine, capsys):
    fake_ncu.mode("good")
    res = engine.counters(TASK, preset="full")
    assert res.ok, res.message
    rec = res.record
    assert rec.passes == 20 and rec.device == "NVIDIA H200"
    assert rec.figures["registers"] == 24 and rec.figures["block"] == 128
    assert 0 < rec.figures["occ_achieved"] <= rec.figures["occ_theoretical"] == 100
    assert rec.top_stalls(1)[0][0] == "long_scoreboard"
    assert rec.mix["FMUL"] == rec.mix["FADD"] > 0
    # the fixture was profiled with the PTX-line table: counters sit on the PTX's own lines (of the
    # PTX it was made from, which the report carries: today's codegen may write other lines)
    import ncu_report
    action = ncu_report.load_report(str(FIXTURE))[0][0]
    (name, text), = [(f, t) for f, t in action.source_files().items() if f.endswith(".ptx")]
    assert name.endswith(f"{TASK}.ptx")
    ptx = text.splitlines()
    assert rec.line_mapping == "ptx-line-table"
    loads = [ln for ln in rec.ptx_lines if "ld.global.nc.v4" in ptx[ln - 1]]
    assert loads and all(rec.ptx_lines[ln].inst_executed > 0 for ln in loads)
    assert not any(ptx[ln - 1].strip().startswith((".", "$", "{", "}")) for ln in rec.ptx_lines)
    # ...and through the PTX's .loc lines, on the kernel's Python lines (saxpy.py lines 9 and 10)
    (src, lines), = rec.source_lines.items()
    assert src.endswith("saxpy.py") and set(lines) == {9, 10}
    # the command sent to ncu: the task's kernel filter, one launch, the full preset's sections
    call = fake_ncu.calls()[0]
    assert f"-k regex:^{TASK}$ -c 1" in call and "--section SourceCounters" in call
    assert "-m qdexplorer.counters.child" in call
    # the CLI prints the same record, from the cache (ncu is not run again)
    assert main(["counters", "--task", TASK, "--preset", "full", "--in-process", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["sides"]["current"]
    assert out["state"] == "ok" and out["counters"]["figures"] == rec.figures and out["counters"]["cached"]
    assert out["limiter"]
    assert len(fake_ncu.calls()) == 1


def test_compare_generated_with_a_ptx_file(fake_ncu, engine, tmp_path, capsys):
    fake_ncu.mode("good")
    edited = tmp_path / "edited.ptx"
    edited.write_text(engine.compile(["saxpy"], target="nvptx").tasks[0].ptx + "\n// edited\n")
    rc = main(["counters", "--task", TASK, "--in-process", "--compare", "generated", str(edited)])
    out = capsys.readouterr().out
    assert rc == 0 and "A/B: A = generated, B = edited.ptx" in out
    assert len(fake_ncu.calls()) == 6          # 3 profiles a side; another PTX is another cache key
    # the fake hands the same report to every profile: every figure the same, none called a change
    assert "medians of 3 | 3 profiles; 'noise'" in out and "figures the same in every profile" in out
    assert " changed " not in out
    rc = main(["counters", "--task", TASK, "--in-process", "--compare", "generated", str(edited), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert len(fake_ncu.calls()) == 6          # each repeat was cached
    assert {r["verdict"] for r in doc["diff"]} == {"same"} and all(len(r["a_repeats"]) == 3 for r in doc["diff"])


def test_no_ncu_anywhere(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    from qdexplorer.counters import locate
    monkeypatch.setattr(locate, "candidates", lambda setting=None: [tmp_path / "ncu"])
    from qdexplorer.runtime.cuda import detect   # a GPU, so that the missing ncu is the root cause
    monkeypatch.setattr(detect, "_status", [detect.CudaStatus(True, name="a GPU", arch="sm_90")])
    probe.forget()
    try:
        rc = main(["counters", "--task", TASK, "--in-process"])
    finally:
        probe.forget()
    out = capsys.readouterr().out
    assert rc == 3 and "Nsight Compute (ncu) was not found" in out
    assert re.search(r"registers/thread \d+, spills 0 B", out)   # ptxas's own figures, without ncu


def test_repeats_below_one_is_bad_input(fake_ncu, capsys):
    with pytest.raises(SystemExit) as e:   # refused where it is parsed, as every number is (issue 41)
        main(["counters", "--task", TASK, "--in-process", "--compare", "generated", "current", "--repeats", "0"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "--repeats: must be a whole number from 1 to 100, got '0'" in err
    assert not fake_ncu.calls()
