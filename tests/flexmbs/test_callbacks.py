"""A user's own elements as callbacks of the one engine (issue 41, item 4; flexmbs.engine.callbacks).

The model is the valve–cylinder–arm of test_compiled_step.py (a 120 kg arm on a revolute joint, a double-acting
cylinder fed by a 4/3 valve). Its user-written twin has a joint class of the user's (no library rows), the
cylinder's length as a measurement class of the user's, the circuit behind a state element without a compiled
kernel and the valve command as a Python signal: every part is called back, and the answer equals the built-in
model's within the integration error (integration_tolerance.assert_agree against an rtol × 1e-3 run).
"""
from __future__ import annotations

import warnings

import numpy as np
import flexmbs as fm
from flexmbs.engine.callbacks import PythonParts
from flexmbs.engine.system import System
from flexmbs.model.joints import Revolute
from integration_tolerance import TIGHTER, assert_agree
from test_compiled_step import PythonOnly, arm_model


class UserRevolute(Revolute):
    """A user's joint: the revolute's equations without library rows (``PRIMITIVES`` empty), so the engine calls
    its ``equations`` back."""

    PRIMITIVES = ()


class UserDistance(fm.Distance):
    """A user's measurement type (the compiled step knows only its built-in kinds)."""


def _user_model(monkeypatch, joint: bool = True, measurement: bool = True, element: bool = True):
    """The arm model with the user's parts in place of the built-in ones (built while the names point to them)."""
    from flexmbs.model.model import JOINT_TYPES

    with monkeypatch.context() as m:
        if joint:
            m.setitem(JOINT_TYPES, "revolute", UserRevolute)
        if measurement:
            m.setattr(fm, "Distance", UserDistance)
        return arm_model(wrap=PythonOnly if element else None)


KEYS = ("element/hyd/cyl.force", "element/hyd/VA.pressure", "joint/pivot/force", "body/arm/angular_velocity")


def test_user_joint_measurement_element_and_signal_agree_with_the_built_in_model(monkeypatch):
    """All four kinds of user part at once (joint, measurement, state element with its circuit, Python valve
    signal), each a callback: same answer as the built-in model within the integration error (rtol 1e-7)."""
    opts = dict(rho_inf=0.5, rtol=1e-7, atol=1e-9)
    twin = fm.simulate(arm_model(), 0.6, **opts)
    user_model = _user_model(monkeypatch)
    system = System(user_model)
    assert system.fallback_joints and type(system.elements[0]) is PythonOnly
    assert type(system.elements[0].measurements[0]) is UserDistance
    user = fm.simulate(user_model, 0.6, **opts)
    reference = fm.simulate(arm_model(), 0.6, rho_inf=0.5, rtol=1e-7 * TIGHTER, atol=1e-9 * TIGHTER)
    assert twin.statistics["engine"] == user.statistics["engine"] == "compiled"
    assert np.ptp(twin["element/hyd/cyl.force"]) > 1e3  # the valve moved the arm
    assert_agree(twin, user, reference, KEYS, rtol=1e-7)


def test_user_joint_alone_agrees_and_its_rows_hold(monkeypatch):
    """The user's joint alone (everything else built in): same motion and reaction within the integration error,
    and its rows hold to the Newton tolerance (the pivot point stays at the origin within 1e-8 m)."""
    opts = dict(rho_inf=0.5, rtol=1e-7, atol=1e-9)
    twin = fm.simulate(arm_model(), 0.6, **opts)
    user = fm.simulate(_user_model(monkeypatch, measurement=False, element=False), 0.6, **opts)
    reference = fm.simulate(arm_model(), 0.6, rho_inf=0.5, rtol=1e-7 * TIGHTER, atol=1e-9 * TIGHTER)
    assert_agree(twin, user, reference, ("joint/pivot/force", "body/arm/angular_velocity", "joint/pivot/rotation"),
                 rtol=1e-7)
    assert np.max(np.abs(user["marker/arm.pivot/position"])) < 1e-8


class UserFriction(fm.JointFriction):
    """A user's joint friction: the built-in law, read from Python (it reads the joint reactions)."""


def test_python_friction_reading_reactions_agrees_with_its_kernel_twin():
    """A Python force element that reads the joint reactions (the friction torque of the pivot from its radial
    load) called back from the one engine: same answer as the built-in kernel within the integration error."""
    def build(kind):
        model = arm_model()
        model.add_force(kind(model.joints[0], 0.15, 0.1, 1e-2, pin_radius=0.02, name="friction"))
        return model

    opts = dict(rho_inf=0.5, rtol=1e-7, atol=1e-9)
    twin = fm.simulate(build(fm.JointFriction), 0.6, **opts)
    user = fm.simulate(build(UserFriction), 0.6, **opts)
    reference = fm.simulate(build(fm.JointFriction), 0.6, rho_inf=0.5, rtol=1e-7 * TIGHTER, atol=1e-9 * TIGHTER)
    assert twin.statistics["engine"] == user.statistics["engine"] == "compiled"
    assert np.max(np.abs(twin["force/friction/friction"])) > 1.0  # the friction acts
    assert_agree(twin, user, reference, ("force/friction/friction", "joint/pivot/force", "body/arm/angular_velocity"),
                 rtol=1e-7)


