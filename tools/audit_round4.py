"""Issue 43's second fresh audit (round 4): new bad inputs and faults of the same kinds as round 3's 433 cases, none
of them repeated, CLI and Python API, each classified.

Run: ``PYTHONPATH=. python tools/audit_round4.py [--only cli|api|ctrl-c] [--json OUT.json]``. It reuses the
runner of :mod:`tools.audit_round3` (the same fixtures: a bar mesh, its body, a finished results file, a cut file,
a study folder) and splits two of its classes the way the issue counts them:

* ``warned``: an absurd input ran and a warning or note named it (round 3 counted this as ``correct``);
* ``absurd accepted``: an absurd input ran without a word (round 3 counted this as ``silent wrong``);
* ``silent wrong`` stays for a wrong result or file produced without a word (checked by the case itself).
"""
from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import audit_round3 as r3  # noqa: E402

CLASSES = ("clean", "correct", "warned", "cryptic", "absurd accepted", "internal error", "data loss", "silent wrong",
           "hang")


def remap(row: dict) -> dict:
    """Round 3's classes → the issue's: a warned absurd input, an absurd input accepted without a word."""
    if row["class"] == "correct" and (row["detail"].startswith(("warned", "warning", "note")) or
                                      row.get("expect") == "warn"):
        row["class"] = "warned"
    elif row["class"] == "silent wrong" and row["detail"].startswith(("accepted without a word", "no warning")):
        row["class"] = "absurd accepted"
    return row


class Audit(r3.Audit):
    def cli(self, cid, args, expect="refuse", tokens=(), protect=(), kind="cli"):
        n = len(self.rows)
        super().cli(cid, args, expect, tokens, protect, kind)
        for row in self.rows[n:]:
            row["expect"] = expect

    def api(self, cid, fn, expect="refuse", tokens=()):
        n = len(self.rows)
        super().api(cid, fn, expect, tokens)
        for row in self.rows[n:]:
            row["expect"] = expect

    def _record(self, cid, kind, outcome, detail):
        # Python's own TypeError for an unknown keyword names the argument in one line: the language's answer
        if outcome == "internal error" and detail.startswith("TypeError") and "unexpected keyword argument" in detail:
            outcome = "clean"
        super()._record(cid, kind, outcome, detail)

    def check(self, cid, fn, kind="api"):
        """``fn()`` returns (class, detail) itself: cases whose result must be checked, not only their message."""
        try:
            outcome, detail = fn()
        except Exception as exc:  # noqa: BLE001
            outcome, detail = "internal error", f"{type(exc).__name__}: {exc}"
        self._record(cid, kind, outcome, detail)


