"""The compiled kernels of the machine's pads and lateral guides (cases/machine_creeping/contact_laws.py) against
the classes' own generalized_forces and outputs (the reference) at random states of free blocks; on the machine
itself in test_machine_creeping_machine.py (slow)."""
import numpy as np
import pytest

import flexmbs as fm
from cases.machine_creeping.guides import LateralGuide
from cases.machine_creeping.pads import PadSet
from flexmbs.engine.force_specs import check_force_kernel
from flexmbs.engine.system import System


def _blocks():
    model = fm.Model("guided block on pads", gravity=(0.0, 0.0, -9.81))
    platen = model.add_rigid_body("platen", 500.0, (40.0, 60.0, 80.0), position=(1.5, 0.002, 0.3))
    base = model.add_rigid_body("base", 900.0, (90.0, 70.0, 50.0), position=(0.1, -0.1, 0.0))
    frame = model.add_marker(base, "frame")
    guides = [model.add_force(LateralGuide(model.add_marker(platen, f"shoe{i}", position=(dx, 0.0, -0.2)), frame,
                                           0.01 * i, 2e6, 5e2, static=0.12, dynamic=0.09, stiction_velocity=0.002,
                                           dynamic_velocity=dv, name=f"guide{i}"))
              for i, (dx, dv) in enumerate([(-0.4, 0.01), (0.4, None)])]
    corners = [(x, y, -0.3) for x in (-1.0, 1.0) for y in (-0.6, 0.6)]
    marks = [model.add_marker(base, f"pad{n}", position=xyz) for n, xyz in enumerate(corners)]
    marks.append(model.add_marker(platen, "pad_platen", position=(0.0, 0.0, -0.3)))
    floor = np.array([[x + 0.1, y - 0.1, -0.3] for x, y, _ in corners] + [[1.5, 0.0, 0.0]])
    pads = model.add_force(PadSet(marks, floor, (4e7, 5e7, 6e8), (8e5, 7e5, 4e6), [f"p{n}" for n in range(5)]))
    return model, guides + [pads]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pad_and_guide_kernels_equal_their_methods_at_random_states(seed):
    model, forces = _blocks()
    system = System(model)
    q0, v0, _ = system.initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(10):
        q = q0 + np.concatenate([rng.normal(0, 0.01, 3), rng.normal(0, 0.1, 4)] * 2)
        v = v0 + np.concatenate([rng.normal(0, 0.3, 3), rng.normal(0, 0.3, 4)] * 2)
        for force in forces:
            got = check_force_kernel(system, force, q, v, 0.1)
            kernel, method = got["loads"]
            assert np.any(method), force.name
            # the same formulas in another order of operations: rounding only (1e-12 of the largest load)
            np.testing.assert_allclose(kernel, method, rtol=0, atol=1e-12 * np.abs(method).max())
            outputs, reference = got["outputs"]
            assert list(outputs) == list(reference)
            for key, value in reference.items():
                assert outputs[key] == pytest.approx(value, rel=1e-12, abs=1e-9), (force.name, key)


def test_the_guided_blocks_take_the_compiled_step_without_callbacks():
    from flexmbs.engine.plan import _sorted_forces

    model, _ = _blocks()
    assert not _sorted_forces(System(model))[3]
    res = fm.simulate(model, 0.02)
    assert res.statistics["engine"] == "compiled"


def test_pad_and_guide_laws_against_their_closed_forms():
    """The laws written once (contact_laws.pad_law, guide_law) at random states: ``F = -K (x - x0) - C ẋ`` per
    pad; the guide's normal force ``-(k e + c ė)`` and Coulomb friction ``μ(|v_t|) |F_n|`` against the slip, with
    ``μ`` of seed 003 Fig. 4-3 written out here (0 at rest, ``μ_s (3s/2 - s³/2)`` to ``v_s``, the cubic to ``μ_d``
    at ``v_d``)."""
    from cases.machine_creeping.contact_laws import guide_law, pad_law

    rng = np.random.default_rng(4)
    X, V = rng.normal(size=(9, 3)), rng.normal(size=(9, 3))
    markers = np.array([7, 2, 5], dtype=np.int64)
    floor, k, c = rng.normal(size=(3, 3)), rng.uniform(1e6, 1e8, 3), rng.uniform(1e3, 1e5, 3)
    expected = -(X[markers] - floor) * k - V[markers] * c
    np.testing.assert_allclose(pad_law(X, V, markers, floor, k, c), expected, rtol=1e-14, atol=0)

    mu_s, mu_d, v_s, v_d = 0.12, 0.09, 0.002, 0.01

    def mu(speed):
        if speed <= v_s:
            s = speed / v_s
            return mu_s * (1.5 * s - 0.5 * s**3)
        u = min((speed - v_s) / (v_d - v_s), 1.0)
        return mu_s + (mu_d - mu_s) * (3 * u**2 - 2 * u**3)

    fp = np.array([0.01, 2e6, 5e2, mu_s, mu_d, v_s, v_d])
    for _ in range(50):
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        arm, velocity = rng.normal(0.0, 0.05, 3), rng.normal(0.0, 0.01, 3)
        force, f_n, friction, deflection = guide_law(arm, n, velocity, fp)
        e, rate = n @ arm - fp[0], n @ velocity
        slip = velocity - rate * n
        assert deflection == pytest.approx(e, rel=1e-13, abs=1e-16)
        assert f_n == pytest.approx(-(fp[1] * e + fp[2] * rate), rel=1e-12)
        assert friction == pytest.approx(mu(np.linalg.norm(slip)) * abs(f_n), rel=1e-12)
        np.testing.assert_allclose(force, f_n * n - friction * slip / np.linalg.norm(slip), rtol=0,
                                   atol=1e-12 * abs(f_n))