def test_a_callback_is_coupled_to_its_own_columns_only():
    """A Python force element between the arm and ground, nine free bodies beside it: the difference Jacobian
    re-evaluates it for the arm's 7 + 7 columns only (not for the bystanders' 126), and a state element for its
    own states and the columns of its measurement's bodies."""
    from test_compiled_step import UserSpring

    model = arm_model(wrap=PythonOnly)
    tip = model.add_marker(model.bodies[0], "tip", position=(0.5, 0.0, 0.0))
    for k in range(9):
        model.add_rigid_body(f"float{k}", mass=1.0, inertia=(1.0, 1.0, 1.0), position=(0.0, 0.0, 2.0 + k))
    anchor = model.add_marker(model.ground, "anchor", position=(1.0, 0.6, 0.0))
    spring = model.add_force(UserSpring(anchor, tip, stiffness=2e4, damping=300.0, free_length=0.5, name="spring"))
    system = System(model)
    parts = PythonParts(system, [spring], [0], [])
    n_q, n_z = system.n_q, system.n_z
    arm = system.bodies[0].slice
    own = set(range(arm.start, arm.stop)) | {n_q + j for j in range(arm.start, arm.stop)}
    spring_cols = {c for c, p in enumerate(parts.by_column) if ("f", 0) in p}
    assert spring_cols == own | {2 * n_q + i for i in range(n_z)}  # not marker-local: it may read the states
    element_cols = {c for c, p in enumerate(parts.by_column) if ("e", 0) in p}
    assert element_cols == own | {2 * n_q + i for i in range(n_z)}
    assert n_q == 70 and int(parts.columns.sum()) == len(own) + n_z


def test_the_python_parts_loads_equal_the_elements_own_at_a_column():
    """At a difference column the callback evaluates only the coupled parts and keeps the others' base values: the
    loads equal a full evaluation at the moved state (the element's own generalized_forces are the reference)."""
    from test_compiled_step import UserSpring

    model = arm_model()
    tip = model.add_marker(model.bodies[0], "tip", position=(0.5, 0.0, 0.0))
    other = model.add_rigid_body("other", mass=2.0, inertia=(1.0, 1.0, 1.0), position=(0.0, 0.0, 2.0))
    anchor = model.add_marker(model.ground, "anchor", position=(1.0, 0.6, 0.0))
    a = model.add_force(UserSpring(anchor, tip, stiffness=2e4, damping=300.0, free_length=0.5, name="a"))
    b = model.add_force(UserSpring(anchor, model.add_marker(other, "o"), stiffness=1e3, damping=3.0,
                                   free_length=1.0, name="b"))
    system = System(model)
    parts = PythonParts(system, [a, b], [], [])
    q, v, z = system.initial_state()
    parts.q[:], parts.v[:], parts.z[:] = q, v, z
    parts.control[0] = -1
    parts.evaluate(0.1)
    for col in (system.bodies[0].slice.start + 1, system.n_q + system.bodies[1].slice.start):
        x = parts.q if col < system.n_q else parts.v
        j = col % system.n_q
        x[j] += 1e-3
        parts.control[0] = col
        parts.evaluate(0.1)
        got = parts.loads.copy()
        parts.control[0] = -1
        parts.evaluate(0.1)
        np.testing.assert_allclose(got, parts.loads, rtol=0, atol=1e-12 * np.abs(parts.loads).max())
        x[j] -= 1e-3
        parts.evaluate(0.1)
    assert not parts.errors