# ------------------------------------------------------------------------------------------------------ CLI
def cli_cases(a: Audit, f: dict) -> None:  # noqa: C901  (a list of cases)
    d = f["d"]
    mesh, flex, res, sc = f["mesh"], f["flex"], f["res"], f["sc"]
    A = ["--interface", "a=box:-0.001,-1,-1,0.001,1,1", "--interface", "b=box:0.999,-1,-1,1.001,1,1"]
    base = [mesh, *A, "--modes", "2", "--compare", "0", "--material", "steel"]

    # ---- mesh (new values and targets)
    for v in ("-inf", "NaN", "1e400", "0.0", "-0", "1e-7", "2", "0,05", "5cm"):
        a.cli(f"mesh connecting-bar --size {v}", ["mesh", "connecting-bar", str(d / "c1.msh"), "--size", v],
              tokens=("--size", "size"))
    for v in ("inf", "-0.5", "0.001", "1e300", "1e6", "two"):
        a.cli(f"mesh connecting-bar --length {v}", ["mesh", "connecting-bar", str(d / "c2.msh"), "--size", "0.05",
                                                    "--length", v], tokens=("--length", "length", "--size"))
    a.cli("mesh connecting-bar --hex", ["mesh", "connecting-bar", str(d / "c3.msh"), "--size", "0.05", "--hex"],
          tokens=("--hex", "hex"))
    a.cli("mesh nafems-fv32 --size", ["mesh", "nafems-fv32", str(d / "fv.msh"), "--size", "0.1"],
          tokens=("--size", "nafems"))
    a.cli("mesh nafems-fv32 --order 1", ["mesh", "nafems-fv32", str(d / "fv.msh"), "--order", "1"],
          tokens=("--order", "nafems"))
    a.cli("mesh --order 0", ["mesh", "bar", str(d / "m5.msh"), "--size", "0.05", "--order", "0"],
          tokens=("--order", "order"))
    a.cli("mesh -> .h5", ["mesh", "bar", str(d / "m.h5"), "--size", "0.05"], tokens=(".h5", "suffix", "OUT"))
    a.cli("mesh -> .obj", ["mesh", "bar", str(d / "m.obj"), "--size", "0.05"], tokens=(".obj", "suffix", "OUT"))
    a.cli("mesh -> results file", ["mesh", "bar", res.replace(".results.h5", ".msh.h5"), "--size", "0.05"],
          tokens=(".h5", "suffix"))
    a.cli("mesh onto the results file", ["mesh", "bar", res, "--size", "0.05"], tokens=("results", ".h5", "suffix"),
          protect=[res])
    a.cli("mesh onto notes (txt)", ["mesh", "bar", str(d / "notes.txt"), "--size", "0.05"],
          tokens=("notes.txt", "suffix", ".txt"), protect=[d / "notes.txt"])
    a.cli("mesh into the study", ["mesh", "bar", str(Path(f["study"]) / "m.msh"), "--size", "0.05"],
          tokens=("study",), protect=[f["study"]])
    a.cli("mesh into study runs/", ["mesh", "bar", str(Path(f["study"]) / "runs" / "m.msh"), "--size", "0.05"],
          tokens=("study",), protect=[f["study"]])
    a.cli("mesh over a cut mesh (same kind)", ["mesh", "bar", str(d / "cut.msh"), "--size", "0.05"], expect="ok")
    a.cli("mesh bar vtk", ["mesh", "bar", str(d / "ok.vtk"), "--size", "0.05"], expect="ok")
    a.cli("mesh unknown shape 'Bar'", ["mesh", "Bar", str(d / "m6.msh"), "--size", "0.05"], tokens=("Bar", "shape"))
    a.cli("mesh no OUT", ["mesh", "bar"], tokens=("OUT",))
    a.cli("mesh --size twice", ["mesh", "bar", str(d / "m7.msh"), "--size", "0.05", "--size", "0.04"],
          expect="ok")

    # ---- modal
    for mat in ("E=70e9,nu=0.33,rho=2700", "E=1e14,nu=0.3,rho=7850", "E=210e9,nu=0.5,rho=7850", "nu=0.3,rho=7850",
                "E=-210e9,nu=0.3,rho=7850", "E=210e9,nu=0.3,rho=1e6", "E=210e9,nu=0.3,rho=inf", "STEEL",
                "E=210e9,nu=0.3,rho=7850,", "E=210 GPa,nu=0.3,rho=7850", "E==210e9", "rho=7850",
                "E=210e9,nu=0.3,rho=7850,E=70e9", "E=210e3,nu=0.3,rho=7.85e-9"):
        expect = "ok" if mat in ("E=70e9,nu=0.33,rho=2700", "STEEL") else "refuse"
        a.cli(f"modal --material {mat!r}", ["modal", mesh, "--material", mat, "--modes", "2"], expect=expect,
              tokens=("material", "E", "nu", "rho", "density", "modulus", "poisson", "twice", mat))
    for v in ("1.5", "inf", "-0", "1e3", "two"):
        a.cli(f"modal --modes {v}", ["modal", mesh, "--material", "steel", "--modes", v], tokens=("--modes", "modes"))
    for sel in ("box:", "box:1,2,3,4,5", "box:1,1,1,0,0,0", "group:", "nodes:x", "nodes:1,2,-3", "box:nan,0,0,1,1,1",
                "box:-1,-1,-1,2,2,2:dofs=", "box:-1,-1,-1,2,2,2:dofs=0", "group:end_x0:dofs=1234567"):
        a.cli(f"modal --fix {sel}", ["modal", mesh, "--material", "steel", "--modes", "2", "--fix", sel],
              tokens=("--fix", "fix", "selector", "dofs", "box", "group", "nodes", sel.split(":")[0]))
    a.cli("modal of a folder", ["modal", str(d / "folder.h5"), "--material", "steel"], tokens=("folder",))
    a.cli("modal of a picture", ["modal", str(d / "picture.png"), "--material", "steel"], tokens=("picture.png",))
    a.cli("modal of the body", ["modal", flex, "--material", "steel"], tokens=("bar.flex.h5", "mesh"))
    a.cli("modal no --material", ["modal", mesh], tokens=("--material", "material"))

    # ---- reduce
    out = str(d / "r4.flex.h5")
    for v in ("3.0", "-3", "inf", "1e4", " "):
        a.cli(f"reduce --modes {v!r}", ["reduce", *base[:-6], "--modes", v, "--compare", "0", "--material", "steel",
                                        "-o", out], tokens=("--modes", "modes", "mode"))
    for v in ("-0", "1e-300", "abc5", "1e5", "0.5"):
        a.cli(f"reduce --max-frequency {v}", ["reduce", *base, "--max-frequency", v, "-o", out],
              tokens=("--max-frequency", "cut-off", "frequency"), expect="ok" if v in ("1e5", "0.5") else "refuse")
    for v in ("0.999", "1.0001", "inf", "0.1,0.2,0.3", "a:b", "0:0.02", "-0.01:0.02,100", "0.02,-5"):
        a.cli(f"reduce --damping {v}", ["reduce", *base, "--damping", v, "-o", out], tokens=("--damping", "damping"),
              expect="ok" if v in ("0.999", "0:0.02") else "refuse")
    for v in ("nan", "2.5"):
        a.cli(f"reduce --compare {v}", ["reduce", mesh, *A, "--modes", "2", "--compare", v, "--material", "steel",
                                        "-o", out], tokens=("--compare", "compare"))
    for itf in ("a=box:-0.001,-1,-1,0.001,1,1:rbe3:rbe2", "a=box:-0.001,-1,-1,0.001,1,1@1,2", "A=", "a=nodes:",
                "a=nodes:999999", "a=box:-0.001,-1,-1,0.001,1,1:dofs=", "a=box:-0.001,-1,-1,0.001,1,1@inf,0,0",
                "=", "a=group:", "a=box:-0.001,-1,-1,0.001,1,1:dofs=000"):
        a.cli(f"reduce --interface {itf!r}", ["reduce", mesh, "--interface", itf, "--modes", "2", "--compare", "0",
                                              "--material", "steel", "-o", out],
              tokens=("--interface", "interface", "selector", "dofs", "spider", itf.split("=")[0] or "name"))
    a.cli("reduce overlapping interfaces", ["reduce", mesh, "--interface", "a=box:-0.001,-1,-1,0.001,1,1",
                                            "--interface", "b=box:-0.001,-1,-1,0.001,1,1", "--modes", "2",
                                            "--compare", "0", "--material", "steel", "-o", out],
          tokens=("'a'", "'b'", "overlap", "interface", "both"))
    a.cli("reduce -o notes.txt", ["reduce", *base, "-o", str(d / "notes.txt")], tokens=(".txt", "-o", "suffix"),
          protect=[d / "notes.txt"])
    a.cli("reduce -o picture.png", ["reduce", *base, "-o", str(d / "picture.png")], tokens=(".png", "-o", "suffix"),
          protect=[d / "picture.png"])
    a.cli("reduce -o the sc results", ["reduce", *base, "-o", sc], tokens=("results", "-o"), protect=[sc])
    a.cli("reduce -o into study runs", ["reduce", *base, "-o", str(Path(f["study"]) / "runs" / "b.flex.h5")],
          tokens=("study",), protect=[f["study"]])
    a.cli("reduce -o a folder", ["reduce", *base, "-o", str(d / "folder.h5")], tokens=("folder", "-o"))
    a.cli("reduce -o missing folder", ["reduce", *base, "-o", str(d / "nofolder" / "x.flex.h5")],
          tokens=("nofolder", "folder"))
    a.cli("reduce --report onto the body", ["reduce", *base, "-o", out, "--report", flex],
          tokens=("--report", "flex", "body"), protect=[flex])
    a.cli("reduce --report onto notes.txt (text, same kind?)", ["reduce", *base, "-o", str(d / "r5.flex.h5"),
                                                                "--report", str(d / "notes.txt")],
          tokens=("--report", "notes.txt"), protect=[d / "notes.txt"])
    a.cli("reduce --report missing folder", ["reduce", *base, "-o", out, "--report", str(d / "nof" / "r.md")],
          tokens=("--report", "nof", "folder"))
    a.cli("reduce -o the mesh via ..", ["reduce", *base, "-o", str(d / "folder.h5" / ".." / "bar.msh")],
          tokens=("mesh", "-o", "bar.msh"), protect=[mesh])
    a.cli("reduce of a results file", ["reduce", res, *A, "--modes", "2", "-o", out], tokens=("good.results.h5",
                                                                                           "mesh"))
    a.cli("reduce of a picture", ["reduce", str(d / "picture.png"), *A, "--modes", "2", "-o", out],
          tokens=("picture.png",))
    a.cli("reduce --geometric-stiffness no interface load", ["reduce", *base, "--geometric-stiffness", "-o",
                                                             str(d / "g.flex.h5")], expect="ok")
    a.cli("reduce valid (reference)", ["reduce", *base, "-o", str(d / "valid.flex.h5")], expect="ok")

    # ---- run: slider-crank new values
    ro = str(d / "run4.results.h5")
    for key, val in (("link_width", "0"), ("link_height", "nan"), ("crank_length", "0"), ("crank_length", "-0.1"),
                     ("crank_length", "0.5"), ("crank_speed", "nan"), ("drive_torque", "inf"),
                     ("link_normal_modes", "2.5"), ("link_elements", "3"), ("link_elements", "-2"), ("atol", "0"),
                     ("rtol", "nan"), ("t_end", "0"), ("t_end", "inf"), ("initial_crank_angle", "1e9"),
                     ("link_density", "1e6"), ("link_youngs_modulus", "-2.1e11"), ("link_poisson_ratio", "nan"),
                     ("link_damping_ratio", "1"), ("slider_mass", "-0.5"), ("crank_mass", "inf"),
                     ("drive", ""), ("drive", "SPEED"), ("link_width", "1e3"), ("link_length", "0x10"),
                     ("link_length", "1e-12"), ("crank_speed", "1e5"), ("drive_torque", "nan")):
        a.cli(f"run slider-crank --set {key}={val}", ["run", "slider-crank", "--set", f"{key}={val}", "--t-end",
                                                      "0.005", "--quiet", "-o", ro], tokens=(key, "--set"))
    for key, val in (("crank_mass", "1000"), ("link_length", "500"), ("initial_crank_angle", "180"),
                     ("link_youngs_modulus", "210"), ("slider_mass", "500")):
        a.cli(f"run slider-crank --set {key}={val} (unit slip)", ["run", "slider-crank", "--set", f"{key}={val}",
                                                                   "--t-end", "0.005", "--quiet", "-o", ro],
              tokens=(key,))  # a warning (warned) or a refusal naming the parameter (clean)
    a.cli("run --set =1", ["run", "slider-crank", "--set", "=1", "--t-end", "0.005", "--quiet"], tokens=("--set",))
    a.cli("run --set k==1", ["run", "slider-crank", "--set", "crank_mass==1", "--t-end", "0.005", "--quiet"],
          tokens=("crank_mass", "--set"))
    a.cli("run --set twice same value", ["run", "slider-crank", "--set", "crank_mass=2", "--set", "crank_mass=2",
                                         "--t-end", "0.005", "--quiet"], expect="ok")
    a.cli("run --set k=1 --set K=2", ["run", "slider-crank", "--set", "crank_mass=1", "--set", "Crank_mass=2",
                                      "--t-end", "0.005", "--quiet"], tokens=("Crank_mass",))
    for v in ("-0", "1e-12", "1e12", "1 s", "0x1"):
        a.cli(f"run --t-end {v}", ["run", "slider-crank", "--t-end", v, "--quiet", "-o", ro],
              tokens=("--t-end", "t_end"))
    a.cli("run unknown case 'Slider-Crank'", ["run", "Slider-Crank", "--t-end", "0.01"], tokens=("Slider-Crank",))
    a.cli("run no case", ["run"], tokens=("CASE", "case"))
    a.cli("run -o cut.results.h5 (damaged earlier: kept)", ["run", "slider-crank", "--t-end", "0.005", "--quiet",
                                                            "-o", str(d / "cut2.results.h5")],
          tokens=("-o", "damaged"), protect=[d / "cut2.results.h5"])
    a.cli("run -o notes.txt", ["run", "slider-crank", "--t-end", "0.005", "--quiet", "-o", str(d / "notes.txt")],
          tokens=("-o", ".h5", "notes.txt"), protect=[d / "notes.txt"])
    a.cli("run -o the study manifest", ["run", "slider-crank", "--t-end", "0.005", "--quiet", "-o",
                                        str(Path(f["study"]) / "study.json")], tokens=("-o", ".h5", "study"),
          protect=[f["study"]])
    a.cli("run -o study/x.results.h5", ["run", "slider-crank", "--t-end", "0.005", "--quiet", "-o",
                                        str(Path(f["study"]) / "x.results.h5")], tokens=("study",),
          protect=[f["study"]])
    a.cli("run -o the cut body (.flex.h5)", ["run", "slider-crank", "--t-end", "0.005", "--quiet", "-o",
                                             str(d / "text.flex.h5")], tokens=("-o", "text.flex.h5", "flex"),
          protect=[d / "text.flex.h5"])
    a.cli("run -o onto sc via symlink", ["run", "slider-crank", "--t-end", "0.005", "--quiet", "-o",
                                         str(f["link_to_flex"])], tokens=("-o", "flex", "body"), protect=[flex])
    # other cases: text, NaN and out-of-range values of parameters the audit of round 3 did not touch
    others = (("fourbar-hydraulic", "coulomb_force", "nan"), ("fourbar-hydraulic", "L3", "-1"),
              ("fourbar-hydraulic", "bore_diameter", "0"), ("fourbar-hydraulic", "rod_diameter", "1"),
              ("fourbar-hydraulic", "oil_density", "abc"), ("fourbar-hydraulic", "phi2_deg", "inf"),
              ("fourbar-hydraulic", "mass_per_length", "-5"), ("fourbar-hydraulic", "stribeck_velocity", "0"),
              ("clamp-locking", "piston_mass", "nan"), ("clamp-locking", "bar_length", "-1"),
              ("clamp-locking", "valve_delay", "inf"), ("clamp-locking", "rotation_deg", "abc"),
              ("clamp-locking", "flexible", "maybe"), ("clamp-locking", "valve_type", "magic"),
              ("clamp-locking", "piston_inner_radius", "1"), ("clamp-locking", "tie_bar_spacing_x", "0"),
              ("excavator", "stick", "nan"), ("excavator", "bucket", "-1"), ("excavator", "machine", "0"),
              ("excavator", "max_step", "-1"), ("excavator", "light_mass_fraction", "2"),
              ("excavator", "t_end_digging", "abc"), ("excavator", "rtol", "5"),
              ("spin-up-beam", "t_spin", "-15"), ("spin-up-beam", "length", "0"), ("spin-up-beam", "n_elements", "1.5"),
              ("spin-up-beam", "axial_stiffness", "nan"), ("spin-up-beam", "fixed_interface_modes", "-1"),
              ("spin-up-beam", "mass_per_length", "inf"),
              ("classic-mechanisms", "initial_angle", "nan"), ("classic-mechanisms", "rtol", "-1"),
              ("classic-mechanisms", "mechanism", ""),
              ("compactor", "chassis_mass", "nan"), ("compactor", "drum_radius", "abc"),
              ("compactor", "surface", "lava"), ("compactor", "support", "air"), ("compactor", "noise", "perhaps"),
              ("compactor", "wheelbase", "inf"),
              ("machine-creeping", "stroke_drive", "steam"), ("machine-creeping", "platen_guides", "2"),
              ("machine-creeping", "base_density", "nan"), ("machine-creeping", "rtol", "inf"),
              ("platen-stroke", "platen_mass", "nan"), ("platen-stroke", "study", "banana"),
              ("platen-stroke", "linear_model", "yes please"), ("platen-stroke", "start_time", "inf"),
              ("nafems-free-vibration", "refinement", "2.5"), ("nafems-free-vibration", "refinement", "-1"),
              ("nafems-free-vibration", "benchmark", "FV32x"))
    for case, key, val in others:
        a.cli(f"run {case} --set {key}={val}", ["run", case, "--set", f"{key}={val}", "--t-end", "0.001", "--quiet"],
              tokens=(key,))
    for case in ("fourbar-hydraulic", "clamp-locking", "compactor", "classic-mechanisms", "spin-up-beam"):
        a.cli(f"run {case} --set unknown", ["run", case, "--set", "no_such_key=1", "--t-end", "0.001", "--quiet"],
              tokens=("no_such_key",))

    # ---- info / plot / stress / fatigue / animate / modes / report
    for name in ("picture.png", "bar.msh", "study-x", "folder.h5"):
        target = str(Path(f["study"])) if name == "study-x" else str(d / name)
        a.cli(f"info {name}", ["info", target], tokens=(name, "folder", "results", "study"))
    a.cli("info of the body (valid)", ["info", flex], expect="ok")
    a.cli("info --json cut", ["info", str(d / "cut.results.h5"), "--json"], tokens=("cut.results.h5",))
    for sig in ("body/crank/position[x]", "body/crank/position[-1]", "body/crank/position[3]", "/", "body//position",
                "BODY/crank/position", "time"):
        a.cli(f"plot signal {sig!r}", ["plot", sc, sig, "--out", str(d / "p5.png")],
              tokens=(sig, "signal", "component", "index"))
    a.cli("plot no signal", ["plot", sc, "--out", str(d / "p6.png")], tokens=("SIGNAL", "signal"))
    a.cli("plot onto the mesh", ["plot", sc, "body/crank/position", "--out", mesh], tokens=("--out", "suffix", ".msh"),
          protect=[mesh])
    a.cli("plot onto picture.png (same kind)", ["plot", sc, "body/crank/position", "--out", str(d / "p7.png")],
          expect="ok")
    a.cli("plot --out in study", ["plot", sc, "body/crank/position", "--out", str(Path(f["study"]) / "p.png")],
          tokens=("study",), protect=[f["study"]])
    for size in ("1x1", "0.5x0.5", "99999x10", "-1x5", "1e3x1e3"):
        a.cli(f"plot --size {size}", ["plot", sc, "body/crank/position", "--out", str(d / "p8.png"), "--size", size],
              tokens=("--size", "size"))
    a.cli("plot of the empty file", ["plot", str(d / "empty.results.h5"), "x", "--out", str(d / "p9.png")],
          tokens=("empty.results.h5",))
    a.cli("plot of a text .h5", ["plot", str(d / "text.results.h5"), "x", "--out", str(d / "p9.png")],
          tokens=("text.results.h5",))
    a.cli("stress --node-index x", ["stress", sc, "--body", "link", "--node-index", "x", "--out", str(d / "s2.png")],
          tokens=("--node-index", "x"))
    a.cli("stress --node-index 1.5", ["stress", sc, "--body", "link", "--node-index", "1.5", "--out",
                                      str(d / "s2.png")], tokens=("--node-index", "1.5"))
    a.cli("stress no node", ["stress", sc, "--body", "link", "--out", str(d / "s2.png")],
          tokens=("--node", "--hotspot", "node"))
    a.cli("stress --bins -3", ["stress", sc, "--body", "link", "--hotspot", "--bins", "-3", "--out",
                               str(d / "s2.png")], tokens=("--bins", "bins"))
    a.cli("stress --out .gif", ["stress", sc, "--body", "link", "--hotspot", "--out", str(d / "s.gif")],
          tokens=("--out", ".gif", "suffix"))
    a.cli("stress onto the body", ["stress", sc, "--body", "link", "--hotspot", "--out", flex],
          tokens=("--out", "suffix", "flex"), protect=[flex])
    a.cli("stress of a mesh", ["stress", mesh, "--body", "link", "--hotspot", "--out", str(d / "s3.png")],
          tokens=("bar.msh", "results"))
    a.cli("fatigue --sn m=3", ["fatigue", sc, "--body", "link", "--sn", "m=3"], tokens=("--sn", "C"))
    a.cli("fatigue --sn m=-3,C=1e12", ["fatigue", sc, "--body", "link", "--sn", "m=-3,C=1e12"], tokens=("--sn", "m"))
    a.cli("fatigue --sn text", ["fatigue", sc, "--body", "link", "--sn", "m=three,C=1e12"], tokens=("--sn", "m"))
    a.cli("fatigue --top -1", ["fatigue", sc, "--body", "link", "--top", "-1"], tokens=("--top", "top"))
    a.cli("fatigue --top x", ["fatigue", sc, "--body", "link", "--top", "x"], tokens=("--top", "top"))
    a.cli("fatigue unknown body", ["fatigue", sc, "--body", "crankshaft"], tokens=("crankshaft",))
    a.cli("fatigue of a cut file", ["fatigue", str(d / "cut.results.h5"), "--body", "link"],
          tokens=("cut.results.h5",))
    for v in ("-0", "1.5", "1e9"):
        a.cli(f"modes --mode {v}", ["modes", flex, "--mode", v, "--out", str(d / "m2.png")], tokens=("mode", v))
    for v in ("0", "-inf", "1e300"):
        a.cli(f"modes --scale {v}", ["modes", flex, "--scale", v, "--out", str(d / "m2.png")],
              tokens=("--scale", "scale"))
    a.cli("modes of the mesh", ["modes", mesh, "--out", str(d / "m3.png")], tokens=("bar.msh", "body"))
    a.cli("modes --out onto results", ["modes", flex, "--out", res], tokens=("--out", "suffix", "results"),
          protect=[res])
    a.cli("modes --out missing folder", ["modes", flex, "--out", str(d / "zz" / "m.png")], tokens=("zz", "folder"))
    a.cli("modes --out into study", ["modes", flex, "--out", str(Path(f["study"]) / "m.png")], tokens=("study",),
          protect=[f["study"]])
    a.cli("modes valid png", ["modes", flex, "--out", str(d / "m4.png")], expect="ok")
    for v in ("-5", "inf", "1e-9"):
        a.cli(f"animate --fps {v}", ["animate", sc, "--out", str(d / "a3.gif"), "--fps", v, "--max-frames", "2"],
              tokens=("--fps", "fps"))
    a.cli("animate --scale 0 (the rigid motion only)", ["animate", sc, "--out", str(d / "a3s.gif"), "--scale", "0",
                                                        "--max-frames", "2"], expect="ok")
    for v in ("-1e12", "inf"):
        a.cli(f"animate --scale {v}", ["animate", sc, "--out", str(d / "a3.gif"), "--scale", v, "--max-frames", "2"],
              tokens=("--scale", "scale"))
    a.cli("animate --max-frames 0", ["animate", sc, "--out", str(d / "a3.gif"), "--max-frames", "0"],
          tokens=("--max-frames", "max-frames"))
    a.cli("animate --max-frames x", ["animate", sc, "--out", str(d / "a3.gif"), "--max-frames", "x"],
          tokens=("--max-frames", "max-frames"))
    a.cli("animate --every -1", ["animate", sc, "--out", str(d / "a4.pvd"), "--every", "-1"],
          tokens=("--every", "every"))
    a.cli("animate --out .avi", ["animate", sc, "--out", str(d / "a.avi")], tokens=(".avi", "--out", "suffix"))
    a.cli("animate --out onto the mesh", ["animate", sc, "--out", mesh], tokens=("--out", "suffix", ".msh"),
          protect=[mesh])
    a.cli("animate --out into study", ["animate", sc, "--out", str(Path(f["study"]) / "a.gif"), "--max-frames", "2"],
          tokens=("study",), protect=[f["study"]])
    a.cli("animate of the body", ["animate", flex, "--out", str(d / "a5.gif")], tokens=("bar.flex.h5", "results"))
    a.cli("animate of an empty file", ["animate", str(d / "empty.results.h5"), "--out", str(d / "a5.gif")],
          tokens=("empty.results.h5",))
    a.cli("animate --size 10x", ["animate", sc, "--out", str(d / "a6.gif"), "--size", "10x"],
          tokens=("--size", "size"))
    a.cli("report -o onto picture", ["report", sc, "-o", str(d / "picture.png")],
          tokens=("-o", "--out", "suffix", "html", "picture.png"), protect=[d / "picture.png"])
    a.cli("report --frames -1", ["report", sc, "-o", str(d / "r4.html"), "--frames", "-1"],
          tokens=("--frames", "frames"))
    a.cli("report --scale nan", ["report", sc, "-o", str(d / "r4.html"), "--scale", "nan"],
          tokens=("--scale", "scale"))
    a.cli("report of a mesh", ["report", mesh, "-o", str(d / "r5.html")], tokens=("bar.msh", "results"))
    a.cli("report -o into study", ["report", sc, "-o", str(Path(f["study"]) / "r.html")], tokens=("study",),
          protect=[f["study"]])

    # ---- linearize
    lo = str(d / "lin4.h5")
    for at in ("STATIC", "static "):
        a.cli(f"linearize --at {at!r} (static, any case)", ["linearize", "fourbar-hydraulic", "--at", at, "-o",
                                                             str(d / "lin4s.h5")], expect="ok")
    for at in ("0", "inf", "1e5", "-0", f"{res}@-1", f"{res}@1e9", f"{res}@nan",
               f"{d / 'empty.results.h5'}@0.1", f"{mesh}@0.1", "@0.1", "1e-300"):
        a.cli(f"linearize --at {at!r}", ["linearize", "fourbar-hydraulic", "--at", at, "-o", lo],
              tokens=("--at", "at", "empty.results.h5", "bar.msh", "time"))
    a.cli("linearize slider-crank --at 100", ["linearize", "slider-crank", "--at", "100", "-o", lo],
          tokens=("--at", "t_end"))
    a.cli("linearize excavator --at 1e4", ["linearize", "excavator", "--at", "1e4", "-o", lo], tokens=("--at",))
    a.cli("linearize -o notes.txt", ["linearize", "fourbar-hydraulic", "-o", str(d / "notes.txt")],
          tokens=(".txt", "-o"), protect=[d / "notes.txt"])
    a.cli("linearize -o the body", ["linearize", "fourbar-hydraulic", "-o", flex], tokens=("-o", "flex", "body"),
          protect=[flex])
    a.cli("linearize -o into study", ["linearize", "fourbar-hydraulic", "-o", str(Path(f["study"]) / "l.h5")],
          tokens=("study",), protect=[f["study"]])
    a.cli("linearize --mode-vtk 0", ["linearize", "fourbar-hydraulic", "--mode-vtk", f"0:{d / 'm0.pvd'}"],
          tokens=("--mode-vtk", "0"))
    a.cli("linearize --mode-vtk no file", ["linearize", "fourbar-hydraulic", "--mode-vtk", "1:"],
          tokens=("--mode-vtk",))
    a.cli("linearize --mode-vtk onto a results file (same kind, as run -o)",
          ["linearize", "fourbar-hydraulic", "--mode-vtk", f"1:{d / 'again.results.h5'}"], expect="ok")
    a.cli("linearize --mode-vtk 1:BODY (writes BODY.results.h5 beside it)", ["linearize", "fourbar-hydraulic",
                                                                             "--mode-vtk", f"1:{flex}"],
          expect="ok", protect=[flex])
    a.cli("linearize --set unknown", ["linearize", "fourbar-hydraulic", "--set", "zz=1"], tokens=("zz",))
    a.cli("linearize --set twice", ["linearize", "fourbar-hydraulic", "--set", "L3=1", "--set", "L3=2"],
          tokens=("L3",))
    a.cli("linearize --coordinate unknown", ["linearize", "fourbar-hydraulic", "--coordinate", "nope"],
          tokens=("nope", "--coordinate", "coordinate"))
    a.cli("linearize case without hook", ["linearize", "nafems-free-vibration"], tokens=("nafems-free-vibration",
                                                                                         "linearization"))

    # ---- study / study-plot
    so = d / "study-r4"
    for vary in ("crank_mass=1,inf", "crank_mass=1,,2", "crank_mass=1;2", "crank_mass=1..3", "=1,2", "crank_mass=0,1",
                 "drive=speed,banana", "link_elements=2,3", "crank_mass=1,2=3"):
        a.cli(f"study --vary {vary!r}", ["study", "slider-crank", "--vary", vary, "--t-end", "0.005", "-o", so,
                                         "--quiet", "--workers", "1"],
              tokens=("--vary", vary.split("=")[0] or "--vary", "crank_mass", "drive", "link_elements"))
    a.cli("study no --vary", ["study", "slider-crank", "-o", so, "--quiet"], tokens=("--vary", "--plan"))
    a.cli("study --vary twice same key", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--vary",
                                          "crank_mass=3,4", "-o", so, "--quiet"], tokens=("crank_mass", "twice"))
    a.cli("study --vary and --set same key", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--set",
                                              "crank_mass=3", "-o", so, "--quiet"], tokens=("crank_mass",))
    for design in ("lhs:-1", "lhs:x", "lhs:1e9", "grid:2", "random"):
        a.cli(f"study --design {design}", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--design", design,
                                           "-o", so, "--quiet"], tokens=("--design", "lhs", "design"))
    for w in ("-1", "x", "1e9"):
        a.cli(f"study --workers {w}", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--workers", w, "-o", so],
              tokens=("--workers", "workers"))
    a.cli("study --t-end -1", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--t-end", "-1", "-o", so],
          tokens=("--t-end", "t_end", "t-end"))
    a.cli("study -o the mesh", ["study", "slider-crank", "--vary", "crank_mass=1,2", "-o", mesh, "--quiet"],
          tokens=("-o", "folder", "bar.msh"), protect=[mesh])
    a.cli("study -o study runs/", ["study", "slider-crank", "--vary", "crank_mass=1,2", "-o",
                                   str(Path(f["study"]) / "runs"), "--quiet"], tokens=("study", "runs", "-o"),
          protect=[f["study"]])
    a.cli("study existing study other --t-end", ["study", "slider-crank", "--vary", "crank_mass=1,2", "-o",
                                                 f["study"], "--quiet", "--t-end", "0.02"],
          tokens=("--t-end", "t_end", "different"), protect=[f["study"]])
    a.cli("study existing study other --set", ["study", "slider-crank", "--vary", "crank_mass=1,2", "--set",
                                               "slider_mass=1", "-o", f["study"], "--quiet", "--t-end", "0.01"],
          tokens=("--set", "different"), protect=[f["study"]])
    a.cli("study existing study other case", ["study", "fourbar-hydraulic", "--vary", "friction_scale=1,0.1", "-o",
                                              f["study"], "--quiet", "--t-end", "0.01"],
          tokens=("slider-crank", "case", "different"), protect=[f["study"]])
    a.cli("study unknown case", ["study", "bulldozer", "--vary", "x=1,2", "-o", so], tokens=("bulldozer",))
    a.cli("study-plot --against missing", ["study-plot", f["study"], "x", "--out", str(d / "s5.png")],
          tokens=("--against", "against"))
    a.cli("study-plot --out .jpg", ["study-plot", f["study"], "x", "--against", "crank_mass", "--out",
                                    str(d / "s.jpg")], tokens=(".jpg", "--out"))
    a.cli("study-plot --out onto results", ["study-plot", f["study"], "x", "--against", "crank_mass", "--out", res],
          tokens=("--out", "suffix", "results"), protect=[res])
    a.cli("study-plot unknown column (no table yet)", ["study-plot", f["study"], "nope_column", "--against", "crank_mass", "--out",
                                        str(d / "s6.png")], tokens=("nope_column", "table"))
    a.cli("study-plot of a mesh", ["study-plot", mesh, "x", "--against", "crank_mass", "--out", str(d / "s7.png")],
          tokens=("bar.msh", "study"))

    # ---- validate / cases / misc
    a.cli("validate -o onto results", ["validate", "--quick", "--case", "slider-crank", "-o", res],
          tokens=("-o", "suffix", "results"), protect=[res])
    a.cli("validate -o into study", ["validate", "--quick", "--case", "slider-crank", "-o",
                                     str(Path(f["study"]) / "v.md")], tokens=("study",), protect=[f["study"]])
    a.cli("validate -o missing folder", ["validate", "--quick", "--case", "slider-crank", "-o",
                                         str(d / "nn" / "v.md")], tokens=("nn", "folder"))
    a.cli("cases --json unknown", ["cases", "bulldozer", "--json"], tokens=("bulldozer",))
    a.cli("info --cache with FLEXMBS_CACHE a file", ["info", "--cache"], expect="ok")
    a.cli("unknown option --outt", ["plot", sc, "x", "--outt", "p.png"], tokens=("--outt",))
    a.cli("typo'd command 'rnu'", ["rnu", "slider-crank"], tokens=("rnu",))


