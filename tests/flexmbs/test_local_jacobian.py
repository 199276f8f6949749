"""Local-difference Newton matrices (flexmbs.engine.local_jacobian) against the dense forward-difference Jacobian of the
whole residual (the independent reference), and a run that uses them against a conservation law."""
import numpy as np
import pytest

import flexmbs as fm
from flexmbs.engine.initial import assemble_positions, initial_accelerations, project_velocities
from flexmbs.engine.jacobian import finite_difference_blocks
from flexmbs.engine.system import System
from mbs_helpers import beam_matrices, craig_bampton_flexbody

G = 9.81


def _model(spin: float):
    """Flexible link on a revolute joint, a block hung from its tip by a bushing and tied to the ground by a
    spring; ``spin`` (rad/s) the initial angular velocity of the link."""
    K, M, positions = beam_matrices(length=1.0, n_elements=10, width=0.02, height=0.02)
    flexbody = craig_bampton_flexbody(K, M, positions, n_normal=4, damping=0.02)
    model = fm.Model("local jacobian", gravity=(0.0, -G, 0.0))
    beam = model.add_flexible_body("beam", flexbody, angular_velocity=(0.0, 0.0, spin))
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"), model.add_marker(beam, "root", node="end0"))
    block = model.add_rigid_body("block", 2.0, (0.01, 0.01, 0.01), position=(1.0, -0.05, 0.0),
                                 velocity=(0.0, spin * 1.0, 0.0))
    model.add_force(fm.Bushing(model.add_marker(beam, "tip", node="end1"), model.add_marker(block, "hook",
                                                                                          position=(0, 0.05, 0)),
                               (2e5, 2e5, 2e5), (50.0, 50.0, 50.0), (20.0, 20.0, 20.0), (0.1, 0.1, 0.1)))
    model.add_force(fm.SpringDamper(model.add_marker(model.ground, "anchor", position=(1.0, -1.0, 0.0)),
                                    model.add_marker(block, "eye"), stiffness=300.0, damping=3.0))
    return model


def _undamped(model):
    """``model`` with every damping set to zero (bushings, springs, modal damping)."""
    for force in list(model.forces):
        if isinstance(force, fm.Bushing):
            force.ct = force.cr = np.zeros(3)
        else:
            force.damping = 0.0
    model.bodies[0].modal_damping = np.zeros_like(model.bodies[0].modal_damping)
    return model


def _state(model):
    system = System(model)
    q0, v0, z0 = system.initial_state()
    q = assemble_positions(system, q0)
    v = project_velocities(system, q, v0)
    q[system.bodies[0].offset + 7:system.bodies[0].offset + 11] += 1e-4  # a deformed link
    qdd, lam, _ = initial_accelerations(system, q, v, z0)
    return system, q, v, qdd, z0, lam


@pytest.mark.parametrize("spin", [0.0, 3.0])
def test_local_blocks_match_the_dense_difference_jacobian(spin):
    model = _model(spin)
    system, q, v, qdd, z, lam = _state(model)
    model.local_jacobian = False
    dense = finite_difference_blocks(system, q, v, qdd, z, lam, 0.0)
    model.local_jacobian = True
    local = finite_difference_blocks(system, q, v, qdd, z, lam, 0.0)
    for name in ("K", "C"):
        ref, got = getattr(dense, name), getattr(local, name)
        err = np.linalg.norm(got - ref) / np.linalg.norm(ref)
        # at rest only the left-out geometric terms of the loads remain (the bushing's ω_i × arm damping term:
        # ~2e-4 here); spinning at 3 rad/s (far below the link's 16 Hz) the inertia terms through q_f add to it,
        # below 1 % of the matrix
        assert err < (1e-3 if spin == 0.0 else 1e-2), (name, err)
    assert local.evaluations < dense.evaluations


def test_a_run_with_local_newton_matrices_conserves_energy_and_follows_the_dense_run():
    results = {}
    for local in (False, True):
        model = _undamped(_model(2.0))  # conservative: no damping anywhere
        model.local_jacobian = local
        res = fm.simulate(model, 0.4, rtol=1e-5, atol=1e-8)
        assert res.success, res.message
        results[local] = res
    energy = results[True].energy()
    # the residual is exact whatever the Newton matrix: energy conserved like the dense run (generalized-α drift)
    assert np.ptp(energy["total"]) / energy["kinetic"].max() < 2e-3
    # same trajectory within the integration tolerance (different Newton iterates and steps, same equations),
    # compared at common times
    t = np.linspace(0.0, 0.4, 81)
    tip = {k: np.column_stack([np.interp(t, r.time, r["marker/tip/position"][:, a]) for a in range(2)])
           for k, r in results.items()}
    assert np.abs(tip[True] - tip[False]).max() < 1e-4  # m, on a 1 m link


class _ServoLag:
    """State element: ``τ u̇ = -k_p y - k_d ẏ - u`` pushing the measured marker along x with the force ``u``."""

    state_names = ["u"]
    state_units = ["N"]
    output_units: dict = {}

    def __init__(self, marker):
        self.name = "servo"
        self.measurements = [fm.MarkerCoordinate(marker, "x")]
        self.jacobians = None  # differenced

    def initial_state(self):
        return np.array([3.0])

    def rates(self, t, z, y, ydot):
        return np.array([(-400.0 * y[0] - 20.0 * ydot[0] - z[0]) / 0.01])

    def forces(self, t, z, y, ydot):
        return np.array([z[0]])

    def outputs(self, t, z, y, ydot):
        return {}


def test_state_element_blocks_match_the_dense_difference_jacobian():
    model = _model(1.0)
    tip = next(m for m in model.markers if m.name == "tip")
    model.add_element(_ServoLag(tip))
    system, q, v, qdd, z, lam = _state(model)
    z = np.array([3.0])
    model.local_jacobian = False
    dense = finite_difference_blocks(system, q, v, qdd, z, lam, 0.0)
    model.local_jacobian = True
    local = finite_difference_blocks(system, q, v, qdd, z, lam, 0.0)
    for name in ("Gq", "Gv", "Dz", "Gz"):  # the element is differenced over the bodies its measurement sees: exact
        ref, got = getattr(dense, name), getattr(local, name)
        assert np.linalg.norm(got - ref) <= 1e-5 * np.linalg.norm(ref), name


def test_quasi_static_start_of_a_spinning_link_with_a_hung_block_reaches_zero_elastic_acceleration():
    # the start's Newton matrix steps must difference the model, not the re-assembly's round-off (a step of 2e-13
    # scaled by the small modal error once pointed Newton uphill and fell back to the undeformed start)
    from flexmbs.engine.solver import _relax_elastic_coordinates

    model = _undamped(_model(2.0))  # as the conservative run above (where the fallback showed)
    system = System(model)
    q0, v0, z0 = system.initial_state()
    q = assemble_positions(system, q0)
    v = project_velocities(system, q, v0)
    body = system.bodies[0]
    idx = np.arange(body.offset + 7, body.offset + body.n_coordinates)
    before = np.abs(initial_accelerations(system, q, v, z0)[0][idx] / body.modal_stiffness).max()
    q1, v1 = _relax_elastic_coordinates(system, q, v, z0)
    after = np.abs(initial_accelerations(system, q1, v1, z0)[0][idx] / body.modal_stiffness).max()
    assert not getattr(system, "fallback_notes", None)
    # equilibrium of the elastic coordinates (q̈_f = 0): the modal error reduced far below the start's (2e-6 m)
    assert after < 1e-6 * before, (before, after)