def test_friction_on_redundant_rows_agrees_with_its_python_twin():
    """A swinging door on two coaxial hinges (5 redundant rows dropped) with joint friction on one hinge: the
    kernel reads the minimum-norm split of the reactions (step.all_multipliers) and agrees with the same
    friction called back in Python (``Context.full_lam``, flexmbs.engine.redundancy) within the integration
    error."""
    def build(kind):
        model = fm.Model("door", gravity=(0.0, -9.81, 0.0))
        door = model.add_rigid_body("door", mass=20.0, inertia=(2.0, 2.0, 1.0), position=(0.4, 0.0, 0.0))
        hinges = []
        for k, z in enumerate((-0.5, 0.5)):
            hinges.append(model.add_joint("revolute", model.add_marker(model.ground, f"g{k}", position=(0.0, 0.0, z)),
                                          model.add_marker(door, f"d{k}", position=(-0.4, 0.0, z)), name=f"hinge{k}"))
        model.add_force(kind(hinges[0], 0.3, 0.2, 1e-2, pin_radius=0.05, name="friction"))
        return model

    opts = dict(rtol=1e-7, atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the redundant-constraint report
        twin = fm.simulate(build(fm.JointFriction), 0.5, **opts)
        user = fm.simulate(build(UserFriction), 0.5, **opts)
        reference = fm.simulate(build(fm.JointFriction), 0.5, rtol=1e-7 * TIGHTER, atol=1e-9 * TIGHTER)
    assert twin.success and user.success
    assert np.max(np.abs(twin["force/friction/friction"])) > 0.1
    assert_agree(twin, user, reference, ("force/friction/friction", "body/door/angular_velocity",
                                         "joint/hinge0/force"), rtol=1e-7)


def _consistent_start(model, t: float = 0.2):
    """The consistent start of ``model`` at ``t`` (the valve open) from the arm moving (a seeded velocity projected
    onto the joints) and the chamber pressures off their holding values: assembly, velocities, accelerations."""
    from flexmbs.engine.initial import assemble_positions, initial_accelerations, project_velocities

    system = System(model)
    q0, v0, z = system.initial_state()
    q = assemble_positions(system, q0, t)
    v = project_velocities(system, q, np.random.default_rng(7).normal(size=system.n_q), t)
    z = z * np.array([1.3, 0.8])
    qdd, lam, zdot = initial_accelerations(system, q, v, z, t)
    return system, q, v, z, qdd, lam, zdot, t


def test_user_parts_start_and_linearize_on_the_compiled_residual_as_their_built_in_twin(monkeypatch):
    """A user joint, measurement and state element (all callbacks) start on the compiled residual with the same
    consistent accelerations, multipliers and state rates as the built-in model (to 1e-9 of each quantity's
    largest value: the same equations, rounded differently), and the Jacobian blocks the linearization and static
    equilibrium use are the same to 1e-5 of each block's largest entry (forward differences with steps of 1e-7
    relative: round-off over the step)."""
    twin = _consistent_start(arm_model())
    user = _consistent_start(_user_model(monkeypatch))
    parts = user[0]._evaluator.plan.parts
    assert parts.active and parts.joints and parts.elements  # the user's parts are called back at the start
    for name, a, b in zip(("q", "v", "z", "q̈", "λ", "ż"), twin[1:7], user[1:7]):
        scale = max(float(np.max(np.abs(a), initial=0.0)), 1e-300)
        assert np.max(np.abs(a - b), initial=0.0) <= 1e-9 * scale, name
    assert np.max(np.abs(twin[4])) > 1.0 and np.max(np.abs(twin[6])) > 1e5  # the arm and the pressures move
    blocks = [s[0]._evaluator.blocks(s[7], s[1], s[2], s[4], s[3], s[5]) for s in (twin, user)]
    for key in ("K", "C", "Dz", "Gq", "Gv", "Gz"):
        a, b = blocks[0][key], blocks[1][key]
        assert np.max(np.abs(a - b), initial=0.0) <= 1e-5 * max(np.max(np.abs(a), initial=0.0), 1e-300), key


def test_a_model_with_python_parts_builds_one_plan_for_its_start_and_run(monkeypatch):
    """The consistent start's plan is the run's (no plan built and thrown away for a model with Python parts)."""
    from flexmbs.engine import plan

    built = []
    original = plan._Plan.__init__

    def counted(self, *args, **kwargs):
        built.append(self)
        original(self, *args, **kwargs)

    model = _user_model(monkeypatch)
    monkeypatch.setattr(plan._Plan, "__init__", counted)
    res = fm.simulate(model, 0.01, rho_inf=0.5, rtol=1e-6, atol=1e-8)
    assert res.success and len(built) == 1


def test_a_prescribed_motion_of_a_user_joint_follows_its_closed_form(monkeypatch):
    """A bar (2 kg, 1 m, I_zz = 0.1 kg m² about its centre) on a revolute joint at its end, turned by a prescribed
    rate θ̇ = 2t: the angle is θ = t², and the joint's torque on the bar is I_o θ̈ + m g (L/2) cos θ with
    I_o = 0.1 + 2 · 0.5² = 0.6 kg m². The same for the library joint and a user's joint (its base rows called back,
    its prescribed motion's row compiled): angle within 1e-9 rad, torque within 1e-6 of its peak."""
    from flexmbs.model.model import JOINT_TYPES

    for joint_class in (Revolute, UserRevolute):
        with monkeypatch.context() as m:
            m.setitem(JOINT_TYPES, "revolute", joint_class)
            model = fm.Model("crank", gravity=(0.0, -9.81, 0.0))
            bar = model.add_rigid_body("bar", 2.0, (0.01, 0.1, 0.1), position=(0.5, 0.0, 0.0))
            pivot = model.add_joint("revolute", model.add_marker(model.ground, "o"),
                                    model.add_marker(bar, "p", position=(-0.5, 0.0, 0.0)), name="pivot")
        assert type(pivot) is joint_class
        pivot.prescribe(velocity=lambda t: 2.0 * t)
        res = fm.simulate(model, 0.5, rtol=1e-7, atol=1e-9)
        t = res.time
        torque = 0.6 * 2.0 + 2.0 * 9.81 * 0.5 * np.cos(t**2)
        assert np.max(np.abs(res["joint/pivot/rotation"] - t**2)) < 1e-9
        assert np.max(np.abs(np.asarray(res["joint/pivot/torque"])[:, 2] - torque)) < 1e-6 * np.max(torque)