# ------------------------------------------------------------------------------------------------------ API
def api_cases(a: Audit, f: dict) -> None:  # noqa: C901
    import numpy as np

    import flexmbs as fm
    import hydraulics as h

    d = f["d"]

    def model():
        m = fm.Model("m", gravity=(0, 0, -9.81))
        b = m.add_rigid_body("b", 1.0, (1e-3,) * 3)
        return m, b

    for mass in (-0.0, 1e-300, -float("inf"), np.float64("nan"), complex(1, 0), "heavy", {"kg": 1}, np.array([1.0, 2.0])):
        a.api(f"add_rigid_body mass={mass!r}"[:60], lambda mass=mass: fm.Model("x").add_rigid_body("b", mass,
                                                                                                   (1, 1, 1)),
              tokens=("mass",))
    for inertia in ((1, 1, 2.0000001), (1e-20, 1, 1), [[1, 0.5, 0], [0.5, 1, 0], [0, 0, 1]]):
        a.api(f"add_rigid_body inertia={inertia!r} (valid: round-off, thin rod, rotated)"[:70],
              lambda inertia=inertia: fm.Model("x").add_rigid_body("b", 1.0, inertia), expect="ok")
    for inertia in ((0, 0, 0), [[1, 0, 0], [0, -1, 0], [0, 0, 1]], [[1, 2, 0], [2, 1, 0], [0, 0, 1]], (1, 1, float("-inf")),
                    "1,1,1", (1, 1, 1, 1), np.zeros((3, 3))):
        a.api(f"add_rigid_body inertia={inertia!r}"[:60],
              lambda inertia=inertia: fm.Model("x").add_rigid_body("b", 1.0, inertia),
              tokens=("inertia", "inertias"))
    a.api("inertia (1, 1, 2): a thin disc (valid, equality)", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 2)),
          expect="ok")
    a.api("steel block 7850 kg, 1 m cube (valid)", lambda: fm.Model("x").add_rigid_body("b", 7850.0, (1308.0,) * 3),
          expect="ok")
    a.api("grams typed as kg (5000 kg pin, 1e-6 kg m^2)", lambda: fm.Model("x").add_rigid_body("pin", 5000.0,
                                                                                              (1e-6,) * 3))
    a.api("1 kg with 1e6 kg m^2 (100 km body)", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1e6, 1e6, 1e6)))
    a.api("position (1, 2) (two numbers)", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 1),
                                                                                position=(1, 2)), tokens=("position",))
    a.api("position None", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 1), position=None),
          tokens=("position",))
    a.api("velocity text", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 1), velocity="fast"),
          tokens=("velocity",))
    a.api("angular_velocity nan", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 1),
                                                                       angular_velocity=(0, 0, float("nan"))),
          tokens=("angular_velocity", "angular velocity"))
    a.api("orientation a reflection", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 1),
                                                                           orientation=np.diag([1.0, 1.0, -1.0])),
          tokens=("orientation", "rotation"))
    a.api("orientation scaled 2x", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 1),
                                                                        orientation=2 * np.eye(3)),
          tokens=("orientation", "rotation"))
    a.api("orientation text", lambda: fm.Model("x").add_rigid_body("b", 1.0, (1, 1, 1), orientation="up"),
          tokens=("orientation",))
    a.api("body name None", lambda: fm.Model("x").add_rigid_body(None, 1.0, (1, 1, 1)), tokens=("name",))
    a.api("body name ''", lambda: fm.Model("x").add_rigid_body("", 1.0, (1, 1, 1)), tokens=("name",))
    a.api("body name 'ground'", lambda: fm.Model("x").add_rigid_body("ground", 1.0, (1, 1, 1)),
          tokens=("ground",))
    a.api("Model name None", lambda: fm.Model(None), tokens=("name", "model"))
    a.api("Model gravity (0, 0)", lambda: fm.Model("x", gravity=(0, 0)), tokens=("gravity",))
    a.api("Model gravity 9.81 (scalar)", lambda: fm.Model("x", gravity=9.81), tokens=("gravity",))
    a.api("Model gravity -9810 (mm/s^2)", lambda: fm.Model("x", gravity=(0, 0, -9810.0)), tokens=("gravity",))
    a.api("add_marker on a body of another model", lambda: (lambda m1, m2: m2.add_marker(m1[1], "k"))(
        model(), fm.Model("other")), tokens=("model", "body", "marker"))
    a.api("add_marker name twice", lambda: (lambda m, b: (m.add_marker(b, "k"), m.add_marker(b, "k")))(*model()),
          tokens=("'k'", "marker"))
    a.api("add_marker orientation not rotation", lambda: (lambda m, b: m.add_marker(
        b, "k", orientation=np.ones((3, 3))))(*model()), tokens=("orientation", "rotation"))
    a.api("add_marker position text", lambda: (lambda m, b: m.add_marker(b, "k", position="tip"))(*model()),
          tokens=("position",))
    for jt in ("Revolute", "", "hinge", None):
        a.api(f"add_joint type {jt!r}", lambda jt=jt: (lambda m, b: m.add_joint(
            jt, m.add_marker(m.ground, "g"), m.add_marker(b, "k")))(*model()), tokens=(str(jt), "joint", "type"))
    a.api("add_joint a marker twice (same marker)", lambda: (lambda m, b: (lambda k: m.add_joint("revolute", k, k))(
        m.add_marker(b, "k")))(*model()), tokens=("marker", "itself", "same", "'k'"))
    a.api("add_joint axis text", lambda: (lambda m, b: m.add_joint("prismatic", m.add_marker(m.ground, "g"),
                                                                   m.add_marker(b, "k"), axis="x"))(*model()),
          tokens=("axis",))
    a.api("add_joint axis inf", lambda: (lambda m, b: m.add_joint("prismatic", m.add_marker(m.ground, "g"),
                                                                  m.add_marker(b, "k"),
                                                                  axis=(float("inf"), 0, 0)))(*model()),
          tokens=("axis",))
    a.api("add_force(3.0)", lambda: model()[0].add_force(3.0), tokens=("add_force",))
    a.api("add_force(a class, not an instance)", lambda: model()[0].add_force(fm.SpringDamper),
          tokens=("add_force",))
    a.api("add_element('valve')", lambda: model()[0].add_element("valve"), tokens=("add_element", "element"))

    def spring(**kw):
        m, b = model()
        s = fm.SpringDamper(m.add_marker(m.ground, "g"), m.add_marker(b, "k", position=(0, 0, -0.1)), **kw)
        m.add_force(s)
        return fm.simulate(m, 0.01)

    for kw in ({"stiffness": float("inf")}, {"stiffness": None}, {"damping": "1"}, {"damping": float("inf")},
               {"free_length": "0.1"}, {"free_length": float("inf")}, {"preload": float("nan")}, {"preload": "1"},
               {"stiffness": [1.0, 2.0]}, {"damping": -1e-9}):
        a.api(f"SpringDamper {kw}", lambda kw=kw: spring(**kw), tokens=tuple(kw) + ("spring",))
    a.api("SpringDamper markers None", lambda: fm.SpringDamper(None, None, 1.0), tokens=("marker", "spring"))
    a.api("PointForce torque nan", lambda: (lambda m, b: fm.PointForce(m.add_marker(b, "k"),
                                                                       torque=(0, float("nan"), 0)))(*model()),
          tokens=("torque",))
    a.api("PointForce force 2 numbers", lambda: (lambda m, b: fm.PointForce(m.add_marker(b, "k"),
                                                                            force=(1.0, 2.0)))(*model()),
          tokens=("force",))
    a.api("PointForce marker None", lambda: fm.PointForce(None, force=(1, 0, 0)), tokens=("marker", "force"))
    a.api("PointForce function returning inf", lambda: (lambda m, b: (
        m.add_force(fm.PointForce(m.add_marker(b, "k"), force=lambda t: (0, 0, float("inf")))),
        fm.simulate(m, 0.01)))(*model()), tokens=("force", "finite", "inf"))
    a.api("PointForce function returning 2 numbers", lambda: (lambda m, b: (
        m.add_force(fm.PointForce(m.add_marker(b, "k"), force=lambda t: (0, 1))), fm.simulate(m, 0.01)))(*model()),
          tokens=("force",))
    a.api("PointForce torque function nan after 5 ms", lambda: (lambda m, b: (
        m.add_force(fm.PointForce(m.add_marker(b, "k"), torque=lambda t: (0, 0, float("nan") if t > 0.005 else 0))),
        fm.simulate(m, 0.01)))(*model()), tokens=("torque", "finite", "nan"))
    # simulate options: new values
    for kw in ({"rtol": 1.5}, {"rtol": float("inf")}, {"atol": -1e-6}, {"atol": float("nan")}, {"rho_inf": float("nan")},
               {"rho_inf": "0.8"}, {"max_step": -1}, {"max_step": float("inf")}, {"initial_step": 0},
               {"initial_step": float("nan")}, {"min_step": float("nan")}, {"output_interval": float("nan")},
               {"max_steps": -5}, {"max_steps": 1e12}, {"event_tolerance": -1}, {"engine": None}, {"engine": 3},
               {"progress": "yes"}, {"static_start": "no"}, {"tolerances": "tight"}):
        a.api(f"simulate {kw}", lambda kw=kw: fm.simulate(model()[0], 0.01, **kw), tokens=tuple(kw))
    a.api("simulate unknown keyword", lambda: fm.simulate(model()[0], 0.01, rtoll=1e-4), tokens=("rtoll",))
    for t_end in (-0.0, 1e-12, 1e12, complex(1, 0), np.array([1.0, 2.0]), True):
        a.api(f"simulate t_end={t_end!r}"[:60], lambda t_end=t_end: fm.simulate(model()[0], t_end),
              tokens=("t_end",))
    a.api("simulate(model, 0.01, output=a folder)", lambda: fm.simulate(model()[0], 0.01, output=str(d / "folder.h5")),
          tokens=("folder",))
    a.api("simulate output onto notes.txt", lambda: fm.simulate(model()[0], 0.01, output=str(d / "notes.txt")),
          tokens=("notes.txt", ".h5"))
    a.api("simulate output into the study", lambda: fm.simulate(model()[0], 0.01,
                                                                output=str(Path(f["study"]) / "s.results.h5")),
          tokens=("study",))
    a.api("simulate output onto sc (same kind, valid)", lambda: fm.simulate(model()[0], 0.01,
                                                                            output=str(d / "again2.results.h5")),
          expect="ok")
    a.api("simulate output=3", lambda: fm.simulate(model()[0], 0.01, output=3), tokens=("output",))
    # flexible bodies: new
    a.api("add_flexible_body mesh file", lambda: fm.Model("x").add_flexible_body("b", f["mesh"]),
          tokens=("bar.msh", "flex", "body"))
    a.api("add_flexible_body empty file", lambda: fm.Model("x").add_flexible_body("b", str(d / "empty.results.h5")),
          tokens=("empty.results.h5",))
    a.api("add_flexible_body folder", lambda: fm.Model("x").add_flexible_body("b", str(d / "folder.h5")),
          tokens=("folder",))
    a.api("add_flexible_body modes [-1]", lambda: fm.Model("x").add_flexible_body("b", f["flex"], modes=[-1]),
          tokens=("modes", "-1"))
    a.api("add_flexible_body modes 'all'", lambda: fm.Model("x").add_flexible_body("b", f["flex"], modes="all"),
          tokens=("modes",))
    a.api("add_flexible_body modes [0, 0]", lambda: fm.Model("x").add_flexible_body("b", f["flex"], modes=[0, 0]),
          tokens=("modes", "twice", "0"))
    a.api("add_flexible_body damping_ratio 1", lambda: fm.Model("x").add_flexible_body("b", f["flex"],
                                                                                      damping_ratio=1.0),
          tokens=("damping",))
    a.api("add_flexible_body damping_ratio text", lambda: fm.Model("x").add_flexible_body("b", f["flex"],
                                                                                         damping_ratio="low"),
          tokens=("damping",))
    a.api("add_flexible_body position inf", lambda: fm.Model("x").add_flexible_body("b", f["flex"],
                                                                                   position=(float("inf"), 0, 0)),
          tokens=("position",))
    a.api("marker node on flexible body index -1", lambda: (lambda m: m.add_marker(
        m.add_flexible_body("b", f["flex"]), "k", node=-1))(fm.Model("x")), tokens=("-1", "node"))
    # reduction / fem
    from fem.mesh import load_mesh
    from fem.model import solid_model
    from reduction.io import read_flexbody, write_flexbody
    from reduction.reduce import reduce

    a.api("load_mesh folder", lambda: load_mesh(str(d / "folder.h5")), tokens=("folder",))
    a.api("load_mesh empty", lambda: load_mesh(str(d / "empty.msh")), tokens=("empty.msh",))
    a.api("load_mesh results file", lambda: load_mesh(f["res"]), tokens=("good.results.h5",))
    a.api("load_mesh None", lambda: load_mesh(None), tokens=("mesh", "path"))
    a.api("solid_model material 'E=1'", lambda: solid_model(load_mesh(f["mesh"]), "E=1"),
          tokens=("E", "material", "nu", "rho"))
    a.api("solid_model material nu 0.5", lambda: solid_model(load_mesh(f["mesh"]), "E=210e9,nu=0.5,rho=7850"),
          tokens=("nu", "Poisson", "material"))
    a.api("solid_model material 42", lambda: solid_model(load_mesh(f["mesh"]), 42), tokens=("material",))
    fe = solid_model(load_mesh(f["mesh"]), "steel")
    a.api("add_reference_node name twice", lambda: (fe.add_reference_node("rr", "box:-0.001,-1,-1,0.001,1,1", "rbe3"),
                                                   fe.add_reference_node("rr", "box:0.999,-1,-1,1.001,1,1", "rbe3")),
          tokens=("rr", "twice"))
    a.api("add_reference_node point nan", lambda: fe.add_reference_node("pn", "box:0.999,-1,-1,1.001,1,1", "rbe2",
                                                                        point=(float("nan"), 0, 0)),
          tokens=("point", "pn"))
    a.api("add_reference_node nodes None", lambda: fe.add_reference_node("q2", None, "rbe2"), tokens=("nodes", "q2",
                                                                                                    "selector"))
    a.api("reduce interfaces None", lambda: reduce(fe, None, 2, compare_modes=0), tokens=("interface",))
    a.api("reduce n_modes 2.5", lambda: reduce(fe, [], 2.5, compare_modes=0), tokens=("mode",))
    a.api("reduce n_modes 1e6", lambda: reduce(fe, [], 10 ** 6, compare_modes=0), tokens=("mode",))
    a.api("reduce damping 2", lambda: reduce(fe, [], 2, damping=2.0, compare_modes=0), tokens=("damping",))
    a.api("reduce of None", lambda: reduce(None, [], 2), tokens=("model", "reduce"))
    a.api("write_flexbody .msh", lambda: write_flexbody(read_flexbody(f["flex"]), str(d / "x.msh")),
          tokens=(".msh", ".h5"))
    a.api("write_flexbody onto the mesh", lambda: write_flexbody(read_flexbody(f["flex"]), f["mesh"]),
          tokens=("bar.msh", "mesh", ".h5"))
    a.api("write_flexbody a folder", lambda: write_flexbody(read_flexbody(f["flex"]), str(d / "folder.h5")),
          tokens=("folder",))
    a.api("write_flexbody a string", lambda: write_flexbody("body", str(d / "z.flex.h5")), tokens=("body",))
    a.api("read_flexbody mesh", lambda: read_flexbody(f["mesh"]), tokens=("bar.msh",))
    a.api("read_flexbody missing", lambda: read_flexbody(str(d / "none.flex.h5")), tokens=("none.flex.h5",))
    # results
    from flexmbs.results.results import load_results

    a.api("load_results text file", lambda: load_results(str(d / "text.results.h5")), tokens=("text.results.h5",))
    a.api("load_results missing", lambda: load_results(str(d / "none.results.h5")), tokens=("none.results.h5",))
    a.api("load_results folder", lambda: load_results(str(d / "folder.h5")), tokens=("folder",))
    a.api("load_results mesh", lambda: load_results(f["mesh"]), tokens=("bar.msh",))
    a.api("results[3]", lambda: load_results(f["res"])[3], tokens=("signal", "3"))
    a.api("results.to_csv onto the mesh", lambda: load_results(f["res"]).to_csv(f["mesh"]),
          tokens=("csv", "bar.msh", "mesh"))
    a.api("results.to_csv .xlsx", lambda: load_results(f["res"]).to_csv(str(d / "x.xlsx")), tokens=("csv", ".xlsx"))
    a.api("results.resample -1", lambda: load_results(f["res"]).resample(-1.0), tokens=("resample", "step",
                                                                                      "interval", "-1"))
    a.api("results.resample 0", lambda: load_results(f["res"]).resample(0.0), tokens=("resample", "step",
                                                                                     "interval", "0"))
    # hydraulics: new
    hyd = (
        (lambda: h.Volume("V", -1e-3), "Volume(-1e-3)", ("volume",)),
        (lambda: h.Volume("V", float("inf")), "Volume(inf)", ("volume",)),
        (lambda: h.Volume("V", 1e-3, initial_pressure="1e5"), "Volume p0 text", ("initial_pressure",)),
        (lambda: h.Volume("V", 1e-3, wall_bulk_modulus=float("nan")), "Volume wall nan", ("wall_bulk_modulus",)),
        (lambda: h.Volume(None, 1e-3), "Volume name None", ("name",)),
        (lambda: h.PressureSource("P", float("inf")), "PressureSource(inf)", ("pressure",)),
        (lambda: h.PressureSource("P", None), "PressureSource(None)", ("pressure",)),
        (lambda: h.PressureSource("P", 2e9), "PressureSource(20 kbar)", ("pressure",)),
        (lambda: h.Orifice("o", float("inf")), "Orifice(inf)", ("area",)),
        (lambda: h.Orifice("o", "1e-6"), "Orifice('1e-6')", ("area",)),
        (lambda: h.Orifice("o", 1e-6, discharge_coefficient=float("nan")), "Orifice Cd nan",
         ("discharge_coefficient",)),
        (lambda: h.Orifice("o", 1e-6, discharge_coefficient=5.0), "Orifice Cd 5", ("discharge_coefficient",)),
        (lambda: h.Cylinder("c", -1e-3, 5e-4, 0.5), "Cylinder area -1e-3", ("piston_area", "area")),
        (lambda: h.Cylinder("c", 1e-3, float("nan"), 0.5), "Cylinder rod area nan", ("rod", "area")),
        (lambda: h.Cylinder("c", 1e-3, 5e-4, float("inf")), "Cylinder stroke inf", ("stroke",)),
        (lambda: h.Cylinder("c", "1e-3", 5e-4, 0.5), "Cylinder area text", ("piston_area", "area")),
        (lambda: h.DirectionalValve("v", [], -1e-4, 1.0), "DirectionalValve area -1e-4", ("max_area",)),
        (lambda: h.DirectionalValve("v", [], float("inf"), 1.0), "DirectionalValve area inf", ("max_area",)),
        (lambda: h.DirectionalValve("v", [], "big", 1.0), "DirectionalValve area text", ("max_area",)),
        (lambda: h.FixedDisplacementPump.from_flow("p", float("inf")), "pump flow inf", ("flow",)),
        (lambda: h.FixedDisplacementPump.from_flow("p", "1e-4"), "pump flow text", ("flow",)),
        (lambda: h.Tank("T", pressure=float("inf")), "Tank pressure inf", ("pressure",)),
        (lambda: h.Tank("T", pressure="0"), "Tank pressure text", ("pressure",)),
        (lambda: h.Circuit(None), "Circuit(None)", ("name", "circuit")),
        (lambda: h.Circuit("c").add("tank"), "Circuit.add('tank')", ("add", "component")),
        (lambda: (lambda c: (c.add(h.Tank("T")), c.add(h.Orifice("o", 1e-6), A="T", B="T"), c.finalize()))(
            h.Circuit("c")), "orifice from T to T", ("'o'", "T", "same", "both")),
        (lambda: (lambda c: (c.add(h.Tank("T")), c.add(h.Orifice("o", 1e-6), A="T"), c.finalize()))(h.Circuit("c")),
         "orifice port B missing at finalize", ("B", "port", "'o'")),
        (lambda: (lambda c: (c.add(h.Volume("V", 1e-3)), c.add(h.Volume("V", 1e-3))))(h.Circuit("c")),
         "two volumes one name", ("'V'", "V")),
        (lambda: (lambda c: (c.add(h.Volume("V", 1e-3)), c.add(h.Tank("T0")), c.add(h.Orifice("o", 1e-6), A="V", B="T0"),
                             c.finalize(), c.add(h.Tank("T"))))(h.Circuit("c")),
         "add after finalize", ("finalize", "add", "'T'", "in use", "before simulating")),
    )
    for fn, name, tok in hyd:
        a.api(f"hydraulics {name}", fn, tokens=tok)
    # case API
    import cases

    from flexmbs.catalog.parameters import validate_parameters

    for case, key, val in (("slider-crank", "link_length", float("inf")), ("slider-crank", "link_elements", 2.5),
                           ("fourbar-hydraulic", "L3", "long"), ("excavator", "boom", -1.0),
                           ("clamp-locking", "nope", 1.0), ("spin-up-beam", "omega_s", None)):
        a.api(f"validate_parameters {case} {key}={val!r}", lambda case=case, key=key, val=val: validate_parameters(
            cases.get_case(case), {key: val}), tokens=(key,))
    a.api("cases.get_case('bulldozer')", lambda: cases.get_case("bulldozer"), tokens=("bulldozer",))
    a.api("cases.get_case(None)", lambda: cases.get_case(None), tokens=("case",))


