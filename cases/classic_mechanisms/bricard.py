"""Bricard's mechanism (IFToMM MBS benchmark A04; Bricard 1897): five rods and six revolute joints, one degree of
freedom only through a redundant constraint.

Rods as in the benchmark (length 1 m, mass 1 kg, square section 0.1 m) on the edges of a unit cube, P0 … P5 of
:data:`POINTS` (the ground is the sixth link P5 → P0; that A04's initial placement is exactly this one is not checked
here), each joint axis (:data:`AXES`: y, z, x, y, z, x) perpendicular to its two links: an orthogonal Bricard
linkage, whose six loop-closure equations have rank 5 everywhere along its motion. Grübler's count gives
5·6 − 6·5 = 0 degrees of freedom, but the mechanism has 1. Gravity is 9.81 m/s² along −y; it starts at rest.

:func:`build_model` is the flexmbs model: six revolute joints, one equation dropped as redundant.
:func:`reference_motion` is an independent minimal-coordinate model. Its coordinate is the angle ``s = θ1`` of
the second joint, and the other five angles follow from the loop closure, written as a product of exponentials.
Lagrange's equation ``m(s) s̈ + ½ m'(s) ṡ² + V'(s) = 0`` is integrated by SciPy's DOP853 (rtol 1e-9). It shares nothing
with the engine but the geometry and the inertia.
"""
from __future__ import annotations

import numpy as np

ROD_LENGTH, ROD_MASS, ROD_SECTION = 1.0, 1.0, 0.1  # m, kg, m (benchmark A04)
GRAVITY = np.array([0.0, -9.81, 0.0])
POINTS = np.array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1), (0, 1, 1), (0, 0, 1)], dtype=float)
AXES = np.array([(0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)], dtype=float)


def rod_inertia() -> np.ndarray:
    """Principal inertia (kg m²) about the centre, body x along the rod: axial, transverse, transverse."""
    axial = ROD_MASS * 2.0 * ROD_SECTION**2 / 12.0
    transverse = ROD_MASS * (ROD_LENGTH**2 + ROD_SECTION**2) / 12.0
    return np.array([axial, transverse, transverse])


def _frame_with_z(axis: np.ndarray) -> np.ndarray:
    """Right-handed orthonormal axes (columns) with ``z`` along ``axis``."""
    z = axis / np.linalg.norm(axis)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _rod_frame(direction: np.ndarray) -> np.ndarray:
    """Body axes of a rod: x along the rod."""
    frame = _frame_with_z(direction)
    return np.column_stack([frame[:, 2], frame[:, 0], frame[:, 1]])


def build_model(redundant_joint: str = "revolute"):
    """The flexmbs model; ``redundant_joint="spherical"`` replaces the last joint by a ball joint (the advice of the
    old error message: it silently makes a two-degree-of-freedom mechanism)."""
    import flexmbs as fm

    model = fm.Model("bricard", gravity=tuple(GRAVITY))
    rods = []
    for k in range(5):
        a, b = POINTS[k], POINTS[k + 1]
        rods.append(model.add_rigid_body(f"rod{k + 1}", ROD_MASS, rod_inertia(), position=0.5 * (a + b),
                                         orientation=_rod_frame(b - a)))
    links = [model.ground] + rods + [model.ground]
    for k in range(6):
        base, follower = links[k], links[k + 1]
        markers = []
        for body in (base, follower):
            if body is model.ground:
                markers.append(model.add_marker(body, position=POINTS[k], orientation=_frame_with_z(AXES[k])))
            else:
                rotation = body.initial_orientation
                markers.append(model.add_marker(body, position=rotation.T @ (POINTS[k] - body.initial_position),
                                                orientation=rotation.T @ _frame_with_z(AXES[k])))
        kind = redundant_joint if k == 5 else "revolute"
        model.add_joint(kind, markers[0], markers[1], name=f"J{k}")
    return model


# --- the independent reference: one joint angle, loop closure by product of exponentials ---------------------------
def _screw_matrix(axis: np.ndarray, point: np.ndarray, angle: float) -> np.ndarray:
    """4x4 rigid motion: rotation by ``angle`` about the line through ``point`` along ``axis``."""
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    rotation = np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * k @ k
    out = np.eye(4)
    out[:3, :3], out[:3, 3] = rotation, point - rotation @ point
    return out


def _chain(theta: np.ndarray) -> list[np.ndarray]:
    """Motions ``exp(S0 θ0) … exp(S_{k-1} θ_{k-1})`` for k = 0 … 6 (the last one is the loop closure)."""
    out = [np.eye(4)]
    for k in range(6):
        out.append(out[-1] @ _screw_matrix(AXES[k], POINTS[k], theta[k]))
    return out


def _spatial_screws(chain: list[np.ndarray]) -> np.ndarray:
    """Spatial twists (6, 6) of the six joints in the current configuration, rows (ω, v)."""
    screws = np.empty((6, 6))
    for k in range(6):
        rotation, shift = chain[k][:3, :3], chain[k][:3, 3]
        w = rotation @ AXES[k]
        p = rotation @ POINTS[k] + shift
        screws[k] = np.concatenate([w, np.cross(p, w)])  # v = -ω × p
    return screws


