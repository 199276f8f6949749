"""Nothing lost, round 3 (issue 43): one output guard for every writer, a study folder known by its manifest's
content, a study that continues only its own design, a failed run beside a finished file, Ctrl-C in Python
callbacks of the compiled step, and errors in the user's words.

CASES lists the issue's cases fixed here by class; every case names its test. Physics reference where a run is
kept: the free fall z = -g t²/2 (exact for the generalized-α method on constant acceleration up to round-off,
tolerance 1e-9 m, ``safe_helpers.assert_free_fall``).
"""
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import h5py
import pytest
from click.testing import CliRunner

import flexmbs as fm
from fem.errors import FlexmbsError, ModelError
from safe_helpers import BOX_A, BOX_B, assert_free_fall, copy, falling_mass, guarded_files, one_error_line
from flexmbs.cli.app import main
from flexmbs.results.safe_files import ENOSPC_TEST_VARIABLE

ROOT = str(Path(fm.__file__).parents[1])
ENV = {**os.environ, "PYTHONPATH": ROOT, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
REDUCE = ["--interface", f"a={BOX_A}", "--interface", f"b={BOX_B}", "--modes", "3", "--compare", "0",
          "--material", "steel"]

# (class, case, test) — the cases of issue 43 fixed in this round
CASES = [
    ("data loss", "reduce -o X --report X replaced the body with the report", "test_two_outputs_on_one_file"),
    ("data loss", "run -o STUDY/runs/<id>.results.h5 replaced a variant", "test_a_study_variant_is_the_studys"),
    ("data loss", "study re-run with other --vary rewrote the table and manifest",
     "test_a_study_continues_only_its_own_design"),
    ("data loss", "study re-run with another --t-end orphaned its runs", "test_a_study_continues_only_its_own_design"),
    ("data loss", "write_flexbody from Python replaced another kind", "test_write_flexbody_checks_the_kind"),
    ("data loss", "a full-disk run replaced a finished results file",
     "test_a_failed_run_never_replaces_a_finished_file"),
    ("data loss", "a study into a folder holding a user's table.csv / study.json replaced them",
     "test_a_study_never_takes_over_a_folder"),
    ("absurd refusal", "any file named study.json made its folder a study folder",
     "test_a_study_folder_is_known_by_its_manifest"),
    ("silent wrong result", "a resumed study took a cut variant file as finished",
     "test_a_resumed_study_reruns_a_cut_variant"),
    ("internal error", "study-plot on a damaged study.json: JSONDecodeError", "test_damaged_study_files_are_named"),
    ("internal error", "study-plot on a cut table.parquet: ArrowInvalid", "test_damaged_study_files_are_named"),
    ("internal error", "pyarrow missing: found after every variant ran", "test_the_table_writer_is_checked_first"),
    ("internal error", "model.add_force(None): AttributeError", "test_api_arguments_of_the_wrong_type"),
    ("internal error", "fm.simulate(model, '1.0'): TypeError", "test_api_arguments_of_the_wrong_type"),
    ("hang", "Ctrl-C in a Python time function of the compiled step was swallowed",
     "test_ctrl_c_stops_a_compiled_run_with_a_python_callback"),
    ("silent wrong result", "modes title paired a same-order full-FE frequency with another mode's MAC",
     "test_mode_titles_pair_frequency_and_mac_of_one_mode"),
    ("silent wrong result", "four-bar ending before the torque release: settling 0.0 s, 'overdamped'",
     "test_outputs_after_the_end_are_not_reached"),
    ("silent wrong result", "flexmbs mesh x.med read back as all-inverted elements", "test_med_meshes_read_back"),
    ("cryptic message", "mesh .med of hexahedra: 'disk full'", "test_med_meshes_read_back"),
    ("cryptic message", "--interface a=group:x:rbe4: ':rbe4' read as part of the group name",
     "test_reduce_inputs_are_named"),
    ("cryptic message", "nu = 0.49999: 'eigenvalue iteration did not converge ... try fewer modes'",
     "test_reduce_inputs_are_named"),
    ("hang", "reduce --max-frequency 1e9: 5,438 modes for minutes without a word", "test_reduce_inputs_are_named"),
    ("cryptic message", "animate of a cut results file: 'not an HDF5 results file written by flexmbs'",
     "test_a_cut_file_is_named_as_cut_by_animate"),
    ("internal error", "a missing package: 'unexpected ImportError'", "test_a_missing_package_is_named"),
    ("absurd input", "PressureSource(nan)", "test_a_pressure_source_of_nan_is_refused"),
    ("absurd input", "--set given twice: the last won silently", "test_set_twice_is_refused"),
    ("cryptic message", "swapped valve timing: \"'x_v': table breakpoints must be strictly increasing\"",
     "test_case_parameters_are_named"),
    ("cryptic message", "rod larger than the bore: 'rod_side_area must be positive'", "test_case_parameters_are_named"),
    ("cryptic message", "zero valve response time: \"'spool': time_constant\"", "test_case_parameters_are_named"),
]


def test_every_listed_case_has_its_test():
    names = {name for name in globals() if name.startswith("test_")}
    assert all(case[2] in names for case in CASES), [c for c in CASES if c[2] not in names]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return guarded_files(tmp_path_factory.mktemp("nothing_lost_3"))


def fake_study(folder: Path, **changes) -> Path:
    """A study folder as `flexmbs study fourbar-hydraulic --vary friction_scale=1,0.5` leaves it (its manifest)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs").mkdir(exist_ok=True)
    manifest = {"format": "flexmbs-study", "format_version": 1, "case": "fourbar-hydraulic", "plan": None,
                "design": "grid", "samples": None, "seed": 0, "t_end": None,
                "variations": {"friction_scale": [1.0, 0.5]}, "fixed": {}, "varied": ["friction_scale"]}
    manifest.update(changes)
    (folder / "study.json").write_text(json.dumps(manifest))
    return folder


# ------------------------------------------------------------------------------------------- one output guard
def test_two_outputs_on_one_file(files, tmp_path):
    """reduce -o X --report X (also via another spelling of the name, and with --force): one line, no work."""
    for report in ("same.flex.h5", "./sub/../same.flex.h5"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        for force in ([], ["--force"]):
            out = tmp_path / "same.flex.h5"
            cwd = os.getcwd()
            os.chdir(tmp_path)
            try:
                line = one_error_line(CliRunner().invoke(main, ["reduce", files["mesh"], "-o", str(out), "--report",
                                                                report, *REDUCE, *force]))
            finally:
                os.chdir(cwd)
            assert "--report" in line and "same file as -o" in line, line
            assert not out.exists()


def test_a_study_variant_is_the_studys(files, tmp_path):
    """run -o / simulate(output=) into a study's runs/ folder is refused (before any work); the variant's file
    stays byte for byte."""
    study = fake_study(tmp_path / "study")
    variant = copy(files["res"], study / "runs" / "abc123.results.h5")
    before = variant.read_bytes()
    line = one_error_line(CliRunner().invoke(main, ["run", "slider-crank", "-o", str(variant)]))
    assert "lies in the study folder" in line and str(study) in line, line
    with pytest.raises(FlexmbsError, match="study folder"):
        fm.simulate(falling_mass(), 0.01, output=str(variant))
    assert variant.read_bytes() == before


def test_a_study_folder_is_known_by_its_manifest(files, tmp_path):
    """A study.json that is not a study's manifest (`flexmbs cases --json > study.json`) makes no study folder:
    a run writes beside it; a real manifest (format flexmbs-study) does."""
    (tmp_path / "study.json").write_text(json.dumps({"cases": [{"name": "slider-crank"}]}))
    out = tmp_path / "fall.results.h5"
    res = fm.simulate(falling_mass(), 0.05, output=str(out))
    assert res.success and out.exists()
    assert_free_fall(fm.load_results(str(out)))
    (tmp_path / "study.json").write_text("not json at all")
    assert fm.simulate(falling_mass(), 0.05, output=str(out)).success
    fake_study(tmp_path)
    with pytest.raises(FlexmbsError, match="study folder"):
        fm.simulate(falling_mass(), 0.05, output=str(out))


def test_a_study_continues_only_its_own_design(tmp_path):
    """Re-running a study into its folder with other --vary values or another --t-end is one line naming the
    difference, before any cluster or run; manifest unchanged. The same design continues (no refusal)."""
    study = fake_study(tmp_path / "study")
    manifest = (study / "study.json").read_bytes()
    for extra, words in ((["--vary", "friction_scale=1,0.1"], "--vary"),
                         (["--vary", "friction_scale=1,0.5", "--t-end", "2.0"], "--t-end"),
                         (["--vary", "friction_scale=1,0.5", "--set", "torque_M0=250"], "--set"),
                         (["--vary", "friction_scale=1,0.5", "--design", "zip"], "--design")):
        line = one_error_line(CliRunner().invoke(main, ["study", "fourbar-hydraulic", *extra, "-o", str(study),
                                                        "--quiet"]))
        assert words in line and "choose another -o folder" in line, line
    assert (study / "study.json").read_bytes() == manifest and not (study / "table.parquet").exists()
    from flexmbs.studies.study import check_study_folder

    same = json.loads(manifest)
    check_study_folder(str(study), dict(same, software={"flexmbs": "other"}, updated="now", variants=[]))


def test_a_study_never_takes_over_a_folder(tmp_path):
    """A folder holding a user's study.json (not a manifest) or table.csv is not a study's: refused, unchanged."""
    for name, text in (("study.json", '{"cases": []}'), ("table.csv", "a,b\n1,2\n")):
        folder = tmp_path / name.replace(".", "_")
        folder.mkdir()
        (folder / name).write_text(text)
        line = one_error_line(CliRunner().invoke(main, ["study", "fourbar-hydraulic", "--vary",
                                                        "friction_scale=1,0.5", "-o", str(folder), "--quiet"]))
        assert "choose another -o folder" in line and name in line, line
        assert (folder / name).read_text() == text and sorted(p.name for p in folder.iterdir()) == [name]


def test_write_flexbody_checks_the_kind(files, tmp_path):
    """write_flexbody over a results file or a mesh: one line, file unchanged; over a body, or forced: written."""
    from reduction.io import read_flexbody, write_flexbody

    body = read_flexbody(files["flex"])
    for source in (files["res"], files["mesh"]):
        target = copy(source, tmp_path / ("x" + Path(source).suffix))
        before = target.read_bytes()
        with pytest.raises(FlexmbsError, match="not a flexible body.*force=True"):
            write_flexbody(body, str(target))
        assert target.read_bytes() == before
    again = copy(files["flex"], tmp_path / "again.flex.h5")
    assert read_flexbody(write_flexbody(body, str(again))).n_modes == body.n_modes
    forced = copy(files["res"], tmp_path / "forced.h5")
    assert read_flexbody(write_flexbody(body, str(forced), force=True)).n_modes == body.n_modes


def test_a_failed_run_never_replaces_a_finished_file(files, tmp_path, monkeypatch):
    """The disk fills during a run onto the name of a finished results file: the finished file stays byte for byte,
    the run's samples (exact free fall) are in the .part its message names."""
    path = copy(files["res"], tmp_path / "good.results.h5")
    before = path.read_bytes()
    monkeypatch.setenv(ENOSPC_TEST_VARIABLE, str(2_500_000))
    res = fm.simulate(falling_mass(), 100.0, output=str(path), max_step=1e-3)
    monkeypatch.delenv(ENOSPC_TEST_VARIABLE)
    assert res.status == "failed" and "disk full" in res.message, res.message
    assert "finished earlier results file" in res.message and "kept unchanged" in res.message, res.message
    assert path.read_bytes() == before
    part = res.message.rsplit("are in ", 1)[1].strip("'")
    assert part.endswith(".part") and os.path.exists(part)
    kept = fm.load_results(part)
    assert kept.status == "failed" and 0.0 < kept.time[-1] < 100.0 and kept.time.size > 100
    assert_free_fall(kept)
    # a failed run onto a failed (unfinished) earlier file still replaces it: nothing finished is lost
    failed = copy(part, tmp_path / "failed.results.h5")
    monkeypatch.setenv(ENOSPC_TEST_VARIABLE, str(2_500_000))
    res = fm.simulate(falling_mass(), 100.0, output=str(failed), max_step=1e-3)
    assert res.status == "failed" and "finished earlier" not in res.message
    assert fm.load_results(str(failed)).time.size > 100


def test_a_resumed_study_reruns_a_cut_variant(files, tmp_path):
    """A variant whose results file is cut (disk full, killed copy) or not finished is not taken as finished."""
    from flexmbs.studies.study import _finished_file

    good = copy(files["res"], tmp_path / "good.results.h5")
    cut = tmp_path / "cut.results.h5"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    running = copy(files["res"], tmp_path / "running.results.h5")
    with h5py.File(running, "a") as fh:
        fh.attrs["status"] = "running"
    assert _finished_file(str(good))
    assert not _finished_file(str(cut)) and not _finished_file(str(running))
    assert not _finished_file(str(tmp_path / "missing.results.h5"))


def test_damaged_study_files_are_named(tmp_path):
    """study-plot on a study.json that is not JSON, and on a cut table.parquet: one line naming the file."""
    study = fake_study(tmp_path / "study")
    from flexmbs.studies.study import _write_table

    record = {"variant": "a", "params": {"friction_scale": 1.0}, "status": "finished",
              "summary": {"outputs": {"y": 2.0}}}
    _write_table(str(study), [record], ["friction_scale"])
    table = study / "table.parquet"
    table.write_bytes(table.read_bytes()[:40])
    args = ["study-plot", str(study), "y", "--against", "friction_scale", "--out", str(tmp_path / "y.csv")]
    line = one_error_line(CliRunner().invoke(main, args))
    assert "table.parquet" in line and "cannot be read" in line and "unexpected" not in line, line
    (study / "study.json").write_text("{not json")
    line = one_error_line(CliRunner().invoke(main, args))
    assert "study.json" in line and "manifest" in line and "unexpected" not in line, line


def test_the_table_writer_is_checked_first(monkeypatch, tmp_path):
    """Without pyarrow the study says so before the folder, the cluster or any variant."""
    import importlib.util

    from flexmbs.studies import study as study_module

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("pyarrow", "fastparquet") else real(name, *a))
    with pytest.raises(FlexmbsError, match="pip install pyarrow"):
        study_module.study("fourbar-hydraulic", {"friction_scale": [1.0, 0.5]}, out=str(tmp_path / "s"),
                           progress=False)
    assert not (tmp_path / "s").exists()


