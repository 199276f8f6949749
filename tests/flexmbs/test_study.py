"""Parameter studies on Dask (`flexmbs study`, `flexmbs study-plot`) and the case registry (entry points).

Every cluster runs in subprocesses with timeouts, on 127.0.0.1 only; the tests end every process they start. The
physics reference of the user's test case is the analytic period 2 pi sqrt(m / k) of a mass on a spring.
"""
import ast
import json
import math
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from fem.errors import ModelError
from flexmbs.catalog.registry import typed_parameters
from flexmbs.studies.design import design_variants, parse_design, parse_vary, variant_id

sys.path.insert(0, os.path.dirname(__file__))
from study_helpers import WORKTREE, analytic_period, environment, flexmbs, make_case_package  # noqa: E402

FOURBAR_DEFAULTS = {"friction_scale": 1.0, "torque_M0": 250.0, "t_end": 3.0}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A folder holding the user's case package `my_machines` with its entry point, as pip would install it."""
    return make_case_package(tmp_path_factory.mktemp("site"))


# --------------------------------------------------------------------------------------------------- designs
def test_grid_and_zip_designs():
    grid = design_variants({"a": [1, 2], "b": ["x", "y", "z"]}, "grid")
    assert grid == [{"a": a, "b": b} for a in (1, 2) for b in "xyz"]  # every combination, first key slowest
    assert design_variants({"a": [1, 2], "b": [3, 4]}, "zip") == [{"a": 1, "b": 3}, {"a": 2, "b": 4}]
    with pytest.raises(ModelError, match="same number of values"):
        design_variants({"a": [1, 2], "b": [3]}, "zip")
    assert parse_vary(["a=1, 2", "b=x"]) == {"a": ["1", "2"], "b": ["x"]}
    assert parse_design("lhs:16") == ("lhs", 16) and parse_design("grid") == ("grid", None)
    for bad in ("lhs", "lhs:0", "random", "grid:3"):
        with pytest.raises(ModelError):
            parse_design(bad)


def test_latin_hypercube_puts_one_sample_in_every_stratum():
    """Definition of a Latin hypercube: with N samples, each of the N equal intervals of every range holds one."""
    n = 8
    variants = design_variants({"k": ["1e4", "5e4"], "m": [1.0, 3.0]}, "lhs", samples=n, seed=3)
    for key, (low, high) in (("k", (1e4, 5e4)), ("m", (1.0, 3.0))):
        strata = sorted(int((v[key] - low) / (high - low) * n) for v in variants)
        assert strata == list(range(n))
    assert variants == design_variants({"k": [1e4, 5e4], "m": [1.0, 3.0]}, "lhs", samples=n, seed=3)  # seeded
    with pytest.raises(ModelError, match="LOW,HIGH"):
        design_variants({"k": ["a", "b"]}, "lhs", samples=4)


def test_variant_identity_follows_the_typed_parameters():
    """`--vary friction_scale=1` and the API's 1 or 1.0 are the same variant as `flexmbs run --set friction_scale=1`."""
    typed = [typed_parameters({"friction_scale": v}, FOURBAR_DEFAULTS) for v in ("1", 1, 1.0, np.float64(1.0))]
    assert all(t == {"friction_scale": 1.0} and isinstance(t["friction_scale"], float) for t in typed)
    assert typed_parameters({"friction_scale": 0.1}, FOURBAR_DEFAULTS)["friction_scale"] == 0.1  # exact via repr
    ids = {variant_id("fourbar-hydraulic", t, 2.0) for t in typed}
    assert len(ids) == 1 and variant_id("fourbar-hydraulic", typed[0], 3.0) not in ids
    with pytest.raises(ModelError, match="expects a number"):
        typed_parameters({"friction_scale": "low"}, FOURBAR_DEFAULTS)


# --------------------------------------------------------------------------------------------------- registry
def test_the_flexmbs_package_does_not_import_cases():
    """Layering: `cases` sits on top; flexmbs finds it only through the registry (entry points / named fallback)."""
    for path in (WORKTREE / "flexmbs").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            assert not any(n == "cases" or n.startswith("cases.") for n in names), path


