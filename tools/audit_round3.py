"""Issue 43's fresh audit: bad inputs and faults a new user meets, CLI and Python API, each classified.

Run: ``PYTHONPATH=. python tools/audit_round3.py [--only PREFIX] [--json OUT.json]`` (about 10-20 min on a loaded
machine; not part of the test run: ``tests/flexmbs/test_audit_round3.py`` runs a representative subset).

Classes of an outcome:

* ``clean``: refused with one ``error:`` line naming the input (CLI exit 2; Python a ``FlexmbsError``);
* ``correct``: a harmless input ran (warned where a warning is due) or the guard kept the file;
* ``data loss``: a protected file changed or vanished;
* ``silent wrong``: an absurd input ran without a word (exit 0, no warning);
* ``hang``: Ctrl-C not answered within 10 s, or a run that did not end within its limit;
* ``internal error``: a traceback, ``unexpected ...``, or an exception that is not a FlexmbsError;
* ``cryptic``: refused, but the line does not name the input (its option, parameter, file or argument).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "flexmbs"))
os.environ.setdefault("FLEXMBS_COMPILE_NOTICE", "0")

CLASSES = ("clean", "correct", "data loss", "silent wrong", "hang", "internal error", "cryptic")


def sha(path) -> str | None:
    p = Path(path)
    if p.is_dir():
        return "dir:" + ",".join(sorted(x.name for x in p.iterdir()))
    return hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None


class Audit:
    def __init__(self, folder: Path):
        self.d = folder
        self.rows = []

    # ------------------------------------------------------------------------------------------ helpers
    def _record(self, cid, kind, outcome, detail):
        self.rows.append({"id": cid, "kind": kind, "class": outcome, "detail": detail[:400]})
        print(f"{outcome:15s} {cid:58s} {detail[:150]}", flush=True)

    def cli(self, cid, args, expect="refuse", tokens=(), protect=(), kind="cli"):
        """Run ``flexmbs ARGS`` in-process; ``expect``: refuse | ok | warn; ``tokens``: words the error line must
        hold (any of them); ``protect``: files that must not change."""
        from click.testing import CliRunner

        from flexmbs.cli.app import main

        before = {str(p): sha(p) for p in protect}
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            try:
                result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)
            except BaseException as exc:  # noqa: BLE001
                self._record(cid, kind, "internal error", f"runner raised {type(exc).__name__}: {exc}")
                return
        err = result.stderr if hasattr(result, "stderr") else result.output
        after = {str(p): sha(p) for p in protect}
        lost = [p for p in before if before[p] != after[p]]
        if lost:
            self._record(cid, kind, "data loss", f"changed: {lost}; exit {result.exit_code}; {err.strip()[-200:]}")
            return
        self._classify(cid, kind, result.exit_code, err, expect, tokens,
                       result.exception if not isinstance(result.exception, SystemExit) else None)

    def _classify(self, cid, kind, code, err, expect, tokens, exception=None):
        errors = [line for line in err.splitlines() if line.startswith("error: ")]
        if exception is not None or "Traceback" in err or "unexpected" in err.lower():
            what = f"{type(exception).__name__}: {exception}" if exception is not None else err.strip()[-300:]
            self._record(cid, kind, "internal error", what)
            return
        if code in (2, 1) and expect == "refuse":
            if len(errors) != 1:
                self._record(cid, kind, "cryptic", f"exit {code}, {len(errors)} error lines: {err.strip()[-300:]}")
            elif tokens and not any(t.lower() in errors[0].lower() for t in tokens):
                self._record(cid, kind, "cryptic", f"exit {code}, names none of {tokens}: {errors[0]}")
            else:
                self._record(cid, kind, "clean", f"exit {code}: {errors[0]}")
            return
        if code == 0 and expect == "ok":
            self._record(cid, kind, "correct", "ran" + (": " + err.strip().splitlines()[-1] if err.strip() else ""))
            return
        if code == 0 and expect == "warn":
            warned = [line for line in err.splitlines() if line.startswith(("warning", "note"))]
            self._record(cid, kind, "correct" if warned else "silent wrong",
                         warned[0] if warned else "no warning: " + err.strip()[-200:])
            return
        if code == 0 and expect == "refuse":
            warned = [line for line in err.splitlines() if line.startswith(("warning", "note"))]
            self._record(cid, kind, "correct" if warned else "silent wrong",
                         ("warned: " + warned[0]) if warned else "accepted without a word")
            return
        if code in (1, 2) and expect in ("ok", "warn"):
            # a refusal of a valid input: counted as cryptic (the user did nothing wrong)
            self._record(cid, kind, "cryptic", f"valid input refused, exit {code}: {errors[:1]}")
            return
        self._record(cid, kind, "internal error", f"exit {code}: {err.strip()[-300:]}")

    def api(self, cid, fn, expect="refuse", tokens=()):
        """Call ``fn()``; a FlexmbsError with one line naming a token is clean."""
        from fem.errors import FlexmbsError

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                fn()
            except FlexmbsError as exc:
                text = str(exc)
                if expect in ("ok", "warn"):
                    self._record(cid, "api", "cryptic", f"valid input refused: {text}")
                elif "\n" in text.strip():
                    self._record(cid, "api", "cryptic", f"several lines: {text[:300]}")
                elif tokens and not any(t.lower() in text.lower() for t in tokens):
                    self._record(cid, "api", "cryptic", f"names none of {tokens}: {text}")
                else:
                    self._record(cid, "api", "clean", f"{type(exc).__name__}: {text}")
                return
            except Exception as exc:  # noqa: BLE001
                self._record(cid, "api", "internal error", f"{type(exc).__name__}: {exc}")
                return
        warned = [str(w.message) for w in caught if "Plausibility" in w.category.__name__
                  or "Warning" in w.category.__name__ and any(
                      room in str(w.filename) + str(w.category.__module__) for room in ("flexmbs", "hydraulics"))]
        if expect == "ok":
            self._record(cid, "api", "correct", "ran")
        elif warned:
            self._record(cid, "api", "correct", "warned: " + warned[0][:200])
        else:
            self._record(cid, "api", "silent wrong", "accepted without a word")

    def sigint(self, cid, argv, delay, expect_file=None, limit=10.0, env=None):
        """Start ``python -m flexmbs ARGV``, send SIGINT after ``delay`` s; the process must end within ``limit``
        s with exit 130 (or 2) and one line; ``expect_file``: a results file that must exist and be readable."""
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", **(env or {})}
        proc = subprocess.Popen([sys.executable, "-m", "flexmbs", *map(str, argv)], cwd=self.d, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            proc.wait(timeout=delay)
            out, err = proc.communicate()
            self._record(cid, "ctrl-c", "correct" if proc.returncode == 0 else "cryptic",
                         f"ended before Ctrl-C (exit {proc.returncode}): {err.strip()[-200:]}")
            return
        except subprocess.TimeoutExpired:
            pass
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            self._record(cid, "ctrl-c", "hang", f"no exit {limit:.0f} s after Ctrl-C: {err.strip()[-200:]}")
            return
        took = time.monotonic() - sent
        if "Traceback" in err or "Exception ignored" in err:
            self._record(cid, "ctrl-c", "internal error", err.strip()[-300:])
            return
        if expect_file is not None:
            from flexmbs.results.results import load_results

            try:
                res = load_results(str(self.d / expect_file))
                kept = f"kept {res.time.size} samples, status {res.status}"
            except Exception as exc:  # noqa: BLE001
                parts = sorted(p.name for p in self.d.glob(expect_file + "*"))
                nothing = "before its first sample" in err or "compiling" in err and not parts
                self._record(cid, "ctrl-c", "clean" if nothing else "data loss",
                             f"exit {proc.returncode} {took:.1f} s after Ctrl-C, no results ({exc}); files {parts}; "
                             f"{err.strip()[-300:]}")
                return
        else:
            kept = ""
        self._record(cid, "ctrl-c", "clean" if proc.returncode in (130, 2, 1) else "cryptic",
                     f"exit {proc.returncode} {took:.1f} s after Ctrl-C; {kept}; {err.strip().splitlines()[-1:]}")


# ---------------------------------------------------------------------------------------------- the cases
def fixtures(d: Path) -> dict:
    from safe_helpers import guarded_files

    import flexmbs as fm

    f = guarded_files(d)
    from click.testing import CliRunner

    from flexmbs.cli.app import main

    r = CliRunner().invoke(main, ["run", "slider-crank", "--t-end", "0.02", "-o", str(d / "sc.results.h5"), "--quiet"])
    assert r.exit_code == 0, r.stderr
    f["sc"] = str(d / "sc.results.h5")
    data = Path(f["res"]).read_bytes()
    (d / "cut.results.h5").write_bytes(data[: len(data) // 3])
    (d / "empty.results.h5").write_bytes(b"")
    (d / "text.results.h5").write_text("hello\n")
    (d / "text.flex.h5").write_text("not a body\n")
    body = Path(f["flex"]).read_bytes()
    (d / "cut.flex.h5").write_bytes(body[: len(body) // 2])
    mesh = Path(f["mesh"]).read_bytes()
    (d / "cut.msh").write_bytes(mesh[: len(mesh) // 3])
    (d / "empty.msh").write_bytes(b"")
    (d / "notes.txt").write_text("my notes\n")
    (d / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 100)
    (d / "folder.h5").mkdir(exist_ok=True)
    study = d / "study-x"
    (study / "runs").mkdir(parents=True, exist_ok=True)
    (study / "study.json").write_text(json.dumps({
        "format": "flexmbs-study", "format_version": 1, "case": "slider-crank", "plan": None, "design": "grid",
        "samples": None, "seed": 0, "t_end": 0.01, "variations": {"crank_mass": [1.0, 2.0]}, "fixed": {},
        "varied": ["crank_mass"]}))
    (study / "table.csv").write_text("crank_mass,x\n1.0,2.0\n")
    f["study"] = str(study)
    f["fm"] = fm
    return f


def cli_cases(a: Audit, f: dict) -> None:
    d = f["d"]
    mesh, flex, res, sc = f["mesh"], f["flex"], f["res"], f["sc"]
    A = ["--interface", "a=box:-0.001,-1,-1,0.001,1,1", "--interface", "b=box:0.999,-1,-1,1.001,1,1"]
    base = [mesh, *A, "--modes", "2", "--compare", "0", "--material", "steel"]
    protected = [mesh, flex, res, sc]

    # ---- mesh
    for v in ("nan", "inf", "-0.01", "0", "abc", "1e-9", "1e300"):
        a.cli(f"mesh bar --size {v}", ["mesh", "bar", str(d / "m1.msh"), "--size", v], tokens=("--size", "size"))
    for v in ("nan", "-1", "0", "1e9", "x"):
        a.cli(f"mesh bar --length {v}", ["mesh", "bar", str(d / "m2.msh"), "--size", "0.05", "--length", v],
              tokens=("--length", "length"))
    a.cli("mesh unknown part", ["mesh", "gear", str(d / "m3.msh"), "--size", "0.05"], tokens=("gear", "part"))
    a.cli("mesh suffix .stl", ["mesh", "bar", str(d / "m.stl"), "--size", "0.05"], tokens=(".stl", "suffix"))
    a.cli("mesh onto the body file", ["mesh", "bar", flex, "--size", "0.05"], tokens=(flex, "flex"), protect=[flex])
    a.cli("mesh onto a results file", ["mesh", "bar", str(d / "good.msh"), "--size", "0.05"], expect="ok")
    a.cli("mesh -> existing png", ["mesh", "bar", str(d / "picture.png"), "--size", "0.05"],
          tokens=("picture.png", "png", "suffix"), protect=[d / "picture.png"])
    a.cli("mesh into missing folder", ["mesh", "bar", str(d / "nope" / "m.msh"), "--size", "0.05"],
          tokens=("nope", "folder"))
    a.cli("mesh --order 3", ["mesh", "bar", str(d / "m4.msh"), "--size", "0.05", "--order", "3"], tokens=("order",))
    a.cli("mesh onto a folder", ["mesh", "bar", str(d / "folder.h5"), "--size", "0.05"], tokens=("folder",))
    a.cli("mesh replaces the mesh input of reduce? (own mesh)", ["mesh", "bar", mesh, "--size", "0.05"],
          expect="ok")

    # ---- modal
    for mat in ("E=nan,nu=0.3,rho=7850", "E=210e9,nu=0.3,rho=-1", "E=210e9,nu=0.6,rho=7850", "E=210,nu=0.3,rho=7850",
                "E=210e9,nu=0.3,rho=7.85", "E=210e9,rho=7850", "titanium", "E=abc,nu=0.3,rho=7850", "",
                "E=210e9,nu=0.3,rho=7850,G=1", "E=2.1e11;nu=0.3;rho=7850", "E=210e9,nu=-1,rho=7850"):
        a.cli(f"modal --material {mat!r}", ["modal", mesh, "--material", mat, "--modes", "3"],
              tokens=("material", "E", "nu", "rho", "density", "modulus", "poisson"))
    for v in ("0", "-2", "nan", "x", "100000"):
        a.cli(f"modal --modes {v}", ["modal", mesh, "--material", "steel", "--modes", v], tokens=("--modes", "modes"))
    for sel in ("box:1,2,3", "box:a,b,c,d,e,f", "group:nope", "sphere:0,0,0", "nodes:", "box:5,5,5,6,6,6",
                "box:-1,-1,-1,2,2,2:dofs=7", "banana"):
        a.cli(f"modal --fix {sel}", ["modal", mesh, "--material", "steel", "--modes", "3", "--fix", sel],
              tokens=("--fix", "fix", sel.split(":")[0], "selector", "dofs"))
    a.cli("modal missing mesh", ["modal", str(d / "none.msh"), "--material", "steel"], tokens=("none.msh",))
    a.cli("modal cut mesh", ["modal", str(d / "cut.msh"), "--material", "steel"], tokens=("cut.msh",))
    a.cli("modal empty mesh", ["modal", str(d / "empty.msh"), "--material", "steel"], tokens=("empty.msh",))
    a.cli("modal of a results file", ["modal", res, "--material", "steel"], tokens=("good.results.h5", "mesh"))
    a.cli("modal of a text file", ["modal", str(d / "notes.txt"), "--material", "steel"], tokens=("notes.txt",))

    # ---- reduce
    out = str(d / "r.flex.h5")
    for v in ("0", "-1", "nan", "2.5", "x", "1e7"):
        a.cli(f"reduce --modes {v}", ["reduce", *base[:-6], "--modes", v, "--compare", "0", "--material", "steel",
                                      "-o", out], tokens=("--modes", "modes"))
    for v in ("nan", "-5", "0", "1e12", "x", "inf"):
        a.cli(f"reduce --max-frequency {v}", ["reduce", *base, "--max-frequency", v, "-o", out],
              tokens=("--max-frequency", "cut-off", "frequency"))
    for v in ("-0.1", "1", "1.5", "nan", "x", "0.02,0.05", "0:0.02,100", "5%"):
        a.cli(f"reduce --damping {v}", ["reduce", *base, "--damping", v, "-o", out], tokens=("--damping", "damping"))
    for v in ("-1", "x", "1e6"):
        a.cli(f"reduce --compare {v}", ["reduce", mesh, *A, "--modes", "2", "--compare", v, "--material", "steel",
                                        "-o", out], tokens=("--compare", "compare"))
    for itf in ("a", "a=", "=box:0,0,0,1,1,1", "a=box:0,0,0", "a=box:9,9,9,10,10,10", "a=box:-0.001,-1,-1,0.001,1,1:rbe9",
                "a=box:-0.001,-1,-1,0.001,1,1:dofs=789", "a=box:-0.001,-1,-1,0.001,1,1@x,y,z",
                "a=box:-0.001,-1,-1,0.001,1,1@nan,0,0", "a=group:nowhere", "a b=box:0,0,0,1,1,1"):
        a.cli(f"reduce --interface {itf!r}", ["reduce", mesh, "--interface", itf, "--modes", "2", "--compare", "0",
                                              "--material", "steel", "-o", out],
              tokens=("--interface", "interface", "selector", itf.split("=")[0] or "name"))
    a.cli("reduce duplicate interface names", ["reduce", mesh, "--interface", "a=box:-0.001,-1,-1,0.001,1,1",
                                               "--interface", "a=box:0.999,-1,-1,1.001,1,1", "--modes", "2",
                                               "--compare", "0", "--material", "steel", "-o", out],
          tokens=("'a'", "a", "twice", "interface"))
    a.cli("reduce -o the mesh", ["reduce", *base, "-o", mesh], tokens=("mesh", "bar.msh", "-o"), protect=[mesh])
    a.cli("reduce -o a results file", ["reduce", *base, "-o", res], tokens=("results", "-o"), protect=[res])
    a.cli("reduce -o .txt", ["reduce", *base, "-o", str(d / "x.txt")], tokens=(".txt", "-o", "suffix", ".h5"))
    a.cli("reduce -o into the study", ["reduce", *base, "-o", str(Path(f["study"]) / "b.flex.h5")],
          tokens=("study",), protect=[f["study"]])
    a.cli("reduce --report onto the mesh", ["reduce", *base, "-o", out, "--report", mesh], tokens=("--report", "mesh"),
          protect=[mesh])
    a.cli("reduce --report = -o", ["reduce", *base, "-o", out, "--report", out], tokens=("--report",))
    a.cli("reduce --report onto results", ["reduce", *base, "-o", out, "--report", res], tokens=("--report", "results"),
          protect=[res])
    a.cli("reduce missing mesh", ["reduce", str(d / "none.msh"), *A, "--modes", "2", "-o", out], tokens=("none.msh",))
    a.cli("reduce cut mesh", ["reduce", str(d / "cut.msh"), *A, "--modes", "2", "-o", out], tokens=("cut.msh",))
    a.cli("reduce empty mesh", ["reduce", str(d / "empty.msh"), *A, "--modes", "2", "-o", out], tokens=("empty.msh",))
    a.cli("reduce --stiffness missing", ["reduce", "--stiffness", str(d / "k.mtx"), "--mass", str(d / "m.mtx"),
                                         "--nodes", str(d / "n.txt"), "--interface", "a=nodes:1", "-o", out],
          tokens=("k.mtx", "--stiffness"))
    (d / "k.mtx").write_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 1 nan\n")
    a.cli("reduce --stiffness nan entry", ["reduce", "--stiffness", str(d / "k.mtx"), "--mass", str(d / "k.mtx"),
                                           "--nodes", str(d / "notes.txt"), "--interface", "a=nodes:1", "-o", out],
          tokens=("k.mtx", "--stiffness", "nan", "finite", "--nodes", "notes.txt"))
    a.cli("reduce --stiffness without --mass", ["reduce", "--stiffness", str(d / "k.mtx"), "--interface", "a=nodes:1",
                                                "-o", out], tokens=("--mass",))
    a.cli("reduce mesh and --stiffness", ["reduce", mesh, "--stiffness", str(d / "k.mtx"), "--interface", "a=nodes:1",
                                          "-o", out], tokens=("--stiffness", "MESH", "mesh"))
    a.cli("reduce --output-nodes bad", ["reduce", *base, "--output-nodes", "box:1", "-o", out],
          tokens=("--output-nodes", "output", "box:1"))
    a.cli("reduce --stress-field bad", ["reduce", *base, "--stress-field", "box:1", "-o", out],
          tokens=("--stress-field", "stress", "box:1"))
    a.cli("reduce --path bad", ["reduce", *base, "--path", "p", "-o", out], tokens=("--path", "path"))
    a.cli("reduce --name empty", ["reduce", *base, "--name", "", "-o", out], tokens=("--name", "name"))
    a.cli("reduce no interface", ["reduce", mesh, "--modes", "2", "--compare", "0", "--material", "steel", "-o", out],
          tokens=("--interface",))

    # ---- run
    ro = str(d / "run.results.h5")
    for key, val in (("link_length", "nan"), ("link_length", "-0.5"), ("link_length", "inf"), ("link_length", "abc"),
                     ("link_elements", "2.5"), ("link_elements", "0"), ("link_elements", "1e9"),
                     ("link_poisson_ratio", "0.5"), ("link_poisson_ratio", "-1.5"), ("link_youngs_modulus", "210"),
                     ("link_density", "0"), ("link_damping_ratio", "2"), ("link_damping_ratio", "-0.1"),
                     ("crank_mass", "0"), ("crank_mass", "-1"), ("slider_mass", "nan"), ("crank_speed", "inf"),
                     ("drive", "banana"), ("drive", "7"), ("rtol", "0"), ("rtol", "2"), ("atol", "-1"),
                     ("t_end", "-1"), ("link_normal_modes", "-3"), ("link_normal_modes", "1000"),
                     ("initial_crank_angle", "nan"), ("nonexistent", "1"), ("LINK_LENGTH", "0.5"),
                     ("link_length", ""), ("link_length", "0.5m"), ("link_length", "1,5")):
        a.cli(f"run slider-crank --set {key}={val}", ["run", "slider-crank", "--set", f"{key}={val}", "--t-end", "0.01",
                                                      "-o", ro, "--quiet"], tokens=(key, "--set"))
    a.cli("run --set without =", ["run", "slider-crank", "--set", "link_length", "--t-end", "0.01", "--quiet"],
          tokens=("--set", "link_length", "KEY=VALUE"))
    a.cli("run --set k=1 --set k=2", ["run", "slider-crank", "--set", "crank_mass=1", "--set", "crank_mass=2",
                                      "--t-end", "0.01", "--quiet"], tokens=("crank_mass",))
    a.cli("run initial_crank_angle=90 (degrees as rad)", ["run", "slider-crank", "--set", "initial_crank_angle=90",
                                                          "--t-end", "0.01", "--quiet", "-o", ro], expect="warn")
    a.cli("run crank_mass=0.001 (grams as kg)", ["run", "slider-crank", "--set", "crank_mass=1000",
                                                 "--t-end", "0.01", "--quiet", "-o", ro], expect="warn")
    for v in ("0", "-1", "nan", "inf", "abc", "1e-300"):
        a.cli(f"run --t-end {v}", ["run", "slider-crank", "--t-end", v, "--quiet", "-o", ro], tokens=("--t-end", "t_end"))
    a.cli("run unknown case", ["run", "bulldozer", "--t-end", "0.01"], tokens=("bulldozer",))
    a.cli("run -o mesh", ["run", "slider-crank", "--t-end", "0.01", "--quiet", "-o", mesh], tokens=("-o", "mesh"),
          protect=[mesh])
    a.cli("run -o body", ["run", "slider-crank", "--t-end", "0.01", "--quiet", "-o", flex], tokens=("-o", "flex"),
          protect=[flex])
    a.cli("run -o .csv", ["run", "slider-crank", "--t-end", "0.01", "--quiet", "-o", str(d / "r.csv")],
          tokens=("-o", ".h5", "suffix"))
    a.cli("run -o folder", ["run", "slider-crank", "--t-end", "0.01", "--quiet", "-o", str(d / "folder.h5")],
          tokens=("folder",))
    a.cli("run -o into study runs", ["run", "slider-crank", "--t-end", "0.01", "--quiet", "-o",
                                     str(Path(f["study"]) / "runs" / "v.results.h5")], tokens=("study",),
          protect=[f["study"]])
    a.cli("run -o missing folder", ["run", "slider-crank", "--t-end", "0.01", "--quiet", "-o",
                                    str(d / "none" / "x.results.h5")], tokens=("none", "folder"))
    a.cli("run -o png", ["run", "slider-crank", "--t-end", "0.01", "--quiet", "-o", str(d / "picture.png")],
          tokens=("picture.png", "-o", ".h5"), protect=[d / "picture.png"])
    a.cli("run -o over a finished results file (same kind)", ["run", "slider-crank", "--t-end", "0.01", "--quiet",
                                                                "-o", str(d / "again.results.h5")], expect="ok")
    for key, val in (("scenario", "flying"), ("boom", "5.027"), ("supply_pressure", "280"),
                     ("boom_angle_deg", "0.314"), ("supply_pressure", "-1"), ("stick_rod", "0.3")):
        a.cli(f"run excavator --set {key}={val}", ["run", "excavator", "--set", f"{key}={val}", "--t-end", "0.005",
                                                   "--quiet", "-o", ro],
              expect="warn" if (key, val) in (("boom", "5.027"), ("supply_pressure", "280"), ("boom_angle_deg", "0.314"))
              else "refuse", tokens=(key,))
    for case, key, val in (("fourbar-hydraulic", "friction_scale", "-1"), ("fourbar-hydraulic", "torque_M0", "nan"),
                           ("clamp-locking", "stroke_direction", "sideways"), ("clamp-locking", "piston_mass", "0"),
                           ("spin-up-beam", "omega_s", "inf"), ("spin-up-beam", "geometric_stiffness", "maybe"),
                           ("platen-stroke", "scenario", "nope"), ("classic-mechanisms", "mechanism", "watt"),
                           ("nafems-free-vibration", "benchmark", "fv99"), ("nafems-free-vibration", "refinement", "0"),
                           ("compactor", "scenario", "flying"), ("machine-creeping", "scenario", "x")):
        a.cli(f"run {case} --set {key}={val}", ["run", case, "--set", f"{key}={val}", "--t-end", "0.001", "--quiet"],
              tokens=(key,))

    # ---- info / plot / stress / fatigue / animate / modes / report on bad files
    for name in ("cut.results.h5", "empty.results.h5", "text.results.h5", "none.results.h5", "cut.flex.h5",
                 "text.flex.h5", "cut.msh", "notes.txt"):
        a.cli(f"info {name}", ["info", str(d / name)], tokens=(name,), expect="refuse")
    a.cli("info folder", ["info", str(d / "folder.h5")], tokens=("folder",))
    for sig in ("nope/signal", "", "body/crank/position[9]", "joint"):
        a.cli(f"plot signal {sig!r}", ["plot", sc, sig, "--out", str(d / "p.png")], tokens=(sig or "signal", "signal"))
    a.cli("plot onto its input", ["plot", sc, "body/crank/position", "--out", sc], tokens=("--out", "input", "sc."),
          protect=[sc])
    a.cli("plot onto the body", ["plot", sc, "body/crank/position", "--out", flex], tokens=("--out", "flex", "suffix"),
          protect=[flex])
    a.cli("plot --out .pdf", ["plot", sc, "body/crank/position", "--out", str(d / "p.pdf")], tokens=(".pdf", "--out"))
    for size in ("0x0", "100", "axb", "-5x-5", "100000x100000", "nanxnan"):
        a.cli(f"plot --size {size}", ["plot", sc, "body/crank/position", "--out", str(d / "p2.png"), "--size", size],
              tokens=("--size", "size"))
    a.cli("plot of a cut file", ["plot", str(d / "cut.results.h5"), "body/ball/position", "--out", str(d / "p3.png")],
          tokens=("cut.results.h5",))
    a.cli("plot of a mesh", ["plot", mesh, "x", "--out", str(d / "p4.png")], tokens=("bar.msh", "results"))
    a.cli("plot onto notes.txt csv", ["plot", sc, "body/crank/position", "--out", str(d / "notes.txt")],
          tokens=("notes.txt", "--out", "suffix"), protect=[d / "notes.txt"])
    a.cli("stress no flexible body", ["stress", res, "--body", "ball", "--node-index", "0", "--out", str(d / "s.png")], tokens=("ball",))
    a.cli("stress unknown body", ["stress", sc, "--body", "nope", "--node-index", "0", "--out", str(d / "s.png")], tokens=("nope",))
    a.cli("stress node index -1", ["stress", sc, "--body", "link", "--node-index", "-1", "--out", str(d / "s.png")], tokens=("-1", "node"))
    a.cli("stress node index 1e9", ["stress", sc, "--body", "link", "--node-index", "1000000000", "--out", str(d / "s.png")],
          tokens=("1000000000", "node"))
    a.cli("stress node id absent", ["stress", sc, "--body", "link", "--node", "999999", "--out", str(d / "s.png")], tokens=("999999", "node"))
    a.cli("stress --bins 0", ["stress", sc, "--body", "link", "--hotspot", "--bins", "0", "--out", str(d / "s.png")], tokens=("--bins", "bins"))
    a.cli("stress --out onto input", ["stress", sc, "--body", "link", "--hotspot", "--out", sc],
          tokens=("--out", "input", "sc."), protect=[sc])
    a.cli("stress cut file", ["stress", str(d / "cut.results.h5"), "--body", "link", "--hotspot", "--out", str(d / "s.png")],
          tokens=("cut.results.h5",))
    a.cli("fatigue unknown sn", ["fatigue", sc, "--body", "link", "--sn", "unobtainium"], tokens=("unobtainium", "--sn"))
    a.cli("fatigue sn m=nan", ["fatigue", sc, "--body", "link", "--sn", "m=nan,C=1e12"], tokens=("--sn", "nan", "m"))
    a.cli("fatigue of a body without stress field", ["fatigue", sc, "--body", "link", "--out",
                                                     str(Path(sc).with_suffix(""))], tokens=("stress",), protect=[sc])
    a.cli("fatigue rigid-only results", ["fatigue", res, "--body", "ball"], tokens=("flexible", "stress", "body"))
    a.cli("fatigue --top 0", ["fatigue", sc, "--body", "link", "--top", "0"], tokens=("--top", "top"))
    a.cli("modes missing body", ["modes", str(d / "none.flex.h5"), "--out", str(d / "m.png")], tokens=("none.flex.h5",))
    a.cli("modes cut body", ["modes", str(d / "cut.flex.h5"), "--out", str(d / "m.png")], tokens=("cut.flex.h5",))
    a.cli("modes text body", ["modes", str(d / "text.flex.h5"), "--out", str(d / "m.png")], tokens=("text.flex.h5",))
    a.cli("modes of a results file", ["modes", res, "--out", str(d / "m.png")], tokens=("good.results.h5", "body"))
    for v in ("0", "-1", "99", "x"):
        a.cli(f"modes --mode {v}", ["modes", flex, "--mode", v, "--out", str(d / "m.png")], tokens=("mode", v))
    for v in ("1e12", "nan", "inf", "-1e12", "x"):
        a.cli(f"modes --scale {v}", ["modes", flex, "--scale", v, "--out", str(d / "m.png")], tokens=("--scale", "scale"))
    a.cli("modes --out onto body", ["modes", flex, "--out", flex], tokens=("--out", "flex", "suffix"), protect=[flex])
    a.cli("modes --out .jpg", ["modes", flex, "--out", str(d / "m.jpg")], tokens=(".jpg", "--out"))
    a.cli("modes gif two modes", ["modes", flex, "--mode", "1", "--mode", "2", "--out", str(d / "m.gif")],
          tokens=("--mode", "mode"))
    for v in ("0", "-1", "nan", "1e9", "x"):
        a.cli(f"animate --fps {v}", ["animate", sc, "--out", str(d / "a.gif"), "--fps", v, "--max-frames", "2"],
              tokens=("--fps", "fps"))
    for v in ("1e12", "nan", "x"):
        a.cli(f"animate --scale {v}", ["animate", sc, "--out", str(d / "a.gif"), "--scale", v, "--max-frames", "2"],
              tokens=("--scale", "scale"))
    a.cli("animate --max-frames 1", ["animate", sc, "--out", str(d / "a.gif"), "--max-frames", "1"],
          tokens=("--max-frames", "max-frames"))
    a.cli("animate --every 0", ["animate", sc, "--out", str(d / "a.pvd"), "--every", "0"], tokens=("--every", "every"))
    a.cli("animate cut", ["animate", str(d / "cut.results.h5"), "--out", str(d / "a.gif")], tokens=("cut.results.h5",))
    a.cli("animate onto input", ["animate", sc, "--out", sc], tokens=("--out", "suffix", "input", "sc.results.h5"), protect=[sc])
    a.cli("animate onto png (other kind)", ["animate", sc, "--out", str(d / "picture.png")],
          tokens=("--out", "suffix", ".png", "picture"), protect=[d / "picture.png"])
    a.cli("animate --size 0x0", ["animate", sc, "--out", str(d / "a2.gif"), "--size", "0x0"], tokens=("--size", "size"))
    a.cli("report onto input", ["report", sc, "-o", sc], tokens=("-o", "--out", "input", "suffix", "sc.results.h5"), protect=[sc])
    a.cli("report -o .pdf", ["report", sc, "-o", str(d / "r.pdf")], tokens=(".pdf", "-o", "--out", "html"))
    a.cli("report --frames 0", ["report", sc, "-o", str(d / "r.html"), "--frames", "0"], tokens=("--frames", "frames"))
    a.cli("report --scale 1e12", ["report", sc, "-o", str(d / "r2.html"), "--scale", "1e12"], tokens=("--scale", "scale"))
    a.cli("report of a cut file", ["report", str(d / "cut.results.h5"), "-o", str(d / "r3.html")],
          tokens=("cut.results.h5",))

    # ---- linearize
    lo = str(d / "lin.h5")
    for at in ("banana", "-1", "nan", f"{res}@", f"{res}@x", f"{d / 'none.results.h5'}@0.1", "1e9",
               f"{d / 'cut.results.h5'}@0.05"):
        a.cli(f"linearize --at {at!r}", ["linearize", "fourbar-hydraulic", "--at", at, "-o", lo], tokens=("--at", "at", "none", "cut.results.h5"))
    a.cli("linearize --input unknown", ["linearize", "fourbar-hydraulic", "--input", "nope", "-o", lo], tokens=("nope",))
    a.cli("linearize --output unknown", ["linearize", "fourbar-hydraulic", "--output", "nope", "-o", lo], tokens=("nope",))
    a.cli("linearize -o .xlsx", ["linearize", "fourbar-hydraulic", "-o", str(d / "l.xlsx")], tokens=(".xlsx", "-o"))
    a.cli("linearize -o onto results", ["linearize", "fourbar-hydraulic", "-o", res], tokens=("-o", "results"), protect=[res])
    a.cli("linearize --set nan", ["linearize", "fourbar-hydraulic", "--set", "friction_scale=nan", "-o", lo],
          tokens=("friction_scale",))
    a.cli("linearize --mode-vtk bad", ["linearize", "fourbar-hydraulic", "--mode-vtk", "x:y.pvd"], tokens=("--mode-vtk",))
    a.cli("linearize --mode-vtk 999", ["linearize", "fourbar-hydraulic", "--mode-vtk", f"999:{d / 'm.pvd'}"],
          tokens=("999", "mode"))
    a.cli("linearize unknown case", ["linearize", "bulldozer"], tokens=("bulldozer",))

    # ---- study / study-plot
    so = d / "study-new"
    for vary in ("crank_mass=", "crank_mass=1,nan", "crank_mass=a,b", "nope=1,2", "crank_mass=1,1",
                 "crank_mass=-1,2", "crank_mass"):
        a.cli(f"study --vary {vary!r}", ["study", "slider-crank", "--vary", vary, "--t-end", "0.005", "-o", so,
                                         "--quiet", "--workers", "1"], tokens=("--vary", vary.split("=")[0], "crank_mass"))
    a.cli("study --design lhs:0", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--design", "lhs:0",
                                   "-o", so, "--quiet"], tokens=("--design", "lhs"))
    a.cli("study --design banana", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--design", "banana",
                                    "-o", so, "--quiet"], tokens=("--design",))
    a.cli("study --design zip unequal", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--vary",
                                         "slider_mass=1,2,3", "--design", "zip", "-o", so, "--quiet"],
          tokens=("zip", "--vary", "values"))
    a.cli("study --workers 0", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--workers", "0", "-o", so],
          tokens=("--workers", "workers"))
    a.cli("study --t-end nan", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--t-end", "nan", "-o", so],
          tokens=("--t-end", "t_end", "t-end"))
    a.cli("study -o a file", ["study", "slider-crank", "--vary", "crank_mass=1,2", "-o", res, "--quiet"],
          tokens=("-o", "folder", "good.results.h5"), protect=[res])
    a.cli("study -o existing study other design", ["study", "slider-crank", "--vary", "crank_mass=3,4", "-o",
                                                   f["study"], "--quiet", "--t-end", "0.01"],
          tokens=("--vary", "varied", "different"), protect=[f["study"]])
    a.cli("study --plan missing", ["study", "slider-crank", "--plan", "nope", "-o", so], tokens=("nope", "--plan"))
    a.cli("study --scheduler bad", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--scheduler",
                                    "tcp://127.0.0.1:1", "-o", d / "study-sched", "--quiet"], tokens=("--scheduler", "127.0.0.1"))
    a.cli("study-plot missing folder", ["study-plot", str(d / "nostudy"), "x", "--against", "crank_mass", "--out",
                                        str(d / "s.png")], tokens=("nostudy",))
    a.cli("study-plot unknown against", ["study-plot", f["study"], "x", "--against", "nope", "--out", str(d / "s.png")],
          tokens=("nope", "--against", "table"))
    a.cli("study-plot --out in study", ["study-plot", f["study"], "x", "--against", "crank_mass", "--out",
                                        str(Path(f["study"]) / "table.csv")], tokens=("study",), protect=[f["study"]])
    a.cli("study-plot of a file", ["study-plot", res, "x", "--against", "crank_mass", "--out", str(d / "s.png")],
          tokens=("good.results.h5", "study"))

    # ---- validate / cases
    a.cli("validate unknown case", ["validate", "--case", "bulldozer", "--quick"], tokens=("bulldozer",))
    a.cli("validate -o .docx", ["validate", "--quick", "--case", "slider-crank", "-o", str(d / "v.docx")],
          tokens=(".docx", "-o"))
    a.cli("validate -o onto mesh", ["validate", "--quick", "--case", "slider-crank", "-o", mesh], tokens=("-o", "mesh",
                                                                                                        "suffix"),
          protect=[mesh])
    a.cli("cases unknown", ["cases", "bulldozer"], tokens=("bulldozer",))
    a.cli("unknown command", ["simulate"], tokens=("simulate",))
    a.cli("unknown option", ["run", "slider-crank", "--tend", "1"], tokens=("--tend",))


def api_cases(a: Audit, f: dict) -> None:
    import numpy as np

    import flexmbs as fm
    import hydraulics as h

    d = f["d"]

    def model():
        m = fm.Model("m", gravity=(0, 0, -9.81))
        b = m.add_rigid_body("b", 1.0, (1e-3,) * 3)
        return m, b

    # rigid bodies
    for mass in (0.0, -1.0, float("nan"), float("inf"), "1", None, [1.0], True):
        a.api(f"add_rigid_body mass={mass!r}", lambda mass=mass: fm.Model("x").add_rigid_body("b", mass, (1, 1, 1)),
              tokens=("mass",))
    for inertia in ((1, 1, 3), (1, 2, 3.5), (float("nan"), 1, 1), (-1, 1, 1), "abc", None, (1, 1), np.ones((2, 2)),
                    [[1, 2, 0], [0, 1, 0], [0, 0, 1]], (float("inf"),) * 3):
        a.api(f"add_rigid_body inertia={inertia!r}"[:60],
              lambda inertia=inertia: fm.Model("x").add_rigid_body("b", 1.0, inertia), tokens=("inertia", "inertias"))
    a.api("tonnes typed as kg (5.027 kg, 1e4 kg m^2)", lambda: fm.Model("x").add_rigid_body("boom", 5.027,
                                                                                             (1e4, 1e4, 1e3)))
    a.api("rigid body 1 kg 1e-3 kg m^2 (valid)", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1e-3,) * 3),
          expect="ok")
    a.api("rigid body position nan", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 1),
                                                                          position=(float("nan"), 0, 0)),
          tokens=("position",))
    a.api("rigid body position text", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 1), position="origin"),
          tokens=("position",))
    a.api("rigid body velocity inf", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 1),
                                                                          velocity=(float("inf"), 0, 0)),
          tokens=("velocity",))
    a.api("rigid body orientation not a rotation", lambda: fm.Model("x").add_rigid_body(
        "b", 1.0, (1, 1, 1), orientation=np.ones((3, 3))), tokens=("orientation", "rotation"))
    a.api("rigid body centre_of_mass nan", lambda: fm.Model("x").add_rigid_body(
        "b", 1.0, (1, 1, 1), centre_of_mass=(float("nan"), 0, 0)), tokens=("centre", "mass"))
    a.api("two bodies one name", lambda: (lambda m: (m.add_rigid_body("b", 1.0, (1, 1, 1)),
                                                      m.add_rigid_body("b", 1.0, (1, 1, 1))))(fm.Model("x")),
          tokens=("'b'", "b"))
    a.api("Model gravity nan", lambda: fm.Model("x", gravity=(0, 0, float("nan"))),
          tokens=("gravity",))
    a.api("Model gravity text", lambda: fm.Model("x", gravity="down"), tokens=("gravity",))
    # markers / joints / forces
    a.api("add_marker on None", lambda: fm.Model("x").add_marker(None, "m"), tokens=("body", "marker"))
    a.api("add_marker position nan", lambda: (lambda m, b: m.add_marker(b, "k", position=(float("nan"), 0, 0)))(
        *model()), tokens=("position", "marker"))
    a.api("add_marker node on rigid", lambda: (lambda m, b: m.add_marker(b, "k", node="a"))(*model()),
          tokens=("node",))
    a.api("add_joint unknown type", lambda: (lambda m, b: m.add_joint("ballpoint", m.add_marker(m.ground, "g"),
                                                                       m.add_marker(b, "k")))(*model()),
          tokens=("ballpoint",))
    a.api("add_joint markers None", lambda: (lambda m, b: m.add_joint("revolute", None, None))(*model()),
          tokens=("marker",))
    a.api("add_joint axis zero", lambda: (lambda m, b: m.add_joint("prismatic", m.add_marker(m.ground, "g"),
                                                                    m.add_marker(b, "k"), axis=(0, 0, 0)))(*model()),
          tokens=("axis",))
    a.api("add_joint axis nan", lambda: (lambda m, b: m.add_joint("prismatic", m.add_marker(m.ground, "g"),
                                                                   m.add_marker(b, "k"),
                                                                   axis=(float("nan"), 0, 1)))(*model()),
          tokens=("axis",))
    a.api("add_force(None)", lambda: model()[0].add_force(None), tokens=("add_force",))
    a.api("add_force('spring')", lambda: model()[0].add_force("spring"), tokens=("add_force",))
    a.api("add_element(None)", lambda: model()[0].add_element(None), tokens=("add_element", "element"))

    def spring(**kw):
        m, b = model()
        s = fm.SpringDamper(m.add_marker(m.ground, "g"), m.add_marker(b, "k"), **kw)
        m.add_force(s)
        return fm.simulate(m, 0.01)

    for kw in ({"stiffness": float("nan")}, {"stiffness": -10.0}, {"damping": -1.0}, {"stiffness": "1e3"},
               {"free_length": -1.0}, {"free_length": float("nan")}, {"preload": float("inf")},
               {"damping": float("nan")}):
        a.api(f"SpringDamper {kw}", lambda kw=kw: spring(**kw), tokens=tuple(kw) + ("spring",))
    a.api("PointForce nan", lambda: (lambda m, b: (m.add_force(fm.PointForce(m.add_marker(b, "k"),
                                                                             force=(float("nan"), 0, 0))),
                                                   fm.simulate(m, 0.01)))(*model()), tokens=("force",))
    a.api("PointForce text", lambda: (lambda m, b: fm.PointForce(m.add_marker(b, "k"), force="up"))(*model()),
          tokens=("force",))
    a.api("PointForce callable returning nan", lambda: (lambda m, b: (
        m.add_force(fm.PointForce(m.add_marker(b, "k"), force=lambda t: (float("nan"), 0, 0))),
        fm.simulate(m, 0.01)))(*model()), tokens=("force", "nan", "finite"))
    # simulate options
    for kw in ({"rtol": -1}, {"rtol": float("nan")}, {"atol": 0}, {"rho_inf": 1.5}, {"rho_inf": -0.1},
               {"max_step": 0}, {"max_step": float("nan")}, {"initial_step": -1}, {"min_step": -1},
               {"output_interval": -1}, {"max_steps": 0}, {"max_steps": 2.5}, {"event_tolerance": 0},
               {"engine": "gpu"}, {"rtol": "1e-4"}, {"atol": None}):
        a.api(f"simulate {kw}", lambda kw=kw: fm.simulate(model()[0], 0.01, **kw), tokens=tuple(kw))
    for t_end in (0, -1, float("nan"), float("inf"), "1", None, [1.0]):
        a.api(f"simulate t_end={t_end!r}", lambda t_end=t_end: fm.simulate(model()[0], t_end), tokens=("t_end",))
    a.api("simulate(None)", lambda: fm.simulate(None, 1.0), tokens=("model", "simulate"))
    a.api("simulate('model')", lambda: fm.simulate("model", 1.0), tokens=("model", "simulate"))
    a.api("simulate output onto mesh", lambda: fm.simulate(model()[0], 0.01, output=f["mesh"]),
          tokens=("output", "mesh", "bar.msh"))
    a.api("simulate output .txt", lambda: fm.simulate(model()[0], 0.01, output=str(d / "x.txt")),
          tokens=("output", ".h5", "x.txt"))
    a.api("simulate output missing folder", lambda: fm.simulate(model()[0], 0.01, output=str(d / "no" / "x.results.h5")),
          tokens=("no", "folder"))
    a.api("simulate output onto body", lambda: fm.simulate(model()[0], 0.01, output=f["flex"]),
          tokens=("flex", "output", "body"))
    a.api("simulate a model without bodies", lambda: fm.simulate(fm.Model("empty"), 0.01),
          tokens=("bod", "model", "empty"))
    # flexible bodies
    a.api("add_flexible_body missing file", lambda: fm.Model("x").add_flexible_body("b", str(d / "none.flex.h5")),
          tokens=("none.flex.h5",))
    a.api("add_flexible_body cut file", lambda: fm.Model("x").add_flexible_body("b", str(d / "cut.flex.h5")),
          tokens=("cut.flex.h5",))
    a.api("add_flexible_body text file", lambda: fm.Model("x").add_flexible_body("b", str(d / "text.flex.h5")),
          tokens=("text.flex.h5",))
    a.api("add_flexible_body results file", lambda: fm.Model("x").add_flexible_body("b", f["res"]),
          tokens=("good.results.h5", "flexible", "body"))
    a.api("add_flexible_body None", lambda: fm.Model("x").add_flexible_body("b", None), tokens=("flexbody", "body"))
    a.api("add_flexible_body modes [99]", lambda: fm.Model("x").add_flexible_body("b", f["flex"], modes=[99]),
          tokens=("modes", "99"))
    a.api("add_flexible_body damping_ratio -1", lambda: fm.Model("x").add_flexible_body("b", f["flex"],
                                                                                       damping_ratio=-1.0),
          tokens=("damping",))
    a.api("add_flexible_body damping_ratio nan", lambda: fm.Model("x").add_flexible_body("b", f["flex"],
                                                                                        damping_ratio=float("nan")),
          tokens=("damping",))
    a.api("marker on missing node", lambda: (lambda m: m.add_marker(m.add_flexible_body("b", f["flex"]), "k",
                                                                     node="zz"))(fm.Model("x")), tokens=("zz",))
    # reduction / fem API
    from fem.mesh import load_mesh
    from fem.model import solid_model
    from reduction.io import read_flexbody, write_flexbody
    from reduction.reduce import reduce

    a.api("load_mesh missing", lambda: load_mesh(str(d / "none.msh")), tokens=("none.msh",))
    a.api("load_mesh cut", lambda: load_mesh(str(d / "cut.msh")), tokens=("cut.msh",))
    a.api("load_mesh text", lambda: load_mesh(str(d / "notes.txt")), tokens=("notes.txt",))
    a.api("solid_model material nan", lambda: solid_model(load_mesh(f["mesh"]), "E=nan,nu=0.3,rho=7850"),
          tokens=("E", "material", "modulus"))
    a.api("solid_model material unknown", lambda: solid_model(load_mesh(f["mesh"]), "kryptonite"),
          tokens=("kryptonite",))
    a.api("solid_model material None", lambda: solid_model(load_mesh(f["mesh"]), None), tokens=("material",))
    fe = solid_model(load_mesh(f["mesh"]), "steel")
    a.api("add_reference_node bad selector", lambda: fe.add_reference_node("q", "box:1,2", "rbe2"),
          tokens=("box", "selector"))
    a.api("add_reference_node empty selection", lambda: fe.add_reference_node("q", "box:5,5,5,6,6,6", "rbe2"),
          tokens=("box", "no node", "nodes", "q"))
    a.api("add_reference_node kind rbe7", lambda: fe.add_reference_node("q", "box:-0.001,-1,-1,0.001,1,1", "rbe7"),
          tokens=("rbe7",))
    a.api("reduce unknown interface", lambda: reduce(fe, ["zz"], 2, compare_modes=0), tokens=("zz",))
    a.api("reduce n_modes -1", lambda: reduce(fe, [], -1, compare_modes=0), tokens=("mode",))
    a.api("reduce n_modes 'x'", lambda: reduce(fe, [], "x", compare_modes=0), tokens=("mode",))
    a.api("write_flexbody onto results", lambda: write_flexbody(read_flexbody(f["flex"]), f["res"]),
          tokens=("write_flexbody", "results"))
    a.api("write_flexbody .txt", lambda: write_flexbody(read_flexbody(f["flex"]), str(d / "x.txt")),
          tokens=(".txt", ".h5", "flex"))
    a.api("write_flexbody None", lambda: write_flexbody(None, str(d / "y.flex.h5")), tokens=("body", "flex"))
    a.api("read_flexbody results", lambda: read_flexbody(f["res"]), tokens=("good.results.h5",))
    # results API
    from flexmbs.results.results import load_results

    a.api("load_results cut", lambda: load_results(str(d / "cut.results.h5")), tokens=("cut.results.h5",))
    a.api("load_results empty", lambda: load_results(str(d / "empty.results.h5")), tokens=("empty.results.h5",))
    a.api("load_results body", lambda: load_results(f["flex"]), tokens=("bar.flex.h5",))
    a.api("results['nope']", lambda: load_results(f["res"])["nope"], tokens=("nope",))
    a.api("results.to_csv onto itself", lambda: load_results(f["res"]).to_csv(f["res"]), tokens=("csv", "results"))
    a.api("results.to_csv missing folder", lambda: load_results(f["res"]).to_csv(str(d / "no" / "x.csv")),
          tokens=("no", "folder"))
    a.api("results.resample nan", lambda: load_results(f["res"]).resample(float("nan")), tokens=("resample", "nan",
                                                                                                  "step", "interval"))
    # hydraulics
    for fn, name, tok in (
            (lambda: h.Volume("V", float("nan")), "Volume(nan)", ("volume",)),
            (lambda: h.Volume("V", "1e-3"), "Volume('1e-3')", ("volume",)),
            (lambda: h.Volume("V", 1e-3, initial_pressure=float("inf")), "Volume p0 inf", ("initial_pressure",)),
            (lambda: h.Volume("V", 1e-3, wall_bulk_modulus=-1), "Volume wall -1", ("wall_bulk_modulus",)),
            (lambda: h.Volume("V", 1e-3, min_volume=0), "Volume min_volume 0", ("min_volume",)),
            (lambda: h.PressureSource("P", float("nan")), "PressureSource(nan)", ("pressure",)),
            (lambda: h.PressureSource("P", "high"), "PressureSource('high')", ("pressure",)),
            (lambda: h.Orifice("o", float("nan")), "Orifice(nan)", ("area",)),
            (lambda: h.Orifice("o", -1e-6), "Orifice(-1e-6)", ("area",)),
            (lambda: h.Orifice("o", 1e-6, discharge_coefficient=0), "Orifice Cd 0", ("discharge_coefficient",)),
            (lambda: h.Cylinder("c", 1e-3, 2e-3, 0.5), "Cylinder rod area > piston", ("rod", "area")),
            (lambda: h.Cylinder("c", 1e-3, 5e-4, -0.5), "Cylinder stroke -0.5", ("stroke",)),
            (lambda: h.Cylinder("c", float("nan"), 5e-4, 0.5), "Cylinder area nan", ("piston_area", "area")),
            (lambda: h.Cylinder("c", 1e-3, 5e-4, 0.0), "Cylinder stroke 0", ("stroke",)),
            (lambda: h.DirectionalValve("v", [], 0.0, 1.0), "DirectionalValve area 0", ("max_area",)),
            (lambda: h.DirectionalValve("v", [], float("nan"), 1.0), "DirectionalValve area nan", ("max_area",)),
            (lambda: h.FixedDisplacementPump.from_flow("p", float("nan")), "pump flow nan", ("flow",)),
            (lambda: h.FixedDisplacementPump.from_flow("p", -1e-4), "pump flow negative", ("flow",)),
            (lambda: h.Tank("T", pressure=float("nan")), "Tank pressure nan", ("pressure",)),
            (lambda: h.Circuit("c").add(None), "Circuit.add(None)", ("add", "component")),
            (lambda: (lambda c: (c.add(h.Tank("T")), c.add(h.Tank("T"))))(h.Circuit("c")), "two tanks one name",
             ("'T'", "exists")),
            (lambda: (lambda c: (c.add(h.Tank("T")), c.add(h.Orifice("o", 1e-6), A="T", B="nowhere"),
                                 c.finalize()))(h.Circuit("c")), "orifice to a missing node", ("nowhere",)),
            (lambda: (lambda c: (c.add(h.Tank("T")), c.add(h.Orifice("o", 1e-6), A="T", Z="T")))(h.Circuit("c")),
             "orifice port Z", ("Z", "port")),
            (lambda: (lambda c: (c.add(h.Volume("V", 0.0)), c.add(h.Tank("T")),
                                 c.add(h.Orifice("o", 1e-6), A="V", B="T"), c.finalize()))(h.Circuit("c")),
             "Volume(0) with no chamber", ("'V'", "volume")),
    ):
        a.api(f"hydraulics {name}", fn, tokens=tok)
    # case API
    import cases

    from flexmbs.catalog.parameters import validate_parameters

    sc_case = cases.get_case("slider-crank")
    a.api("case parameters nan (Python)", lambda: validate_parameters(sc_case, {"crank_mass": float("nan")}),
          tokens=("crank_mass",))
    a.api("case parameters text (Python)", lambda: validate_parameters(sc_case, {"crank_mass": "heavy"}),
          tokens=("crank_mass",))


def ctrl_c_cases(a: Audit, f: dict) -> None:
    d = f["d"]
    a.sigint("Ctrl-C run fourbar-hydraulic long", ["run", "fourbar-hydraulic", "--t-end", "200", "-o",
                                                   "fb.results.h5", "--quiet"], 25, expect_file="fb.results.h5")
    a.sigint("Ctrl-C run slider-crank long", ["run", "slider-crank", "--t-end", "100", "-o", "sc2.results.h5"], 20,
             expect_file="sc2.results.h5")
    a.sigint("Ctrl-C run spin-up-beam (Python time function)", ["run", "spin-up-beam", "--t-end", "100", "-o",
                                                                "sp.results.h5", "--quiet"], 25,
             expect_file="sp.results.h5")
    a.sigint("Ctrl-C study --quiet", ["study", "slider-crank", "--vary", "crank_mass=1,2,3", "--t-end", "50", "-o",
                                      "st-c", "--quiet", "--workers", "1"], 30)
    a.sigint("Ctrl-C animate", ["animate", f["sc"], "--out", "anim.gif", "--max-frames", "400"], 12)
    a.sigint("Ctrl-C reduce", ["reduce", f["mesh"], "--interface", "a=box:-0.001,-1,-1,0.001,1,1", "--modes", "60",
                               "--material", "steel", "-o", "big.flex.h5"], 12)
    a.sigint("Ctrl-C mesh fine", ["mesh", "bar", "fine.msh", "--size", "0.004", "--force"], 10)
    a.sigint("Ctrl-C linearize", ["linearize", "excavator"], 15)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="cli, api or ctrl-c")
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    d = Path(tempfile.mkdtemp(prefix="audit43-"))
    audit = Audit(d)
    f = fixtures(d)
    try:
        if args.only in ("", "cli"):
            cli_cases(audit, f)
        if args.only in ("", "api"):
            api_cases(audit, f)
        if args.only in ("", "ctrl-c"):
            ctrl_c_cases(audit, f)
    finally:
        counts = {c: sum(1 for r in audit.rows if r["class"] == c) for c in CLASSES}
        print(f"\n{len(audit.rows)} cases: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
        if args.json:
            Path(args.json).write_text(json.dumps({"counts": counts, "rows": audit.rows}, indent=1))
        shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