def test_api_arguments_of_the_wrong_type():
    """The Python API names the argument: add_force(None), simulate(model, "1.0"), simulate(None, 1.0)."""
    model = falling_mass()
    with pytest.raises(ModelError, match="add_force expects a force element.*got NoneType"):
        model.add_force(None)
    with pytest.raises(FlexmbsError, match=r"t_end must be a number, a time in s, got '1.0' \(str\)"):
        fm.simulate(model, "1.0")
    with pytest.raises(FlexmbsError, match=r"rtol must be a number, got '1e-6' \(str\)"):
        fm.simulate(model, 1.0, rtol="1e-6")
    with pytest.raises(ModelError, match="simulate expects a model"):
        fm.simulate(None, 1.0)


def test_case_parameters_are_named():
    """Case parameters that hydraulics would reject with its own internal names are named as the user gave them."""
    for args, words in ((["excavator", "--set", "stick_valve_on=8", "--set", "stick_valve_off=0"],
                         "stick_valve_off (0 s) must come at least 2 x valve_ramp"),
                        (["excavator", "--set", "stick_rod=0.2"], "stick_rod (0.2 m) must be smaller than stick_bore"),
                        (["clamp-locking", "--set", "valve_response_time=0"], "valve_response_time"),
                        (["machine-creeping", "--set", "rod_diameter=0.2"], "rod_diameter (0.2 m) must be")):
        line = one_error_line(CliRunner().invoke(main, ["run", *args, "--t-end", "0.01", "--quiet"]))
        assert words in line and "x_v" not in line and "rod_side_area" not in line, line