# ------------------------------------------------------------------------------------------------------ Ctrl-C
def ctrl_c_cases(a: Audit, f: dict) -> None:
    a.sigint("Ctrl-C mesh while gmsh meshes", ["mesh", "bar", "fine4.msh", "--size", "0.004", "--force"], 6)
    a.sigint("Ctrl-C mesh connecting-bar while gmsh meshes", ["mesh", "connecting-bar", "fine5.msh", "--size",
                                                              "0.004", "--force"], 6)
    a.sigint("Ctrl-C run clamp-locking", ["run", "clamp-locking", "-o", "cl.results.h5", "--quiet"], 25,
             expect_file="cl.results.h5")
    a.sigint("Ctrl-C run fourbar-hydraulic torque_M0=1e9 (crawl)", ["run", "fourbar-hydraulic", "--set",
                                                                     "torque_M0=1e9", "-o", "fbc.results.h5",
                                                                     "--quiet"], 25, expect_file="fbc.results.h5")
    a.sigint("Ctrl-C run spin-up-beam early (start)", ["run", "spin-up-beam", "--t-end", "100", "-o",
                                                       "sp2.results.h5", "--quiet"], 8)
    a.sigint("Ctrl-C study 2 workers", ["study", "slider-crank", "--vary", "crank_mass=1,2,3,4", "--t-end", "50",
                                        "-o", "st-c4", "--quiet", "--workers", "2"], 30)
    a.sigint("Ctrl-C linearize at a time", ["linearize", "fourbar-hydraulic", "--at", "25"], 15)
    a.sigint("Ctrl-C modes gif", ["modes", f["flex"], "--mode", "1", "--out", "m.gif"], 6)
    a.sigint("Ctrl-C report", ["report", f["sc"], "-o", "r.html"], 6)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="cli, api or ctrl-c")
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    # started in the background by a shell, this process (and every child) would inherit Ctrl-C *ignored*; a user's
    # terminal delivers it: the children get the default action back at their exec, as from a terminal
    signal.signal(signal.SIGINT, signal.default_int_handler)
    d = Path(tempfile.mkdtemp(prefix="audit43r4-"))
    audit = Audit(d)
    f = r3.fixtures(d)
    (d / "cut2.results.h5").write_bytes(Path(d / "cut.results.h5").read_bytes())
    f["link_to_flex"] = d / "link.results.h5"
    f["link_to_flex"].symlink_to(f["flex"])
    try:
        if args.only in ("", "cli"):
            cli_cases(audit, f)
        if args.only in ("", "api"):
            api_cases(audit, f)
        if args.only in ("", "ctrl-c"):
            ctrl_c_cases(audit, f)
    finally:
        rows = [remap(r) for r in audit.rows]
        counts = {c: sum(1 for r in rows if r["class"] == c) for c in CLASSES}
        print(f"\n{len(rows)} cases: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
        if args.json:
            Path(args.json).write_text(json.dumps({"counts": counts, "rows": rows}, indent=1))
        shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
