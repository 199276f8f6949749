"""Force elements with compiled kernels (flexmbs.engine.force_kernels, issue 26): the built-in PlaneContact kernel
against the class's own methods (the reference) at random states, and which elements take a kernel. The physics of
the compiled contacts is checked by the contact tests (test_mbs_friction_contact.py, test_mbs_events.py), which now
run on the compiled step."""
import numpy as np
import pytest

import flexmbs as fm
from flexmbs.engine.force_elements import compiled_force
from flexmbs.engine.plan import _sorted_forces
from flexmbs.engine.force_specs import check_force_kernel, force_kernel
from flexmbs.engine.system import System
from flexmbs.model.rotations import rotation_matrix


def _two_blocks(half_length=None, static=0.4, dynamic=0.3, damping=2e3):
    """A point on a free block against the tilted plane of another free block (both off the origin)."""
    model = fm.Model("blocks", gravity=(0.0, 0.0, -9.81))
    a = model.add_rigid_body("a", 2.0, (0.1, 0.2, 0.3), position=(0.3, -0.2, 0.5))
    b = model.add_rigid_body("b", 5.0, (0.4, 0.3, 0.2), position=(0.1, 0.1, 0.0))
    quaternion = np.array([0.9, 0.2, -0.3, 0.1])
    tilt = rotation_matrix(quaternion / np.linalg.norm(quaternion))
    point = model.add_marker(a, "tip", position=(0.05, -0.02, -0.1))
    plane = model.add_marker(b, "face", position=(0.2, -0.3, 0.4), orientation=tilt)
    contact = model.add_force(fm.PlaneContact(point, plane, stiffness=1e7, exponent=1.3, damping=damping,
                                              damping_depth=1e-3, static=static, dynamic=dynamic,
                                              stiction_velocity=0.01, half_length=half_length, name="c"))
    return model, contact


