"""The fair race: flexmbs against Exudyn (C++) on the same flexible slider crank, as a work–precision diagram.

Both codes get the mechanism of ``benchmarks/slider_crank_flex.py``: crank 0.05 m driven at 1200 rpm, aluminium rod
0.30 m × 10 × 10 mm (40 × 4 × 4 hexahedra, the same FE mass and stiffness matrices), piston 0.2 kg on a prismatic
guide; crank pin spherical, piston pin universal; no gravity; 0.5 s. Structural damping ``D = β K`` (β = 1e-5 s,
assumed: 2 % at the rod's 641 Hz mode) in both codes - the same physical damping, as both reduced stiffness matrices
are projections of the same FE ``K`` on the same subspace - so that the start transient (Exudyn starts undeformed,
flexmbs quasi-statically relaxed) has decayed in the steady-state window instead of ringing on undamped.

* flexmbs: Craig–Bampton body from ``reduction.reduce`` (RBE2 spiders at both rod ends, 8 fixed-interface modes →
  14 elastic coordinates), variable-step generalized-α (ρ∞ = 0.4), accuracy set by ``atol`` (m; the frame
  coordinates have absolute tolerances only, ``flexmbs.simulate``), ``rtol`` at its default 1e-4; the row
  ``default`` passes no tolerance at all.
* Exudyn 1.13: ``ObjectFFRFreducedOrder`` from ``FEMinterface.ComputeHurtyCraigBamptonModes`` on the *same* M and K
  with RBE2 interfaces at the same two end faces and 8 eigenmodes (first interface excluded as the reference
  frame → 6 + 8 = 14 modes: the same Craig–Bampton subspace), joints on ``MarkerSuperElementRigid`` markers of the
  end faces, fixed-step generalized-α (spectral radius 0.4, modified Newton), accuracy set by the step ``h``.

Output: both codes record the piston-pin force on the same grid, one sample per ``OUTPUT_INTERVAL`` (flexmbs: the
first step at or after each grid time, ``output_interval``; Exudyn: ``sensorsWritePeriod``), so neither pays for
output at every step (flexmbs computes consistent reactions, an extra linear solve, per sample). The two
references record every step (they are interpolated at the runs' sample times).

Accuracy of a run: RMS over the steady state (0.25 s ≤ t ≤ 0.5 s) of the piston-pin force x component minus the
same code's converged reference run (the reference linearly interpolated at the run's own output times, so the
coarse run is not blurred by interpolation). Time: wall (``perf_counter``) and CPU (``process_time``) of the
time integration only (reduction/HCB and model building excluded for both), all runs in this one process.
On a shared machine the CPU time is the fairer figure; both are printed.

Needs the optional ``bench`` extra (``pip install exudyn``). Usage::

    python benchmarks/race_exudyn.py [--quick] [--png docs/race_exudyn.png] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import slider_crank_flex as bench  # noqa: E402
from _harness import time_at_error  # noqa: E402

STEADY = (0.25, 0.5)  # s, window of the force error (start transients have decayed)
OUTPUT_INTERVAL = 5e-4  # s, common output grid of both codes (500 samples in the steady window)


def _timed(func, *args, **kwargs):
    w0, c0 = time.perf_counter(), time.process_time()
    out = func(*args, **kwargs)
    return out, time.perf_counter() - w0, time.process_time() - c0


# --- flexmbs ------------------------------------------------------------------------------------------------
def flexmbs_run(rod, atol: float | None, beta: float, rtol: float | None = None,
                output_interval: float | None = OUTPUT_INTERVAL) -> dict:
    """One flexmbs run; ``atol``/``rtol`` None: flexmbs.simulate's defaults; ``output_interval`` None: every step."""
    import flexmbs as fm

    model = bench.build(rod)
    link = next(b for b in model.bodies if b.name == "rod")
    link.modal_damping = beta * link.modal_stiffness  # D_ff = β K_ff (diagonal modal stiffness)
    kwargs = {k: v for k, v in (("atol", atol), ("rtol", rtol)) if v is not None}
    res, wall, cpu = _timed(fm.simulate, model, bench.T_END, rho_inf=0.4, output_interval=output_interval,
                             **kwargs)
    if not res.success:
        raise SystemExit(f"flexmbs failed at {kwargs}: {res.message}")
    st = res.statistics
    setting = "default" if not kwargs else ",".join(f"{k}={v:g}" for k, v in kwargs.items())
    return {"code": "flexmbs", "setting": setting, "param": atol,
            "wall_s": wall, "cpu_s": cpu, "steps": int(st["steps"]), "rejected": int(st["rejected_steps"]),
            "newton": int(st["newton_iterations"]), "t": res.time, "force": res["joint/piston_pin/force"][:, 0]}


