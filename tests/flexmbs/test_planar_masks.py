"""The planar models' row masks by rule (flexmbs.engine.system.planar_row_sizes, from the markers' placed frames)
against their definition measured on the engine's own constraint rows: the in-plane size ``|J_x| + |J_y| + |J_θ·n|``
of each row's quasi-coordinate Jacobian from the compiled constraint kernel at the placement (the way the masks were
found before the rule), and the same row sizes to 1e-12 relative (round-off of the two evaluations)."""
from __future__ import annotations

import numpy as np
import pytest

import flexmbs as fm
from flexmbs.engine.constraint_kernels import CompiledConstraints
from flexmbs.engine.system import Context, System, planar_row_sizes
from flexmbs.model.rotations import rotation_about


def _kernel_sizes(system, joint) -> np.ndarray:
    """In-plane sizes of ``joint``'s base rows measured on the compiled constraint rows at the placement."""
    mask, joint.row_mask = joint.row_mask, None
    try:
        library = CompiledConstraints([joint])
    finally:
        joint.row_mask = mask
    q0 = np.concatenate(system._placements()[0])
    ctx = Context(system, q0, np.zeros_like(q0), 0.0)
    ji, jj = library.evaluate(ctx, np.empty(int(library.flat_rows.max()) + 1), None)
    axes = ctx.A[:, 2, :]  # Aᵀ n of every body
    size = np.zeros(library.n_rows)
    for jac, markers in ((ji, library.flat_mi), (jj, library.flat_mj)):
        size += (np.abs(jac[:, 0]) + np.abs(jac[:, 1])
                 + np.abs(np.einsum("ij,ij->i", jac[:, 3:6], axes[system.marker_body[markers]])))
    return size[library.positions[joint]]


def _check(model) -> int:
    """Every library joint of ``model``: the rule's sizes equal the kernel's, and the masks are the kernel's."""
    system = System(model)
    q0 = np.concatenate(system._placements()[0])
    X, R = Context(system, q0, np.zeros_like(q0), 0.0).marker_arrays()[:2]
    checked = 0
    for joint in model.joints:
        if not joint.PRIMITIVES:
            continue
        measured = _kernel_sizes(system, joint)
        rule = np.array(planar_row_sizes(joint, X, R, q0))
        scale = max(1.0, measured.max())
        np.testing.assert_allclose(rule, measured, rtol=0.0, atol=1e-12 * scale)
        expected = measured > 1e-9 * max(1.0, measured.max(initial=0.0))
        np.testing.assert_array_equal(joint.row_mask, expected, err_msg=joint.name)
        checked += 1
    return checked


def _every_joint_kind(turn: float, lift: float):
    """A planar model with every library joint kind between tilted, turned and lifted markers: rows in the plane,
    out of it and across it (a joint axis in the plane, markers off the plane by ``lift`` m)."""
    model = fm.Model("every-joint", gravity=(0.0, -9.81, 0.0), planar=True)
    tilt = rotation_about("x", 0.5 * np.pi)  # marker z in the plane: revolute/prismatic axes in-plane
    turned = rotation_about("z", turn)
    bodies = []
    for k in range(5):
        bodies.append(model.add_rigid_body(f"b{k}", mass=1.0 + k, inertia=(0.2 * (1 + k), 0.25 * (1 + k), 0.3 * (1 + k)),
                                           position=(0.4 * k, 0.1 * k, 0.0), orientation=rotation_about("z", 0.3 * k)))
    kinds = ["revolute", "fixed", "spherical", "prismatic", "cylindrical", "universal", "planar", "point-on-line",
             "point-on-plane"]
    previous = model.ground
    count = 0
    for k, kind in enumerate(kinds):
        body = bodies[k % len(bodies)]
        orient = [None, turned, tilt @ turned, turned @ tilt][k % 4]
        mi = model.add_marker(previous, f"m{k}i", position=(0.2, -0.1, lift * (k % 2)), orientation=orient)
        mj = model.add_marker(body, f"m{k}j", position=(-0.2, 0.05, lift * (k % 3 == 0)), orientation=orient)
        model.add_joint(kind, mi, mj, name=f"j{k}-{kind}")
        previous = body if previous is model.ground else model.ground
        count += 1
    generic = model.add_joint("generic", model.add_marker(bodies[3], "gi", position=(0.1, 0.2, lift)),
                              model.add_marker(bodies[4], "gj", position=(-0.1, 0.0, 0.0), orientation=turned),
                              name="generic", translations="xz", rotations="xy")
    assert generic.PRIMITIVES
    return model, count + 1


@pytest.mark.parametrize("turn,lift", [(0.0, 0.0), (0.7, 0.0), (0.3, 0.25), (-2.1, -1.5)])
def test_rule_masks_equal_kernel_masks_for_every_joint_kind(turn, lift):
    model, n = _every_joint_kind(turn, lift)
    assert _check(model) == n


def test_rule_masks_of_the_hydraulic_race_and_the_excavator():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import race_hydraulic

    assert _check(race_hydraulic.flexmbs_model()) == 1
    from cases.excavator import mechanics

    p = _excavator_parameters()
    model, _ = mechanics.build_mechanism(p, pose=mechanics.start_pose(p))
    assert _check(model) >= 10
    # the revolute rows in the plane: point x, y kept; point z and the two axis rows dropped
    race = race_hydraulic.flexmbs_model()
    System(race)
    np.testing.assert_array_equal(race.joints[0].row_mask, [True, True, False, False, False])


def _excavator_parameters() -> dict:
    from cases.excavator import parameters

    return parameters()


def test_user_joint_rows_are_masked_as_their_library_twin():
    """A joint of the user's (base rows in Python, no primitives) is measured on its own rows: a revolute written
    that way gets the library revolute's mask from the rule, for axes along the normal and in the plane."""
    from flexmbs.model.joints import Joint, primitive_rows

    class UserRevolute(Joint):
        n_base = 5

        def base_rows(self, si, sj):
            return primitive_rows((("point",), ("dot1", 2, 0), ("dot1", 2, 1)), si, sj)

    for orient in (None, rotation_about("x", 0.5 * np.pi) @ rotation_about("z", 0.4)):
        model = fm.Model("user-joint", gravity=(0.0, -9.81, 0.0), planar=True)
        arm = model.add_rigid_body("arm", mass=2.0, inertia=(0.1, 0.2, 0.25), position=(0.5, 0.2, 0.0),
                                   orientation=rotation_about("z", 0.3))
        link = model.add_rigid_body("link", mass=1.0, inertia=(0.05, 0.1, 0.12), position=(1.2, 0.1, 0.0))
        user = model.add_joint(UserRevolute(model.add_marker(model.ground, "g", orientation=orient),
                                            model.add_marker(arm, "a", position=(-0.5, -0.2, 0.1), orientation=orient),
                                            name="user"))
        twin = model.add_joint("revolute", model.add_marker(arm, "a2", position=(0.3, 0.0, 0.0), orientation=orient),
                               model.add_marker(link, "l", position=(-0.4, 0.1, 0.0), orientation=orient),
                               name="twin")
        System(model)
        assert not user.PRIMITIVES
        np.testing.assert_array_equal(user.row_mask, twin.row_mask)
        assert 0 < user.row_mask.sum() < 5