CTRL_C_SCRIPT = textwrap.dedent("""
    import math, os, sys
    sys.path.insert(0, sys.argv[2])
    import flexmbs as fm
    from test_compiled_step import arm_model  # valve-cylinder-arm: a compiled circuit, a Python valve command

    flag = sys.argv[1]

    def command(t):  # a cheap Python time function: most of the run is in compiled code between its calls
        if t > 0.05 and not os.path.exists(flag):
            open(flag, "w").close()
        return 0.002 * math.sin(2.0 * math.pi * t)

    res = fm.simulate(arm_model(valve_command=command), 1.0e4, max_step=1e-3, engine="compiled")
    print(res.statistics["engine"], res.status, res.time[-1], flush=True)
""")


def test_ctrl_c_stops_a_compiled_run_with_a_python_callback(tmp_path):
    """SIGINT while the compiled step runs and calls a Python time function: the run ends 'interrupted' (results
    kept), not at t_end. Before, Python raised the KeyboardInterrupt on the first line of the callback, inside the
    ctypes trampoline, which printed "Exception ignored on calling ctypes callback function" and dropped it: the
    run went on (2 of 2 tries). The timeout is a hang guard only."""
    flag = tmp_path / "running"
    script = tmp_path / "run.py"
    script.write_text(CTRL_C_SCRIPT)
    # SIGINT at its default in the child: a suite started in the background by a shell without job control runs
    # with SIGINT ignored, which the child inherits (then Python installs no Ctrl-C handler at all)
    proc = subprocess.Popen([sys.executable, str(script), str(flag), str(Path(__file__).parent)], env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        import time

        while not flag.exists() and proc.poll() is None:
            time.sleep(0.1)
        time.sleep(1.0)  # well inside the compiled loop
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == 0, err
    engine, status, t_last = out.split()
    assert engine == "compiled" and status == "interrupted", out
    assert 0.05 < float(t_last) < 1.0e5
    assert "Exception ignored" not in err and "KeyboardInterrupt" not in err, err


def test_ctrl_c_during_a_compiled_call_is_noted_then_raised_and_the_handler_restored():
    """The deferral around each compiled call (flexmbs.engine.interrupts, which swaps the handler with ``_signal``'s
    functions): a SIGINT inside the block is noted, not raised; a second one raises at once; Python's own handler is
    back after the block either way."""
    from flexmbs.engine.interrupts import deferred_interrupt

    outer = signal.signal(signal.SIGINT, signal.default_int_handler)  # Python's own, as in an interactive session
    try:  # (a suite started in the background by a shell without job control has SIGINT ignored)
        _ctrl_c_deferral_checks(deferred_interrupt)
    finally:
        signal.signal(signal.SIGINT, outer)


def _ctrl_c_deferral_checks(deferred_interrupt):
    with deferred_interrupt() as ctrl_c:
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        signal.raise_signal(signal.SIGINT)
        assert ctrl_c.pending
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupt():
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_mode_titles_pair_frequency_and_mac_of_one_mode():
    """The title of a reduced mode names the full-FE mode paired with it by shape (the reduce table's pairing):
    its frequency and its MAC, not the same-rank frequency beside another mode's MAC."""
    from types import SimpleNamespace

    from flexmbs.post.viz.modes import mode_title

    body = SimpleNamespace(frequencies_hz=[100.0, 210.0, 290.0],
                           report={"full_free_free_hz": [99.0, 289.0, 209.0], "pair_reduced": [0, 2, 1],
                                   "pair_mac": [0.99, 0.97, 0.95], "mac": [0.99, 0.2, 0.3]})
    assert mode_title(body, 1) == "mode 2: 210.0 Hz (full FE 209.0 Hz, MAC 0.950)"
    assert mode_title(body, 2) == "mode 3: 290.0 Hz (full FE 289.0 Hz, MAC 0.970)"
    lone = SimpleNamespace(frequencies_hz=[100.0, 500.0], report={"full_free_free_hz": [99.0], "pair_reduced": [0],
                                                                   "pair_mac": [0.99]})
    assert "no full-FE mode of this shape" in mode_title(lone, 1)


def test_outputs_after_the_end_are_not_reached():
    """A four-bar response that ends before the torque release (t2) reports nothing after it, and says so."""
    import math

    import numpy as np

    from cases.fourbar_hydraulic.analysis import response_summary

    t = np.linspace(0.0, 0.5, 51)
    summary = response_summary(t, np.full_like(t, math.radians(30.0)), math.radians(30.0), 1.0, 0.05)
    assert summary["settling_time_s"] is None and summary["zero_crossings"] is None
    assert summary["response"].startswith("not reached: the run ends at t = 0.5 s, before the torque release")
    # after the release: a decaying deviation without crossing is overdamped, settled when inside the band
    t = np.linspace(0.0, 3.0, 301)
    dev = np.where(t < 1.0, 0.1, 0.1 * np.exp(-(t - 1.0) / 0.2))
    summary = response_summary(t, dev, 0.0, 1.0, 0.05)
    assert summary["response"] == "overdamped" and summary["zero_crossings"] == 0
    assert summary["settling_time_s"] == pytest.approx(0.2 * math.log(20.0), abs=0.011)  # e^(-t/τ) = 0.05


def test_med_meshes_read_back(tmp_path):
    """`flexmbs mesh` to .med (tetrahedra of both orders, linear hexahedra) reads back with the same elements as
    the .msh of the same request: same first elastic frequency (1e-9), mid-edge nodes at edge midpoints. MED of
    quadratic hexahedra (not converted) is refused in one line, nothing written."""
    import numpy as np

    from fem.analysis import modal_analysis
    from fem.mesh import load_mesh
    from fem.model import solid_model

    for extra in (["--order", "1"], ["--order", "2"], ["--order", "1", "--hex"]):
        freqs = []
        for suffix in (".msh", ".med"):
            out = tmp_path / f"bar{''.join(extra)}{suffix}"
            done = CliRunner().invoke(main, ["mesh", "bar", str(out), "--size", "0.05", *extra])
            assert done.exit_code == 0, done.stderr
            mesh = load_mesh(str(out))
            if mesh.cell_type == "tetra10":
                c, p = np.asarray(mesh.cells), np.asarray(mesh.points)
                for k, (a, b) in enumerate(((0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3))):
                    assert np.abs(p[c[:, 4 + k]] - 0.5 * (p[c[:, a]] + p[c[:, b]])).max() < 1e-12
            freqs.append(modal_analysis(solid_model(mesh, "steel"), 7).frequencies_hz[6])
        assert freqs[1] == pytest.approx(freqs[0], rel=1e-9), extra
    out = tmp_path / "hex2.med"
    line = one_error_line(CliRunner().invoke(main, ["mesh", "bar", str(out), "--size", "0.05", "--hex"]))
    assert "cannot be read back" in line and "disk full" not in line and not out.exists(), line


def test_reduce_inputs_are_named(files, tmp_path):
    """A mistyped spider kind, a nearly incompressible material and an absurd cut-off frequency: one line each,
    naming the option, before the long work (the cut-off after the first few fixed-interface modes)."""
    from fem.meshing import bar_mesh

    out = str(tmp_path / "x.flex.h5")
    line = one_error_line(CliRunner().invoke(main, ["reduce", files["mesh"], "-o", out, "--interface",
                                                    f"a={BOX_A}:rbe4", "--interface", f"b={BOX_B}", "--modes", "3"]))
    assert "unknown spider 'rbe4'" in line and ":rbe3" in line, line
    line = one_error_line(CliRunner().invoke(main, ["reduce", files["mesh"], "-o", out, *REDUCE[:-2], "--material",
                                                    "E=210e9,nu=0.49999,rho=7850"]))
    assert "nearly incompressible" in line and "nu <= 0.49" in line and "fewer modes" not in line, line
    fine = bar_mesh(str(tmp_path / "fine.msh"), size=0.025, order=2)  # ~ 10k interior dofs
    line = one_error_line(CliRunner().invoke(main, ["reduce", fine, "-o", out, *REDUCE, "--max-frequency", "1e9"]))
    assert "--max-frequency" in line and "at least" in line and "1000" in line, line
    assert not os.path.exists(out)


def test_a_cut_file_is_named_as_cut_by_animate(files, tmp_path):
    cut = tmp_path / "cut.results.h5"
    cut.write_bytes(Path(files["res"]).read_bytes()[:20000])
    line = one_error_line(CliRunner().invoke(main, ["animate", str(cut), "--out", str(tmp_path / "a.gif")]))
    assert "cut short (20000 of" in line and "written by flexmbs" not in line, line


def test_a_missing_package_is_named():
    """An ImportError that escapes a command names the package to install, not 'unexpected ImportError'."""
    from flexmbs.cli.front_door import describe_unexpected

    try:
        import flexmbs_missing_package_for_the_test  # noqa: F401
    except ImportError as exc:
        line = describe_unexpected(exc)
    assert line.startswith("a package flexmbs needs here is not installed") and "unexpected" not in line
    assert "pip install flexmbs_missing_package_for_the_test" in line


def test_set_twice_is_refused():
    line = one_error_line(CliRunner().invoke(main, ["run", "slider-crank", "--set", "rtol=1e-5", "--set",
                                                    "rtol=1e-6", "--t-end", "0.01"]))
    assert "--set rtol is given twice (1e-05 and 1e-06)" in line, line


def test_a_pressure_source_of_nan_is_refused():
    import hydraulics as hy

    for value in (float("nan"), float("inf")):
        with pytest.raises(ModelError, match="'P': pressure must be a finite gauge pressure in Pa"):
            hy.PressureSource("P", value)
    assert hy.PressureSource("P", 20e6).pressure_signal is not None


ENTRY_SCRIPT = textwrap.dedent("""
    import importlib.abc, os, pkgutil, signal, sys, tomllib

    class CtrlCWhileTheCommandsLoad(importlib.abc.MetaPathFinder):  # a terminal's Ctrl-C at that moment
        def find_spec(self, name, path, target=None):
            if name == "flexmbs.cli.app":
                os.kill(os.getpid(), signal.SIGINT)
            return None

    with open(sys.argv[1], "rb") as fh:
        target = tomllib.load(fh)["project"]["scripts"]["flexmbs"]
    sys.meta_path.insert(0, CtrlCWhileTheCommandsLoad())
    sys.argv = ["flexmbs", "--help"]
    pkgutil.resolve_name(target)()
""")


def test_ctrl_c_while_the_console_script_loads_its_commands_is_one_line_and_exit_130(tmp_path):
    """The ``flexmbs`` console script (pyproject.toml's target, as pip's launcher calls it) gets the import-time
    Ctrl-C protection of ``python -m flexmbs``: a SIGINT while the command modules load gives exit 130 and one
    line. Before, the script's target ``flexmbs.cli:main`` imported them unprotected: a KeyboardInterrupt
    traceback and exit 1."""
    script = tmp_path / "entry.py"
    script.write_text(ENTRY_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), str(Path(ROOT) / "pyproject.toml")], env=ENV,
                          capture_output=True, text=True, timeout=600,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "error: interrupted\n"
