"""The machine model of case machine-creeping (seed 003 ch. 5) on a coarse stand-in structure: the pad element
against the library's bushing, the machine at rest against its weight, and the scenarios' force ratios and
displacements per cycle against the physics they must obey. The runs use the case's default model (the ch. 4
hydraulic stroke drive, the guided moving platen)."""
import numpy as np
import pytest

import flexmbs as fm
from cases.machine_creeping import parameters
from cases.machine_creeping.pads import PadSet

G = 9.81
COARSE = {"mesh_size": 0.45, "fixed_interface_modes": 20}  # 77 coordinates, reduced in about a minute


def _block_on_pads(use_set: bool):
    model = fm.Model("block on pads", gravity=(0.0, 0.0, -G))
    block = model.add_rigid_body("block", 1000.0, (300.0, 400.0, 500.0), position=(0.1, -0.05, 0.52),
                                 velocity=(0.3, -0.2, 0.1), angular_velocity=(0.2, -0.4, 0.3))
    corners = [(x, y, 0.0) for x in (-1.0, 1.0) for y in (-0.6, 0.6)]
    k, c = (4e7, 4e7, 6e8), (8e5, 8e5, 4e6)
    marks = [model.add_marker(block, f"pad{n}", position=np.subtract(xyz, (0.0, 0.0, 0.5)))
             for n, xyz in enumerate(corners)]
    if use_set:
        model.add_force(PadSet(marks, np.add(corners, (0.0, 0.0, 0.0)), k, c, [f"pad{n}" for n in range(4)]))
    else:
        for n, (m, xyz) in enumerate(zip(marks, corners)):
            model.add_force(fm.Bushing(model.add_marker(model.ground, f"floor{n}", position=xyz), m, k, (0, 0, 0), c,
                                       (0, 0, 0)))
    return model


def test_pad_set_loads_equal_the_library_bushings_on_a_moving_block():
    from flexmbs.engine.system import System

    loads = []
    for use_set in (True, False):
        model = _block_on_pads(use_set)
        system = System(model)
        q, v, _ = system.initial_state()
        ctx = system.context(q, v, 0.0)
        total = sum(gen for f in system.forces for _, gen in f.generalized_forces(ctx))
        loads.append(total)
    # the same spring-damper law (global axes, floor point = initial marker position): equal to round-off
    np.testing.assert_allclose(loads[0], loads[1], rtol=1e-12, atol=1e-6)


@pytest.fixture(scope="module")
def coarse(tmp_path_factory):
    from cases.machine_creeping.structure import reduced_structure

    p = parameters(COARSE)
    return p, reduced_structure(p, cache=str(tmp_path_factory.mktemp("machine_cache")))


def _run(p, structure, scenario, t_end, **over):
    from cases.machine_creeping.machine import build_machine

    q = dict(p, scenario=scenario, **over)
    model, handles = build_machine(structure, q, scenario)
    res = fm.simulate(model, t_end, rtol=q["rtol"], atol=1e-6, output_interval=q["output_interval"])
    assert res.success, res.message
    return res, handles


@pytest.mark.slow
def test_machine_at_rest_stands_on_its_pads_with_its_weight(coarse):
    p, structure = coarse
    res, _ = _run(p, structure, "normal-cycle", 0.3, start_time=1.0)  # the drive stays idle
    weight = (structure.invariants.mass + p["moving_platen_mass"] + p["injection_unit_mass"]) * G
    late = res.time > 0.2
    fz, fx = res["force/pads/Fz"][late], res["force/pads/Fx"][late]
    # statics: the pads carry the whole machine (settled placement, 5 % modal damping: within 0.5 %)
    assert np.abs(fz / weight - 1.0).max() < 5e-3
    assert np.abs(fx).max() < 1e-3 * weight  # no lateral load at rest


@pytest.mark.slow
def test_force_ratio_grows_from_normal_cycle_to_emergency_stop_to_impact_and_slip_falls_with_mu(coarse):
    from cases.machine_creeping.simulation import analyse

    p, structure = coarse
    mass = structure.invariants.mass + p["moving_platen_mass"] + p["injection_unit_mass"]
    peaks, tables = {}, {}
    # short windows: the normal cycle's start (the cylinder force impulse of mould-close start, seed 003 L7574)
    # and acceleration, the stop at full speed, the impact at full speed
    for scenario, t_end, over in (("normal-cycle", 1.4, {}), ("emergency-stop", 1.9, {"stop_time": 1.3}),
                                  ("impact", 1.6, {"impact_run_up": 0.45})):
        res, _ = _run(p, structure, scenario, t_end, **over)
        out = analyse(res.time, res["force/pads/Fx"], res["force/pads/Fz"], p["start_time"], mass)
        peaks[scenario], tables[scenario] = out["peak_force_ratio"], out["displacement_per_cycle_mm"]
    assert peaks["normal-cycle"] < peaks["emergency-stop"] < peaks["impact"]
    # the normal cycle never exceeds the pads' μ = 0.8 (seed 003 L7641): no slip; the impact does (L7676)
    assert peaks["normal-cycle"] < 0.8 and tables["normal-cycle"]["0.8"] == 0.0
    assert peaks["impact"] > 0.8 and tables["impact"]["0.8"] > 0.0
    for table in tables.values():  # Coulomb: a larger μ never lets the machine slide farther
        values = [table[f"{mu:.1f}"] for mu in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)]
        assert all(a >= b for a, b in zip(values, values[1:]))