def test_an_installed_case_package_joins_the_registry(site, tmp_path):
    broken = tmp_path / "broken-0.1.dist-info"
    broken.mkdir()
    (broken / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 0.1\n")
    (broken / "entry_points.txt").write_text("[flexmbs.cases]\nnothing = no_such_package.case\n")
    env_site = f"{site}{os.pathsep}{tmp_path}"
    done = flexmbs(["cases", "--json"], site=env_site, timeout=300)
    assert done.returncode == 0, done.stderr
    found = {c["name"]: c for c in json.loads(done.stdout)["cases"]}
    assert found["spring-mass"]["module"] == "my_machines.spring_mass"
    assert found["spring-mass"]["defaults"]["mass"] == 2.5
    assert {"clamp-locking", "fourbar-hydraulic", "slider-crank"} <= set(found)  # built-in cases too
    assert "no_such_package.case failed to load" in done.stderr  # a broken package is a warning, not a crash


# --------------------------------------------------------------------------------------------------- studies
def _table(folder) -> pd.DataFrame:
    return pd.read_parquet(pathlib.Path(folder) / "table.parquet")


def test_a_user_case_runs_in_a_study_and_an_invalid_variant_fails_alone(site, tmp_path):
    """Entry-point case on a 1-worker LocalCluster; mass = -1 raises ModelError: recorded, others finish, exit 1."""
    out = tmp_path / "study"
    done = flexmbs(["study", "spring-mass", "--vary", "mass=1,-1,2.5", "--workers", "1", "-o", out, "--json"],
                   site=site, timeout=600)
    assert done.returncode == 1, done.stderr  # some variant failed
    assert "1 of 3 variants failed" in done.stderr
    summary = json.loads(done.stdout)
    assert (summary["finished"], summary["failed"]) == (2, 1)
    table = _table(out).set_index("mass")
    assert table.loc[-1.0, "status"] == "failed"
    assert table.loc[-1.0, "error"] == "spring-mass: mass must be positive, got -1.0"
    for mass in (1.0, 2.5):
        row = table.loc[mass]
        assert row["status"] == "finished" and (out / "runs" / row["results_file"]).is_file()
        # generalized-alpha at rtol 1e-6 has a phase error far below 0.1 %
        assert row["period_s"] == pytest.approx(analytic_period(mass, 4.0e4), rel=1e-3)
    manifest = json.loads((out / "study.json").read_text())
    assert manifest["case"] == "spring-mass" and manifest["software"]["flexmbs"]
    assert manifest["variations"] == {"mass": [1.0, -1.0, 2.5]}
    # study-plot as CSV: the finished rows, sorted by the parameter
    csv = tmp_path / "period.csv"
    plot = flexmbs(["study-plot", out, "period_s", "--against", "mass", "--out", csv], site=site, timeout=300)
    assert plot.returncode == 0, plot.stderr
    assert pd.read_csv(csv)["mass"].tolist() == [1.0, 2.5]


@pytest.mark.slow
def test_fourbar_study_on_two_workers_is_bit_identical_to_serial_runs(tmp_path):
    """2 x 2 four-bar study on a 2-worker LocalCluster vs `flexmbs run --json -o` of the same variants: every scalar
    output and every signal of the results files equal bit for bit (same code, same inputs, one thread each)."""
    import h5py

    out = tmp_path / "study"
    args = ["study", "fourbar-hydraulic", "--vary", "friction_scale=1,0.1", "--vary", "torque_M0=200,250",
            "--t-end", "2.0", "--workers", "2", "-o", out, "--quiet"]
    done = flexmbs(args, timeout=1800)
    assert done.returncode == 0, done.stderr
    table = _table(out)
    assert len(table) == 4 and set(table["status"]) == {"finished"}
    assert table["worker"].nunique() == 2  # both workers ran variants
    for _, row in table.iterrows():
        serial_file = tmp_path / f"serial-{row['variant']}.results.h5"
        run = flexmbs(["run", "fourbar-hydraulic", "--set", f"friction_scale={row['friction_scale']!r}", "--set",
                       f"torque_M0={row['torque_M0']!r}", "--t-end", "2.0", "-o", serial_file, "--json", "--quiet"],
                      timeout=900)
        assert run.returncode == 0, run.stderr
        serial = json.loads(run.stdout)
        flat = pd.json_normalize(serial["outputs"], sep=".").iloc[0].to_dict()
        for key, value in flat.items():
            if isinstance(value, list):  # lists (eigenvalues) live in the variant's record, not in the table
                continue
            column = "out." + key if key in ("friction_scale",) else key
            assert row[column] == value or (value is None and pd.isna(row[column])), key
        record = json.loads((out / "runs" / f"{row['variant']}.json").read_text())
        assert record["summary"]["outputs"] == serial["outputs"]  # every output, lists included, bit for bit
        assert row["steps"] == serial["steps"]
        with h5py.File(serial_file) as a, h5py.File(out / "runs" / row["results_file"]) as b:
            names = []
            a.visit(lambda n: names.append(n) if isinstance(a[n], h5py.Dataset) and n.startswith(("time",
                                                                                                  "signals")) else None)
            assert len(names) > 10
            for name in names:
                assert np.array_equal(a[name][()], b[name][()]), name
    png = tmp_path / "deflection.png"
    plot = flexmbs(["study-plot", out, "deflection_at_t2_deg", "max_pressure_MPa.V3", "--against", "torque_M0",
                    "--out", png], timeout=300)
    assert plot.returncode == 0 and png.stat().st_size > 10_000, plot.stderr


def _wait_for(predicate, timeout, what, proc=None):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            said = proc.stderr.read() if proc.stderr else ""
            raise AssertionError(f"the process ended ({proc.returncode}) before {what}: {said}")
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _finished_records(folder):
    runs = pathlib.Path(folder) / "runs"
    # not the hidden temporaries of a record being written (atomic_output), nor a lock
    records = [json.loads(p.read_text()) for p in runs.glob("[!.]*.json")] if runs.is_dir() else []
    return [r for r in records if r["status"] == "finished"]


def _default_ctrl_c() -> None:
    """In a study's process before it starts: Ctrl-C's default action. A test run started as a background job of a
    shell script (`cmd &`) has SIGINT ignored, and its children inherit that: the study then ignored the test's
    Ctrl-C, ran to its end and exited 0, as every program in a background job does."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _study_process(args, site, stderr_file):
    """The study in a session of its own (a Ctrl-C can go to its process group, as a terminal sends it); stderr to a
    file, read while it runs."""
    with open(stderr_file, "w") as handle:
        return subprocess.Popen(args, env=environment(site), cwd=WORKTREE, stdout=subprocess.PIPE, stderr=handle,
                                text=True, start_new_session=True, preexec_fn=_default_ctrl_c)


def _ctrl_c(proc, group: bool) -> None:
    if group:
        os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: the study and its worker processes
    else:
        proc.send_signal(signal.SIGINT)


def _interrupted(proc, stderr_file) -> list[str]:
    """Wait for the interrupted study; its stderr lines (hang protection: 300 s, then it is killed)."""
    try:
        proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
    text = pathlib.Path(stderr_file).read_text()
    assert proc.returncode == 130, text
    for word in ("Traceback", "Exception", "ERROR", "Warning", "warning"):  # no Dask teardown noise
        assert word not in text, text
    return text.replace("\r", "\n").strip().splitlines()


def test_ctrl_c_while_the_cluster_starts_while_variants_run_and_while_it_closes(site, tmp_path):
    """Ctrl-C at three phases of one study, each run resuming the one before: while the local cluster starts (SIGINT
    to the study's process), while variants run and while Dask closes the cluster after the last variant (both to its
    process group, as a terminal sends Ctrl-C: the worker processes get it too). Every time: exit 130 and one line
    saying what is kept; every finished variant keeps its record and results file, and the next run runs only the
    missing variants. Tokens (gate_dir) decide how many variants can finish, so no phase depends on timing.
    Reference: a variant is run once if its results file keeps its modification time and its worker wrote one
    start file (pid_dir); the periods are 2 pi sqrt(m/k) (1e-3: rtol 1e-6 integration)."""
    out, pids, gate, err = tmp_path / "study", tmp_path / "pids", tmp_path / "gate", tmp_path / "stderr.txt"
    pids.mkdir()
    gate.mkdir()
    args = [sys.executable, "-m", "flexmbs", "study", "spring-mass", "--vary", "mass=1,2,3", "--set",
            f"pid_dir={pids}", "--set", f"gate_dir={gate}", "--set", "exit_hold_s=3.5", "--workers", "1", "-o",
            str(out)]
    kept = "variants finished, kept in " + str(out)

    # 1. while the cluster starts (no token: no variant can run)
    proc = _study_process(args, site, err)  # with its messages: they tell the phase
    _wait_for(lambda: "starting a local Dask cluster" in err.read_text(), 600, "the cluster start", proc)
    _ctrl_c(proc, group=False)
    lines = _interrupted(proc, err)
    assert lines[-1] == f"error: interrupted: 0 of 3 {kept}; the same study run again runs the other 3"
    assert _finished_records(out) == [] and (out / "table.parquet").is_file()

    # 2. while variants run: one token, one variant finishes, the others wait at the gate
    (gate / "token.1").touch()
    proc = _study_process(args + ["--quiet"], site, err)
    first = _wait_for(lambda: _finished_records(out), 600, "a finished variant", proc)
    _ctrl_c(proc, group=True)
    assert _interrupted(proc, err) == [f"error: interrupted: 1 of 3 {kept}; the same study run again runs the other 2"]
    assert [r["variant"] for r in _finished_records(out)] == [first[0]["variant"]]
    assert len(_table(out)) == 1
    kept_file = out / "runs" / first[0]["results_file"]
    stamp = kept_file.stat().st_mtime_ns

    # 3. while Dask closes the cluster: the worker process holds its exit until the test opens it
    (gate / "open").touch()
    proc = _study_process(args + ["--quiet"], site, err)
    _wait_for(lambda: list(pids.glob("exit.*")), 600, "the worker's exit", proc)
    _ctrl_c(proc, group=True)
    (gate / "exit-open").touch()
    assert _interrupted(proc, err) == [f"error: interrupted: all 3 {kept}"]
    records = {r["variant"]: r for r in _finished_records(out)}
    assert len(records) == 3 and kept_file.stat().st_mtime_ns == stamp  # the variant of run 2 did not run again
    assert len(list(pids.glob(f"{first[0]['variant']}.*.pid"))) == 1
    stamps = {v: (out / "runs" / r["results_file"]).stat().st_mtime_ns for v, r in records.items()}

    # 4. nothing left to run
    done = flexmbs(args[3:] + ["--quiet", "--json"], site=site, timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["finished"], summary["skipped"], summary["failed"]) == (3, 3, 0)
    assert {v: (out / "runs" / r["results_file"]).stat().st_mtime_ns for v, r in records.items()} == stamps
    table = _table(out)
    assert len(table) == 3 and set(table["status"]) == {"finished"}
    for _, row in table.iterrows():
        assert row["period_s"] == pytest.approx(analytic_period(row["mass"], 4.0e4), rel=1e-3)


@pytest.mark.slow
def test_an_interrupted_study_resumes_with_the_missing_variants_only(site, tmp_path):
    """Two tokens (gate_dir): two variants finish and the others wait, so the study cannot end before its Ctrl-C
    comes, however loaded the machine; the resumed run runs the other four only."""
    out, gate = tmp_path / "study", tmp_path / "gate"
    gate.mkdir()
    for n in range(2):
        (gate / f"token.{n}").touch()
    masses = "1,1.5,2,2.5,3,3.5"
    args = [sys.executable, "-m", "flexmbs", "study", "spring-mass", "--vary", f"mass={masses}", "--set",
            f"gate_dir={gate}", "--workers", "1", "-o", str(out), "--quiet"]
    proc = subprocess.Popen(args, env=environment(site), cwd=WORKTREE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_default_ctrl_c)
    try:
        _wait_for(lambda: len(_finished_records(out)) >= 2, 600, "two finished variants", proc)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == 130, stderr  # interrupted
    first = {r["variant"]: r for r in _finished_records(out)}
    assert len(first) == 2
    stamps = {v: (out / "runs" / r["results_file"]).stat().st_mtime_ns for v, r in first.items()}
    (gate / "open").touch()
    again = subprocess.run(args, env=environment(site), cwd=WORKTREE, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr
    table = _table(out)
    assert len(table) == 6 and table["variant"].is_unique and set(table["status"]) == {"finished"}
    for vid, stamp in stamps.items():  # the runs finished before Ctrl-C are kept, not run again
        assert (out / "runs" / first[vid]["results_file"]).stat().st_mtime_ns == stamp
    assert f"6 of 6 variants finished ({len(first)} earlier)" in again.stdout
    for _, row in table.iterrows():
        assert row["period_s"] == pytest.approx(analytic_period(row["mass"], 4.0e4), rel=1e-3)


@pytest.mark.slow
def test_a_killed_worker_is_replaced_and_its_variant_rerun(site, tmp_path):
    out, pids = tmp_path / "study", tmp_path / "pids"
    pids.mkdir()
    args = [sys.executable, "-m", "flexmbs", "study", "spring-mass", "--vary", "mass=1,2", "--set", "hold_s=4",
            "--set", f"pid_dir={pids}", "--workers", "2", "-o", str(out), "--quiet", "--json"]
    proc = subprocess.Popen(args, env=environment(site), cwd=WORKTREE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        first = _wait_for(lambda: sorted(pids.glob("*.pid")), 600, "a running variant", proc)[0]
        victim = int(first.read_text())
        os.kill(victim, signal.SIGKILL)  # the worker process dies mid-task
        stdout, stderr = proc.communicate(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == 0, stderr
    table = _table(out)
    assert set(table["status"]) == {"finished"} and len(table) == 2
    variant = first.name.split(".")[0]
    row = table.set_index("variant").loc[variant]
    assert int(row["worker_pid"]) != victim  # rerun on a new worker process
    assert len(list(pids.glob(f"{variant}.*.pid"))) == 2  # started twice: killed, then retried
    assert row["period_s"] == pytest.approx(analytic_period(row["mass"], 4.0e4), rel=1e-3)


@pytest.mark.slow
def test_an_external_scheduler_gives_the_same_table_as_the_local_cluster(site, tmp_path):
    """`dask scheduler` + `dask worker` processes on 127.0.0.1, started here; the study through --scheduler."""
    env = environment(site)
    scheduler_file = tmp_path / "scheduler.json"
    procs = []
    try:
        procs.append(subprocess.Popen(["dask", "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                       "--scheduler-file", str(scheduler_file)], env=env, cwd=tmp_path,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        _wait_for(scheduler_file.is_file, 120, "the scheduler file")
        address = json.loads(scheduler_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        procs.append(subprocess.Popen(["dask", "worker", address, "--nworkers", "2", "--nthreads", "1",
                                       "--no-dashboard", "--host", "127.0.0.1"], env=env, cwd=WORKTREE,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        vary = ["--vary", "mass=1,2", "--vary", "stiffness=4e4,9e4"]
        remote = flexmbs(["study", "spring-mass", *vary, "--scheduler", address, "-o", tmp_path / "remote", "--json"],
                         site=site, timeout=900)
        assert remote.returncode == 0, remote.stderr
        assert json.loads(remote.stdout)["scheduler"] == address
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(30)
    local = flexmbs(["study", "spring-mass", *vary, "--workers", "2", "-o", tmp_path / "local", "--quiet"], site=site,
                    timeout=900)
    assert local.returncode == 0, local.stderr
    a, b = _table(tmp_path / "remote"), _table(tmp_path / "local")
    machine = ["wall_s", "worker", "worker_pid"]  # where and how fast, not what
    pd.testing.assert_frame_equal(a.drop(columns=machine), b.drop(columns=machine), check_exact=True)
    for _, row in a.iterrows():
        assert row["period_s"] == pytest.approx(analytic_period(row["mass"], row["stiffness"]), rel=1e-3)
        assert row["amplitude_m"] == pytest.approx(0.05 / math.sqrt(row["stiffness"] / row["mass"]), rel=1e-3)


def test_meshing_works_in_a_worker_thread(tmp_path):
    """Dask workers run tasks in a thread; gmsh must not install its SIGINT handler there (it raised ValueError).
    The bar meshed in a thread has the mass rho L w h of a 1 m x 50 mm x 50 mm steel bar (1e-9: exact volume)."""
    import threading

    from fem.materials import parse_material
    from fem.mesh import load_mesh
    from fem.meshing import bar_mesh
    from fem.model import solid_model

    path, errors = tmp_path / "bar.msh", []

    def mesh():
        try:
            bar_mesh(str(path), size=0.05, order=1)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    worker = threading.Thread(target=mesh)
    worker.start()
    worker.join(300)
    assert not errors, errors
    model = solid_model(load_mesh(str(path)), "steel")
    assert model.rigid_body_properties()["mass"] == pytest.approx(parse_material("steel").density * 0.05 * 0.05,
                                                                  rel=1e-9)