def _closure_residual(chain_end: np.ndarray) -> np.ndarray:
    rotation, shift = chain_end[:3, :3], chain_end[:3, 3]
    skew = 0.5 * (rotation - rotation.T)
    return np.concatenate([[skew[2, 1], skew[0, 2], skew[1, 0]], shift])


COORDINATE = 1  # the joint whose angle is the minimal coordinate: J1 turns monotonically over the first seconds,
# while the ground joint J0 reaches a turning point near -30 degrees (it cannot serve as a coordinate there)
OTHERS = [k for k in range(6) if k != COORDINATE]  # the angles the loop closure gives


def close_loop(s: float, guess: np.ndarray, tol: float = 1e-13) -> np.ndarray:
    """The six joint angles with ``θ_c = s`` (c = :data:`COORDINATE`) that close the loop (Gauss–Newton on the 6
    closure equations, rank 5)."""
    theta = np.array(guess, dtype=float)
    theta[COORDINATE] = s
    for _ in range(50):
        chain = _chain(theta)
        residual = _closure_residual(chain[-1])
        screws = _spatial_screws(chain)
        step = np.linalg.lstsq(screws[OTHERS].T, -residual, rcond=None)[0]
        theta[OTHERS] += step
        if np.max(np.abs(step)) < tol:  # quadratic convergence: the last step was at round-off
            return theta
    raise RuntimeError(f"Bricard reference: loop closure did not converge at s = {s}")


def _rates(theta: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """The chain and ``dθ/ds`` (6,) from the velocity closure ``Σ ξ_k θ̇_k = 0`` with ``θ̇_c = 1``."""
    chain = _chain(theta)
    screws = _spatial_screws(chain)
    rates = np.ones(6)
    rates[OTHERS] = np.linalg.lstsq(screws[OTHERS].T, -screws[COORDINATE], rcond=None)[0]
    return chain, rates


def rod_poses(theta: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Centre (3,) and body axes (3, 3) of each rod for joint angles ``theta``."""
    chain = _chain(theta)
    poses = []
    for k in range(5):
        motion = chain[k + 1]
        centre0 = 0.5 * (POINTS[k] + POINTS[k + 1])
        poses.append((motion[:3, :3] @ centre0 + motion[:3, 3], motion[:3, :3] @ _rod_frame(POINTS[k + 1] - POINTS[k])))
    return poses


def _mass_and_force(theta: np.ndarray) -> tuple[float, float]:
    """Generalized mass ``m(s)`` and gravity force ``-V'(s)`` for the coordinate ``s = θ_c``."""
    chain, rates = _rates(theta)
    screws = _spatial_screws(chain)
    inertia = np.diag(rod_inertia())
    mass, force = 0.0, 0.0
    twist = np.zeros(6)
    poses = rod_poses(theta)
    for k in range(5):
        twist = twist + screws[k] * rates[k]  # spatial twist of rod k+1 per unit ṡ
        centre, axes = poses[k]
        w, v = twist[:3], twist[3:]
        velocity = v + np.cross(w, centre)
        mass += ROD_MASS * velocity @ velocity + w @ (axes @ inertia @ axes.T) @ w
        force += ROD_MASS * GRAVITY @ velocity
    return mass, force


def reference_motion(times: np.ndarray, s0: float = 0.0, rate0: float = 0.0, rtol: float = 1e-9) -> dict:
    """Joint angles (n_t, 6) and rod centres (n_t, 5, 3) of the minimal-coordinate model at ``times`` (s)."""
    from scipy.integrate import solve_ivp

    state = {"theta": close_loop(s0, np.zeros(6))}

    def closed(s):
        state["theta"] = close_loop(s, state["theta"])
        return state["theta"]

    def rhs(t, y):
        s, rate = y
        mass, force = _mass_and_force(closed(s))
        h = 1e-5
        dm = (_mass_and_force(close_loop(s + h, state["theta"]))[0]
              - _mass_and_force(close_loop(s - h, state["theta"]))[0]) / (2.0 * h)
        return [rate, (force - 0.5 * dm * rate**2) / mass]

    sol = solve_ivp(rhs, (0.0, float(times[-1])), [s0, rate0], method="DOP853", t_eval=times, rtol=rtol,
                    atol=1e-12)
    thetas, centres = [], []
    theta, previous = close_loop(s0, np.zeros(6)), s0
    for s in sol.y[0]:
        for step in np.linspace(previous, s, 21)[1:]:  # follow the branch of the closure from the start
            theta = close_loop(step, theta)
        previous = s
        thetas.append(theta.copy())
        centres.append([c for c, _ in rod_poses(theta)])
    return {"time": sol.t, "s": sol.y[0], "rate": sol.y[1], "theta": np.array(thetas), "centres": np.array(centres)}