def test_default_model_is_the_hydraulic_drive_with_a_guided_platen():
    p = parameters()
    assert p["stroke_drive"] == "hydraulic" and p["platen_guides"] is True


@pytest.mark.slow
def test_hydraulic_drive_balances_friction_at_constant_speed_and_completes_the_stroke(coarse):
    """The ch. 4 cylinders, valve, circuit and open-loop controller between the moving platen and the structure's
    cylinder mounts (the default drive) with the default guides, a 1.5 m closing stroke (shortened for time)."""
    from cases.platen_stroke.circuit import cylinder_areas

    p, structure = coarse
    assert p["stroke_drive"] == "hydraulic" and p["platen_guides"]
    res, h = _run(p, structure, "normal-cycle", 4.0, stroke=1.5)
    t, v = res.time, res["body/moving_platen/velocity"][:, 0]
    a_bore, a_rod = cylinder_areas(p)
    p_rod, p_bore = res["element/hydraulics/rod.pressure"], res["element/hydraulics/bore.pressure"]
    pressure_force = 2.0 * (p_bore * a_bore - p_rod * a_rod)  # two cylinders, + = pushing the platen open (+x)
    cylinder_force = res["element/hydraulics/cylinder1.force"] + res["element/hydraulics/cylinder2.force"]
    # the cylinders carry no friction of their own: their force is the pressure difference times the areas
    np.testing.assert_allclose(cylinder_force, pressure_force, rtol=0, atol=1e-6 * np.abs(pressure_force).max())
    # constant speed (the plateau of the profile, |a| < 0.05 m/s² over 0.1 s): the platen's x balance is the
    # cylinder force against the Coulomb friction μ_d ΣN of its six sliding contacts (rails and tie-bar seats: the
    # seats also lift the tie bars, so ΣN exceeds the platen's weight) and its four guides (|lateral force|);
    # 5 %: the residual acceleration (≤ 0.05 m/s² × 65 t = 3.3 kN of ≈ 100 kN) and the friction law's viscous band
    accel = np.gradient(v, t)
    window = (res["element/hydraulics/controller.phase"] == 3.0) & (np.abs(v) > 0.5)
    steady = window & (np.abs(np.convolve(accel, np.ones(50) / 50, mode="same")) < 0.05)
    assert steady.sum() > 20
    names = ["rail_l", "rail_r"] + [f"tie_bar_{k}" for k in range(4)]
    normal = sum(res[f"force/{name}/normal_force"] for name in names)
    normal = normal + sum(np.abs(res[f"force/guide_{k}/lateral_force"]) for k in range(4))
    np.testing.assert_allclose(np.mean(pressure_force[steady]), -p["rail_dynamic_friction"] * np.mean(normal[steady]),
                               rtol=0.05)
    # the stroke completes: the mould face meets the stationary platen (located contact event) after the profile's
    # deceleration (slower than half the cruise speed), and the platen then rests against it
    onsets = [e for e in res.events if e.get("kind") == "contact_onset" and str(e.get("name")).startswith("impact")]
    assert onsets, "the mould never closed"
    assert abs(onsets[0]["gap_rate"]) < 0.5 * p["max_velocity"]
    assert res["force/impact/normal_force"][-1] > 0.0
    # guided platen, no yaw: the two cylinders (rod eyes 3 m apart) stay equally long — 1 mm is a yaw of 0.02°
    # (the unguided platen yawed ≈ 1°, 29 mm of eye offset); so neither reaches its end stop before the other
    pos1, pos2 = res["element/hydraulics/cylinder1.position"], res["element/hydraulics/cylinder2.position"]
    assert np.abs(pos1 - pos2).max() < 1e-3
    for k in (1, 2):
        assert np.all(res[f"element/hydraulics/cylinder{k}.stop_force"] == 0.0)


@pytest.mark.slow
def test_compiled_kernels_equal_the_methods_on_the_machine(coarse):
    """Every force element of the machine (pads on structure nodes, rails and tie bars sliding on the flexible
    structure, guides, the mould impact) has a kernel on the compiled step equal to its methods (the reference)."""
    from cases.machine_creeping.machine import build_machine
    from flexmbs.engine.plan import _sorted_forces
    from flexmbs.engine.force_specs import check_force_kernel
    from flexmbs.engine.system import System

    p, structure = coarse
    model, _ = build_machine(structure, p, "normal-cycle")
    system = System(model)
    assert not _sorted_forces(system)[3]
    q0, v0, _ = system.initial_state()
    rng = np.random.default_rng(5)
    loaded = set()
    for _ in range(5):
        q, v = q0.copy(), v0 + 1e-2 * rng.standard_normal(v0.size)
        for body in system.bodies:
            q[body.offset:body.offset + 3] += 1e-4 * rng.standard_normal(3)
            q[body.offset + 7:body.offset + body.n_coordinates] += 1e-6 * rng.standard_normal(body.n_modes)
        for force in system.forces:
            got = check_force_kernel(system, force, q, v, 0.0)
            kernel, method = got["loads"]
            if np.any(method):
                loaded.add(force.name)
            np.testing.assert_allclose(kernel, method, rtol=0, atol=1e-11 * max(np.abs(method).max(), 1.0))
            outputs, reference = got["outputs"]
            for key, value in reference.items():
                assert outputs[key] == pytest.approx(value, rel=1e-10, abs=1e-9), (force.name, key)
    assert {"pads", "rail_l", "rail_r", "guide_0"} <= loaded
