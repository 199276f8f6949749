"""A door on two coaxial hinges, and a parallelogram of three cranks modelled in 3D: redundant constraints as machine
builders model them.

**Door.** A 20 kg slab, 0.8 m wide (body x), 1.2 m high (body y) and 0.04 m thick, hangs from a horizontal hinge
line (global z) on two revolute joints 1 m apart. Five of the second hinge's equations repeat the first hinge's.
The slab swings as a compound pendulum, ``I_O θ̈ = -m g d sin θ``: ``d`` is the distance from the hinge line to
the centre of mass and ``I_O = I_c + m d²``. The reactions of the two hinges are a minimum-norm split. Their sum,
and their moment about any point, are fixed by the door's motion.

**Parallelogram.** Three equal cranks of length 0.3 m, 0.5 m apart, hang on a ground line, and a coupler links
their ends. In 3D, six revolute joints give 4·6 − 6·5 = −6 by Grübler's count, but the mechanism has one degree
of freedom (7 redundant equations). The coupler translates without turning, and every crank keeps the first
crank's angle.
"""
from __future__ import annotations

import numpy as np

G = 9.81  # m/s²
DOOR_MASS, DOOR_SIZE = 20.0, (0.8, 1.2, 0.04)  # kg; m (width x, height y, thickness z)
HINGE_SPACING = 1.0  # m, along the hinge line (global z)
CRANK_LENGTH, CRANK_MASS, CRANK_SPACING = 0.3, 2.0, 0.5  # m, kg, m
COUPLER_MASS = 6.0  # kg


def door_inertia() -> np.ndarray:
    """Principal inertia (kg m²) of the slab about its centre (body axes x width, y height, z thickness)."""
    a, b, c = DOOR_SIZE
    m = DOOR_MASS
    return np.array([m * (b**2 + c**2), m * (a**2 + c**2), m * (a**2 + b**2)]) / 12.0


def door_pendulum() -> tuple[float, float]:
    """``(I_O, m g d)``: inertia about the hinge line (kg m²) and the gravity moment coefficient (N m)."""
    d = 0.5 * DOOR_SIZE[1]
    return door_inertia()[2] + DOOR_MASS * d**2, DOOR_MASS * G * d


def build_door(angle_deg: float = 0.0, hinges: int = 2, hinge_damping: float = 0.0):
    """The door hanging from the hinge line, turned by ``angle_deg`` about it (0: hanging straight down).

    ``hinges=1`` is the same door with the redundancy removed by hand: one hinge in the middle of the line.
    ``hinge_damping`` (N m s/rad) adds a rotational damper about the hinge line, so the pendulum has a damped pair
    of eigenvalues to compare.
    """
    import flexmbs as fm

    model = fm.Model(f"door-{hinges}-hinges", gravity=(0.0, -G, 0.0))
    angle = np.radians(angle_deg)
    turn = np.array([[np.cos(angle), -np.sin(angle), 0.0], [np.sin(angle), np.cos(angle), 0.0], [0.0, 0.0, 1.0]])
    half_height = 0.5 * DOOR_SIZE[1]
    door = model.add_rigid_body("door", DOOR_MASS, door_inertia(), position=turn @ [0.0, -half_height, 0.0],
                                orientation=turn)
    spots = [0.0] if hinges == 1 else [-0.5 * HINGE_SPACING, 0.5 * HINGE_SPACING]
    markers = []
    for k, z in enumerate(spots):
        markers.append((model.add_marker(model.ground, f"frame{k + 1}", position=(0.0, 0.0, z)),
                        model.add_marker(door, f"leaf{k + 1}", position=(0.0, half_height, z))))
        model.add_joint("revolute", *markers[-1], name=f"hinge{k + 1}")
    if hinge_damping:
        model.add_force(fm.RotationalSpringDamper(*markers[0], damping=hinge_damping, name="damper"))
    return model


def build_parallelogram(angle_deg: float = 30.0, planar: bool = False):
    """Three cranks hanging from ground pivots at x = 0, 0.5, 1.0 m, turned by ``angle_deg``, and the coupler."""
    import flexmbs as fm

    model = fm.Model("parallelogram", gravity=(0.0, -G, 0.0), planar=planar)
    angle = np.radians(angle_deg)
    down = np.array([np.sin(angle), -np.cos(angle), 0.0])  # crank direction, pivot to tip
    turn = np.array([[np.cos(angle), -np.sin(angle), 0.0], [np.sin(angle), np.cos(angle), 0.0], [0.0, 0.0, 1.0]])
    crank_inertia = CRANK_MASS * CRANK_LENGTH**2 / 12.0 * np.array([1.0, 1e-3, 1.0])  # slender along body y
    coupler_centre = np.array([CRANK_SPACING, 0.0, 0.0]) + CRANK_LENGTH * down
    coupler_inertia = COUPLER_MASS * (2 * CRANK_SPACING) ** 2 / 12.0 * np.array([1e-3, 1.0, 1.0])
    coupler = model.add_rigid_body("coupler", COUPLER_MASS, coupler_inertia, position=coupler_centre)
    for k in range(3):
        pivot = np.array([k * CRANK_SPACING, 0.0, 0.0])
        crank = model.add_rigid_body(f"crank{k + 1}", CRANK_MASS, crank_inertia,
                                     position=pivot + 0.5 * CRANK_LENGTH * down, orientation=turn)
        model.add_joint("revolute", model.add_marker(model.ground, f"ground{k + 1}", position=pivot),
                        model.add_marker(crank, f"pivot{k + 1}", position=(0.0, 0.5 * CRANK_LENGTH, 0.0)),
                        name=f"pivot{k + 1}")
        model.add_joint("revolute", model.add_marker(crank, f"tip{k + 1}", position=(0.0, -0.5 * CRANK_LENGTH, 0.0)),
                        model.add_marker(coupler, f"pin{k + 1}", position=pivot + CRANK_LENGTH * down - coupler_centre),
                        name=f"pin{k + 1}")
    return model


def parallelogram_pendulum() -> tuple[float, float]:
    """``(I, m g r)`` of the equivalent pendulum in the crank angle: three cranks about their pivots plus the
    translating coupler (its whole mass at the crank radius), and its gravity moment coefficient."""
    crank_pivot = CRANK_MASS * CRANK_LENGTH**2 / 12.0 + CRANK_MASS * (0.5 * CRANK_LENGTH) ** 2
    inertia = 3.0 * crank_pivot + COUPLER_MASS * CRANK_LENGTH**2
    moment = G * (3.0 * CRANK_MASS * 0.5 * CRANK_LENGTH + COUPLER_MASS * CRANK_LENGTH)
    return inertia, moment


def pendulum_angle(times: np.ndarray, inertia: float, moment: float, angle0: float) -> np.ndarray:
    """``θ(t)`` (rad) of ``I θ̈ = -k sin θ`` from rest at ``angle0`` (SciPy's DOP853, rtol 1e-12): the
    independent reference of both mechanisms."""
    from scipy.integrate import solve_ivp

    sol = solve_ivp(lambda t, y: [y[1], -moment / inertia * np.sin(y[0])], (0.0, float(times[-1])), [angle0, 0.0],
                    method="DOP853", t_eval=times, rtol=1e-12, atol=1e-14)
    return sol.y[0]