# --- Exudyn -------------------------------------------------------------------------------------------------
def exudyn_cms(model):
    """Exudyn's Craig–Bampton body of the rod from the same FE matrices (RBE2 end faces, 8 eigenmodes)."""
    from exudyn.FEM import FEMinterface, HCBstaticModeSelection, ObjectFFRFreducedOrderInterface

    perm = model.translation_dofs.reshape(-1)  # Exudyn orders x0 y0 z0 x1 ...
    fem = FEMinterface()
    fem.nodes = {"Position": model.positions.copy()}
    fem.massMatrix = model.full_mass[perm][:, perm].tocsr()
    fem.stiffnessMatrix = model.full_stiffness[perm][:, perm].tocsr()
    x = model.positions[:, 0]
    ends = [np.where(np.abs(x) < 1e-9)[0], np.where(np.abs(x - bench.ROD_LENGTH) < 1e-9)[0]]
    fem.ComputeHurtyCraigBamptonModes(boundaryNodesList=ends, nEigenModes=8, useSparseSolver=True,
                                      computationMode=HCBstaticModeSelection.RBE2)
    return ObjectFFRFreducedOrderInterface(fem), ends


def exudyn_run(cms_ends, h: float, beta: float, write_period: float = OUTPUT_INTERVAL) -> dict:
    import exudyn as exu
    import exudyn.itemInterface as eii
    from exudyn.rigidBodyUtilities import RigidBodyInertia

    cms, (end_a, end_b) = cms_ends
    r, length, speed = bench.CRANK_RADIUS, bench.ROD_LENGTH, bench.SPEED
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(eii.ObjectGround())
    m_ground = mbs.AddMarker(eii.MarkerBodyRigid(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    crank_inertia = RigidBodyInertia(mass=0.5, inertiaTensor=np.diag([1e-5, 0.5 * r * r / 12, 0.5 * r * r / 12]),
                                     com=[r / 2, 0.0, 0.0])
    crank = mbs.CreateRigidBody(inertia=crank_inertia, referencePosition=[0.0, 0.0, 0.0],
                                initialAngularVelocity=[0.0, 0.0, speed], nodeType=exu.NodeType.RotationEulerParameters)
    m_crank_o = mbs.AddMarker(eii.MarkerBodyRigid(bodyNumber=crank, localPosition=[0.0, 0.0, 0.0]))
    m_crank_a = mbs.AddMarker(eii.MarkerBodyPosition(bodyNumber=crank, localPosition=[r, 0.0, 0.0]))

    def drive(mbs_, t, item, pars):  # prescribed crank angle = Ω t (all other bearing axes fixed)
        return [0.0, 0.0, 0.0, 0.0, 0.0, speed * t]

    mbs.AddObject(eii.ObjectJointGeneric(markerNumbers=[m_ground, m_crank_o], constrainedAxes=[1] * 6,
                                         offsetUserFunction=drive))
    # consistent initial velocities of the rod (crank at 0°: pin moves with r Ω along y, piston at rest)
    rod = cms.AddObjectFFRFreducedOrder(mbs, positionRef=[r, 0.0, 0.0], initialVelocity=[0.0, r * speed, 0.0],
                                        initialAngularVelocity=[0.0, 0.0, -r * speed / length],
                                        stiffnessProportionalDamping=beta)["oFFRFreducedOrder"]
    m_rod_a, m_rod_b = (mbs.AddMarker(eii.MarkerSuperElementRigid(
        bodyNumber=rod, meshNodeNumbers=nodes, weightingFactors=np.full(len(nodes), 1.0 / len(nodes))))
        for nodes in (end_a, end_b))
    mbs.AddObject(eii.ObjectJointSpherical(markerNumbers=[m_crank_a, m_rod_a]))
    piston = mbs.CreateRigidBody(inertia=RigidBodyInertia(mass=bench.PISTON_MASS, inertiaTensor=np.diag([1e-6] * 3)),
                                 referencePosition=[r + length, 0.0, 0.0],
                                 nodeType=exu.NodeType.RotationEulerParameters)
    m_piston = mbs.AddMarker(eii.MarkerBodyRigid(bodyNumber=piston, localPosition=[0.0, 0.0, 0.0]))
    m_guide = mbs.AddMarker(eii.MarkerBodyRigid(bodyNumber=ground, localPosition=[r + length, 0.0, 0.0]))
    # universal piston pin: rotations about global z (rod) and y (piston) free, twist about x constrained
    pin = mbs.AddObject(eii.ObjectJointGeneric(markerNumbers=[m_piston, m_rod_b], constrainedAxes=[1, 1, 1, 1, 0, 0]))
    mbs.AddObject(eii.ObjectJointGeneric(markerNumbers=[m_guide, m_piston], constrainedAxes=[0, 1, 1, 1, 1, 1]))
    sensor = mbs.AddSensor(eii.SensorObject(objectNumber=pin, storeInternal=True,
                                            outputVariableType=exu.OutputVariableType.ForceLocal))
    mbs.Assemble()
    sim = exu.SimulationSettings()
    sim.timeIntegration.numberOfSteps = int(round(bench.T_END / h))
    sim.timeIntegration.endTime = bench.T_END
    sim.timeIntegration.generalizedAlpha.spectralRadius = 0.4
    sim.timeIntegration.newton.useModifiedNewton = True  # faster than full Newton here (measured 5.6 vs 9.8 s CPU)
    sim.timeIntegration.verboseMode = 0
    with warnings.catch_warnings():  # the 1.13 names are deprecated aliases but still the documented ones
        warnings.simplefilter("ignore", DeprecationWarning)
        sim.solutionSettings.writeSolutionToFile = False
        sim.solutionSettings.sensorsWritePeriod = write_period
    sim.parallel.numberOfThreads = 1
    _, wall, cpu = _timed(mbs.SolveDynamic, sim)
    data = mbs.GetSensorStoredData(sensor)
    # joint frame = piston frame = global axes; force on the rod (marker 1) has the flexmbs sign (force on piston)
    # reversed: compare magnitudes through each code's own reference only, so the sign does not matter
    return {"code": "exudyn", "setting": f"h={h:g}", "param": h, "wall_s": wall, "cpu_s": cpu,
            "steps": int(sim.timeIntegration.numberOfSteps), "rejected": 0, "newton": None, "t": data[:, 0],
            "force": data[:, 1]}


# --- error and ratios ---------------------------------------------------------------------------------------
def force_error(run: dict, ref: dict) -> float:
    """RMS of the piston-pin force minus the reference (interpolated at the run's times), steady window, N."""
    t, f = run["t"], run["force"]
    mask = (t >= STEADY[0]) & (t <= STEADY[1])
    return float(np.sqrt(np.mean((f[mask] - np.interp(t[mask], ref["t"], ref["force"])) ** 2)))


def plot(runs: list, path: str, targets) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, key in zip(axes, ("wall_s", "cpu_s")):
        for code, mk in (("flexmbs", "o-"), ("exudyn", "s-")):
            pts = sorted((r[key], r["error_N"], r["setting"]) for r in runs if r["code"] == code)
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], mk, label=code)
            for x, y, s in pts:
                ax.annotate(s, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
        for e in targets:
            ax.axhline(e, color="grey", lw=0.5, ls=":")
        ax.set_xlabel(f"{'wall' if key == 'wall_s' else 'CPU'} time of the integration, s")
        ax.grid(True, which="both", lw=0.3)
    axes[0].set_ylabel("steady-state RMS piston-pin force error, N")
    axes[0].legend()
    fig.suptitle("flexible slider crank, 0.5 s at 1200 rpm: work–precision (each code vs its own reference)")
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, coarser levels (a smoke run)")
    parser.add_argument("--png", default=None, help="write the work–precision diagram here")
    parser.add_argument("--json", default=None, help="write all numbers here")
    parser.add_argument("--beta", type=float, default=1e-5, help="stiffness-proportional damping of the rod, s")
    args = parser.parse_args(argv)
    try:
        import exudyn  # noqa: F401 (only its presence is checked here)
    except ImportError:
        raise SystemExit("error: Exudyn is not installed; pip install 'flexmbs[bench]' (or pip install exudyn)")
    from fem.model import solid_model

    if args.quick:
        atols, ref_atol, steps, h_ref = [None, 1e-7], 1e-8, [4e-4, 2e-4], 5e-5
    else:  # None: simulate's defaults (rtol 1e-4, atol 1e-6)
        atols, ref_atol, steps, h_ref = [3e-6, None, 3e-7, 1e-7, 3e-8, 1e-8], 1e-9, [4e-4, 2e-4, 1e-4, 5e-5], 2.5e-5
    rod = bench.reduced_rod()
    cms = exudyn_cms(solid_model(bench.hexahedral_rod(), "aluminium"))
    runs = []
    # the references record every step: they are interpolated at the runs' sample times
    ref_f = flexmbs_run(rod, ref_atol, args.beta, output_interval=None)
    print(f"flexmbs reference atol={ref_atol:g}: {ref_f['steps']} steps, wall {ref_f['wall_s']:.1f} s, "
          f"CPU {ref_f['cpu_s']:.1f} s", flush=True)
    ref_e = exudyn_run(cms, h_ref, args.beta, write_period=h_ref)
    print(f"Exudyn reference h={h_ref:g}: {ref_e['steps']} steps, wall {ref_e['wall_s']:.1f} s, "
          f"CPU {ref_e['cpu_s']:.1f} s", flush=True)
    cross = force_error(ref_e, ref_f)
    print(f"the two references differ by {cross:.3f} N RMS (model/discretization difference, not an error)")
    for atol in atols:
        runs.append(flexmbs_run(rod, atol, args.beta))
        runs[-1]["error_N"] = force_error(runs[-1], ref_f)
    for h in steps:
        runs.append(exudyn_run(cms, h, args.beta))
        runs[-1]["error_N"] = force_error(runs[-1], ref_e)
    print(f"{'code':12s} {'setting':12s} {'steps':>6s} {'rejected':>8s} {'error N':>9s} {'wall s':>7s} {'CPU s':>6s} "
          f"{'CPU ms/step':>11s}")
    for r in runs:
        print(f"{r['code']:12s} {r['setting']:12s} {r['steps']:6d} {r['rejected']:8d} {r['error_N']:9.4f} "
              f"{r['wall_s']:7.2f} {r['cpu_s']:6.2f} {1e3 * r['cpu_s'] / r['steps']:11.3f}")
    targets = (0.02, 0.005, 0.08)
    summary = {"runs": [{k: v for k, v in r.items() if k not in ("t", "force")} for r in runs],
               "reference_difference_N": cross, "ratios": {}}
    for e in targets:
        for key in ("wall_s", "cpu_s"):
            tf = time_at_error([r for r in runs if r["code"] == "flexmbs"], e, key)
            te = time_at_error([r for r in runs if r["code"] == "exudyn"], e, key)
            ratio = tf / te if tf and te else None
            summary["ratios"][f"flexmbs:{key}@{e}N"] = ratio
            print(f"at {e:g} N error: flexmbs {key} {tf if tf is None else round(tf, 2)}, Exudyn "
                  f"{te if te is None else round(te, 2)} → ratio flexmbs/Exudyn "
                  f"{'outside the measured range' if ratio is None else f'{ratio:.2f}'}")
    exu_2e4 = [r for r in runs if r["code"] == "exudyn" and r["param"] == 2e-4]
    default = [r for r in runs if r["code"] == "flexmbs" and r["setting"] == "default"]
    if exu_2e4 and default:
        print(f"flexmbs default error {default[0]['error_N']:.4f} N / Exudyn h=2e-4 error "
              f"{exu_2e4[0]['error_N']:.4f} N = {default[0]['error_N'] / exu_2e4[0]['error_N']:.1f} (acceptance: ≤ 5)")
    if args.png:
        plot(runs, args.png, targets[:2])
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=1)


if __name__ == "__main__":
    main()