@pytest.mark.parametrize("half_length", [None, 0.05])
def test_plane_contact_kernel_equals_its_methods_at_random_states(half_length):
    model, contact = _two_blocks(half_length)
    system = System(model)
    q0, v0, _ = system.initial_state()
    rng = np.random.default_rng(7)
    touching, trials = 0, 0
    while touching < 10 and trials < 2000:
        trials += 1
        q = q0 + np.concatenate([rng.normal(0, 0.3, 3), rng.normal(0, 0.2, 4), rng.normal(0, 0.3, 3),
                                 rng.normal(0, 0.2, 4)])
        v = v0 + rng.normal(0, 0.5, q0.size)
        got = check_force_kernel(system, contact, q, v, 0.3)
        kernel, method = got["loads"]
        touching += bool(np.any(method))
        # the same formulas in another order of operations: rounding only (1e-12 of the largest load)
        np.testing.assert_allclose(kernel, method, rtol=0, atol=1e-12 * max(np.abs(method).max(), 1.0))
        outputs, reference = got["outputs"]
        for key, value in reference.items():
            assert outputs[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    assert touching == 10  # states that press the point into the plane (with friction), and many that do not


def test_kernel_elements_join_the_compiled_step_and_a_subclass_is_called_back():
    class OwnContact(fm.PlaneContact):  # may change the equations: no kernel unless it defines its own
        pass

    model, contact = _two_blocks()
    system = System(model)
    assert force_kernel(contact, system)[0] is not None and not _sorted_forces(system)[3]
    model2 = fm.Model("sub")
    a = model2.add_rigid_body("a", 1.0, (0.1, 0.1, 0.1))
    sub = model2.add_force(OwnContact(model2.add_marker(a, "p"), model2.add_marker(model2.ground, "g"), 1e6))
    system2 = System(model2)
    assert force_kernel(sub, system2)[0] is None and _sorted_forces(system2)[3] == [sub]
    res = fm.simulate(model2, 0.01)
    assert res.statistics["engine"] == "compiled"  # called back from the compiled step


def _assert_kernel_equals_method(system, force, q, v, t):
    """The kernel's loads and outputs against the element's methods at one state: rounding only (loads within 1e-12
    of the largest, outputs to 1e-12 relative); returns the method's outputs."""
    got = check_force_kernel(system, force, q, v, t)
    kernel, method = got["loads"]
    assert np.any(method), force.name
    np.testing.assert_allclose(kernel, method, rtol=0, atol=1e-12 * np.abs(method).max())
    outputs, reference = got["outputs"]
    assert list(outputs) == list(reference)
    for key, value in reference.items():
        assert outputs[key] == pytest.approx(value, rel=1e-12, abs=1e-12), (force.name, key)
    return reference


def _tilted_pair(name: str):
    """Two free blocks under gravity and a marker on each (the first in tilted axes), for the force elements."""
    model = fm.Model(name, gravity=(0.0, 0.0, -9.81))
    a = model.add_rigid_body("a", 2.0, (0.1, 0.2, 0.3), position=(0.3, -0.2, 0.5))
    b = model.add_rigid_body("b", 5.0, (0.4, 0.3, 0.2), position=(0.1, 0.1, 0.0))
    quaternion = np.array([0.9, 0.2, -0.3, 0.1])
    tilt = rotation_matrix(quaternion / np.linalg.norm(quaternion))
    mi = model.add_marker(a, "ai", position=(0.05, -0.02, -0.1), orientation=tilt)
    mj = model.add_marker(b, "bj", position=(0.2, -0.3, 0.4))
    return model, mi, mj


def _spring_blocks():
    """Two free blocks joined by a bushing and a torsion spring, one pushed by constant point loads."""
    model, mi, mj = _tilted_pair("springs")
    forces = [model.add_force(fm.Bushing(mi, mj, (1e5, 2e5, 3e5), (1e3, 2e3, 3e3), (10.0, 20.0, 30.0),
                                         (1.0, 2.0, 3.0), name="bush")),
              model.add_force(fm.RotationalSpringDamper(mi, mj, 300.0, 4.0, free_angle=0.2, name="torsion")),
              model.add_force(fm.PointForce(mj, force=(1.0, -2.0, 3.0), torque=(0.3, 0.2, -0.1), local=True,
                                            name="local_load")),
              model.add_force(fm.PointForce(mi, force=(5.0, 0.0, -1.0), name="global_load"))]
    return model, forces


def test_marker_force_kernels_equal_their_methods_at_random_states():
    model, forces = _spring_blocks()
    system = System(model)
    q0, v0, _ = system.initial_state()
    rng = np.random.default_rng(11)
    for _ in range(20):
        q = q0 + rng.normal(0, 0.2, q0.size)
        v = v0 + rng.normal(0, 0.5, q0.size)
        for force in forces:
            _assert_kernel_equals_method(system, force, q, v, 0.1)
    assert not _sorted_forces(system)[3]


def test_a_point_force_of_time_is_a_compiled_kind_and_a_subclass_is_called_back():
    class OwnLoad(fm.PointForce):  # may change the equations: called back
        pass

    model = fm.Model("callbacks")
    a = model.add_rigid_body("a", 1.0, (0.1, 0.1, 0.1))
    p = model.add_force(fm.PointForce(model.add_marker(a, "p"), force=lambda t: (t, 0.0, 0.0)))
    own = model.add_force(OwnLoad(model.add_marker(a, "o"), force=lambda t: (t, 0.0, 0.0)))
    system = System(model)
    assert compiled_force(p) and not compiled_force(own)
    assert _sorted_forces(system)[3] == [own]


# a progressive table with a softer piece: force (N) over deflection (m), torque (N m) over twist (rad); the random
# states below reach both sides beyond its ends (linear extrapolation) and every piece
_PULL = fm.Table([-0.08, 0.0, 0.04, 0.1], [-400.0, 0.0, 50.0, 900.0])
_TWIST = fm.Table([-0.3, -0.05, 0.0, 0.1, 0.25], [-60.0, -4.0, 0.0, 10.0, 60.0])


def _table_and_timed_blocks():
    """Two free blocks joined by a tabulated spring-damper and a tabulated torsion spring, with point forces of
    time: global and in tilted marker axes, a function-of-time force with a constant torque, and a torque alone."""
    model, mi, mj = _tilted_pair("tables")
    wave = lambda t: np.array([3.0 * np.sin(5.0 * t), -1.0 + t, 2.0 * np.cos(3.0 * t)])  # noqa: E731
    forces = [model.add_force(fm.SpringDamper(mi, mj, _PULL, damping=30.0, free_length=0.2, preload=12.0,
                                                     name="pull")),
              model.add_force(fm.RotationalSpringDamper(mi, mj, _TWIST, 4.0, free_angle=-0.4, name="twist")),
              model.add_force(fm.PointForce(mi, force=wave, torque=lambda t: 0.1 * wave(t), local=True,
                                            name="local_wave")),
              model.add_force(fm.PointForce(mj, force=wave, torque=(0.3, -0.2, 0.1), name="global_wave")),
              model.add_force(fm.PointForce(mj, torque=lambda t: (0.0, t, 1.0), local=False, name="torque_only"))]
    return model, forces


def test_table_springs_and_point_forces_of_time_equal_their_methods_at_random_states():
    """The tabulated SpringDamper and RotationalSpringDamper kernels (spring_kernels) and the PointForce-of-time kind
    of force_elements.force_element against the classes' generalized_forces and outputs at 60 random states and
    times: the same formulas in another order of operations, so rounding only (loads within 1e-12 of the largest,
    outputs to 1e-12 relative). The deflections and twists cover every piece of the tables and both sides beyond
    their ends (linear extrapolation)."""
    model, forces = _table_and_timed_blocks()
    system = System(model)
    q0, v0, _ = system.initial_state()
    assert not _sorted_forces(system)[3]
    rng = np.random.default_rng(5)
    pieces = {"pull": set(), "twist": set()}
    for _ in range(60):
        q = q0 + rng.normal(0, 0.08, q0.size)
        v = v0 + rng.normal(0, 0.5, q0.size)
        t = rng.uniform(0.0, 2.0)
        for force in forces:
            reference = _assert_kernel_equals_method(system, force, q, v, t)
            if force.name in pieces:
                table = force.stiffness
                x = (reference["length"] - force.free_length if force.name == "pull"
                     else reference["angle"] - force.free_angle)
                pieces[force.name].add(int(np.searchsorted(table.x, x)))  # 0: below, n: above, else the piece
    assert pieces["pull"] == set(range(_PULL.x.size + 1)), pieces
    assert pieces["twist"] == set(range(_TWIST.x.size + 1)), pieces


def test_vector_function_is_called_once_per_new_time():
    """A PointForce's vector function of time becomes three component signals from one call per new time
    (force_elements.vector_signals)."""
    from flexmbs.engine.force_elements import vector_signals

    calls = []

    def load(t):
        calls.append(t)
        return (t, 2.0 * t, 3.0 * t)

    signals = vector_signals(load, None)
    for t in (0.1, 0.1, 0.25):
        assert [f(t) for _, f in signals] == [t, 2.0 * t, 3.0 * t]
    assert calls == [0.1, 0.25]
    assert vector_signals(None, None) == [("constant", 0.0)] * 3
    assert vector_signals(lambda t: (1.0, 2.0, 3.0), np.array([1.0, 2.0, 3.0])) == [("constant", 1.0),
                                                                                    ("constant", 2.0),
                                                                                    ("constant", 3.0)]
