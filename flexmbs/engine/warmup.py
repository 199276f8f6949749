"""Compile the engine before a user waits for it (issue 42): one short run of a small model that uses every part of
the compiled step.

The compiled step's types do not depend on the model (element kernels are called through addresses held in
arrays), so one model with a flexible body, rigid bodies, a prescribed and a free joint, a force element and a
point load compiles everything a case needs from the engine: :func:`flexmbs.engine.loop.advance`, the
functions it calls and the kernels the Python start calls. ``python -m flexmbs_jit.build`` runs :func:`warm_up`
when the package is built; a case's own kernels compile when their modules are imported.

The beam is four Euler–Bernoulli frame elements reduced to two elastic modes by the project's own reduction (no
mesh, no file).
"""
from __future__ import annotations

import warnings

import numpy as np

__all__ = ["warm_up", "small_beam"]


def small_beam(length: float = 0.6, n_elements: int = 4, n_modes: int = 2):
    """A reduced steel frame beam along x with interfaces ``end0`` and ``end1`` (:func:`fem.model.frame_model` and
    :func:`reduction.reduce`, the project's own element and Craig–Bampton: seed 003 eq. (2-140..2-143))."""
    from fem.beam import rectangular_section
    from fem.model import frame_model
    from reduction import reduce

    x = np.linspace(0.0, length, n_elements + 1)
    elements = np.column_stack([np.arange(n_elements), np.arange(1, n_elements + 1)])
    model = frame_model(np.column_stack([x, 0.0 * x, 0.0 * x]), elements, rectangular_section(0.02, 0.02), "steel")
    model.add_interface_node("end0", 0)
    model.add_interface_node("end1", n_elements)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reduction report's accuracy notes: not this model's purpose
        # the direct route: SciPy's SuperLU where PARDISO is missing (the package build's environment has neither
        # pypardiso nor pyamg; the automatic choice took the iterative route there and the warm-up failed)
        return reduce(model, ["end0", "end1"], n_modes, compare_modes=0, damping=0.01, solver="direct")


def warm_up(t_end: float = 0.002) -> dict:
    """Run the small model on the compiled step for ``t_end`` (s); returns the run's statistics."""
    from flexmbs.model.forces import JointActuator, PointForce, SpringDamper
    from flexmbs.model.model import Model

    from .solver import simulate

    model = Model("warm-up", gravity=(0.0, -9.81, 0.0))
    beam = model.add_flexible_body("beam", small_beam())
    hub = model.add_joint("revolute", model.add_marker(model.ground, "hub"),
                          model.add_marker(beam, "root", node="end0"), name="hub")
    model.add_force(JointActuator(hub, 5.0, name="torque"))
    weight = model.add_rigid_body("weight", mass=2.0, inertia=(0.01, 0.01, 0.01), position=(0.7, 0.0, 0.0))
    model.add_joint("spherical", model.add_marker(beam, "tip", node="end1"),
                    model.add_marker(weight, "weight.pin", position=(-0.1, 0.0, 0.0)), name="pin")
    model.add_force(SpringDamper(model.add_marker(model.ground, "anchor", position=(0.7, 0.5, 0.0)),
                                 model.add_marker(weight, "weight.eye"), stiffness=100.0, damping=1.0,
                                 free_length=0.5, name="spring"))
    model.add_force(PointForce(model.add_marker(weight, "weight.load"), force=lambda t: (0.0, 0.0, 1.0 + t),
                               name="load"))
    # a prescribed motion (its rows in the start's constraint check: the compactor compiled them at its first run)
    wheel = model.add_rigid_body("wheel", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0.0, -0.5, 0.0))
    model.add_joint("revolute", model.add_marker(model.ground, "axle", position=(0.0, -0.5, 0.0)),
                    model.add_marker(wheel, "wheel.hub"), name="axle").prescribe(velocity=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = simulate(model, t_end, engine="compiled", progress=False)
    # the Jacobian blocks of the compiled residual from Python (linearize, static equilibrium, the elastic start when
    # its first check does not converge): the run above starts converged and never asks for them
    from .evaluate import evaluator

    s = res.final_state
    evaluator(res.system, s.q, s.v, s.z).blocks(s.t, s.q, s.v, s.qdd, s.z, s.lam)
    return dict(res.statistics)
