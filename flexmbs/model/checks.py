"""Checks of the values a user gives the model's API (issue 43): one-line :class:`~fem.errors.ModelError` for
impossible values, a :class:`PlausibilityWarning` note for a likely unit slip. The model room holds them (its classes
call them when they are made); :mod:`flexmbs.results.plausibility` re-exports them beside the run's checks."""
from __future__ import annotations

import warnings

import numpy as np

from fem.errors import ModelError

__all__ = ["PlausibilityWarning", "rigid_body_problems", "check_rigid_body", "check_vector", "check_pose",
           "check_number", "check_marker", "check_gravity", "check_orientation", "MIN_BOX_DENSITY", "MAX_BOX_DENSITY", "MAX_GRAVITY"]


class PlausibilityWarning(UserWarning):
    """A result that is computed correctly from absurd inputs (printed as one ``warning:`` line)."""

# a rigid body whose mass and inertia make a uniform box lighter than this (kg/m³, a thousandth of air's density):
# a mass in tonnes typed as kg makes the box 31.6x larger in each side and 3.2e7x lighter (issue 43)
MIN_BOX_DENSITY = 1e-3
# ... or denser than this (kg/m³, 4000 x osmium): a mass in g typed as kg makes the box 1000x heavier and 31.6x smaller
# in each side (3e7 x denser); a thin rod (the slider crank's crank, 1e-6 kg m² about its axis) reaches 1e6
MAX_BOX_DENSITY = 1e8


def rigid_body_problems(name: str, mass, inertia) -> list[str]:
    """Checks of a rigid body's mass and inertia at the API (issue 43); raises a one-line :class:`ModelError` for
    impossible values and returns heuristic notes (a unit slip) for the caller to warn.

    * ``mass``: a positive, finite number (kg);
    * ``inertia`` (3, 3) kg m² about the centre of mass: finite, and its principal moments obey the triangle
      inequality ``I₃ ≤ I₁ + I₂`` (``I₁ + I₂ − I₃ = 2 ∫ z² dm ≥ 0`` for every mass distribution), to 1e-6 of the
      largest;
    * note: the uniform box with these principal moments (sides ``a² = 6 (I₂ + I₃ − I₁)/m`` ...) lighter than
      :data:`MIN_BOX_DENSITY` — a mass typed in tonnes where kg is meant, or an inertia in g mm² or too large.
    """
    if isinstance(mass, (str, bytes, bool)) or not isinstance(mass, (int, float, np.integer, np.floating)):
        raise ModelError(f"body {name!r}: mass must be a number in kg, got {mass!r} ({type(mass).__name__})")
    if not (np.isfinite(mass) and mass > 0.0):
        raise ModelError(f"body {name!r}: mass must be a positive, finite number in kg, got {mass!r}")
    j_c = np.asarray(inertia, dtype=float)
    if not np.all(np.isfinite(j_c)):
        raise ModelError(f"body {name!r}: inertia must be finite numbers in kg m², got {j_c.tolist()}")
    moments = np.sort(np.linalg.eigvalsh(0.5 * (j_c + j_c.T)))
    if moments[0] < 0.0:
        raise ModelError(f"body {name!r}: inertia tensor is not positive semi-definite (principal inertias "
                         f"{moments[0]:.4g}, {moments[1]:.4g}, {moments[2]:.4g} kg m²)")
    if moments[2] > (moments[0] + moments[1]) + 1e-6 * moments[2]:
        raise ModelError(f"body {name!r}: principal inertias {moments[0]:.4g}, {moments[1]:.4g}, {moments[2]:.4g} "
                         f"kg m² break the triangle inequality (the largest exceeds the sum of the other two; no "
                         "mass distribution has them): check the values and their axes")
    if moments[2] == 0.0:  # issue 43: accepted without a word
        return [f"body {name!r}: inertia is zero: a rigid body of {mass:.4g} kg needs rotational inertia unless joints "
                "hold every rotation (else the run stops with a singular mass matrix); give its inertia in kg m²"]
    sides2 = 6.0 * (moments.sum() - 2.0 * moments) / float(mass)
    if np.all(sides2 > 0.0):
        sides = np.sqrt(sides2)
        density = float(mass) / float(np.prod(sides))
        box = (f"body {name!r}: mass {mass:.4g} kg with principal inertias up to {moments[2]:.3g} kg m² is a uniform "
               f"box of {sides[0]:.3g} x {sides[1]:.3g} x {sides[2]:.3g} m weighing {density:.2g} kg/m³, ")
        if density > MAX_BOX_DENSITY:  # issue 43: a mass in g typed as kg (5000 kg with 1e-6 kg m²)
            return [box + "thousands of times denser than any material: a mass in g typed as kg (or an inertia in g m² "
                    "or kg mm²)? mass is in kg, inertia in kg m²"]
        if density < MIN_BOX_DENSITY:
            return [box + "below a thousandth of air's density: a mass in tonnes typed as kg (or an inertia too "
                    "large)? mass is in kg, inertia in kg m²"]
    return []


def check_rigid_body(name: str, mass, inertia) -> None:
    """:func:`rigid_body_problems`, its notes issued as :class:`PlausibilityWarning` (one ``warning:`` line)."""
    for text in rigid_body_problems(name, mass, inertia):
        warnings.warn(text, PlausibilityWarning, stacklevel=4)


def check_vector(owner: str, what: str, value, unit: str, size: int = 3) -> np.ndarray:
    """``value`` as a finite float vector of ``size`` numbers, or a one-line :class:`ModelError` naming ``what`` of
    ``owner`` and its unit (issue 43: a position of NaN ran, text raised numpy's ValueError)."""
    try:
        if isinstance(value, (str, bytes)):
            raise ValueError
        array = np.asarray(value, dtype=float).reshape(size)
    except (TypeError, ValueError):
        raise ModelError(f"{owner}: {what} must be {size} numbers in {unit}, got {value!r}") from None
    if not np.all(np.isfinite(array)):
        raise ModelError(f"{owner}: {what} must be finite numbers in {unit}, got {array.tolist()}")
    return array


def check_number(owner: str, what: str, value, unit: str) -> float:
    """``value`` as a finite float, or a one-line :class:`ModelError` naming ``what`` of ``owner`` and its unit
    (issue 43: a spring's damping of '1' ran as text, a preload of NaN ended in "the mass matrix is singular")."""
    try:
        if isinstance(value, (bool, str, bytes)) or value is None:
            raise TypeError
        number = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{owner}: {what} must be a number in {unit}, got {value!r} ({type(value).__name__})") \
            from None
    if not np.isfinite(number):
        raise ModelError(f"{owner}: {what} must be a finite number in {unit}, got {number}")
    return number


def check_marker(owner: str, what: str, marker) -> None:
    """A one-line :class:`ModelError` when ``marker`` is not a marker (issue 43: ``None`` raised an
    AttributeError)."""
    if not (hasattr(marker, "name") and hasattr(marker, "on_ground")):
        raise ModelError(f"{owner}: {what} must be a marker (model.add_marker(body, name, ...)), got "
                         f"{type(marker).__name__}")


# gravity above this (m/s², 10 g) is noted: mm/s² typed as m/s² makes it 1000 g (issue 43)
MAX_GRAVITY = 100.0


def check_gravity(name: str, gravity) -> None:
    """A :class:`PlausibilityWarning` for a gravity vector above :data:`MAX_GRAVITY`."""
    g = float(np.linalg.norm(gravity))
    if g > MAX_GRAVITY:
        warnings.warn(f"model {name!r}: gravity {g:.4g} m/s² is {g / 9.81:.3g} x Earth's: mm/s² typed as m/s²? "
                      "gravity is in m/s²", PlausibilityWarning, stacklevel=3)


def check_pose(name: str, position, orientation, velocity, angular_velocity) -> None:
    """A body's initial pose and velocity: finite vectors, an orientation that is a rotation (a 3x3 matrix within
    1e-3 of orthonormal with determinant +1, or a non-zero quaternion); one line naming the body otherwise."""
    owner = f"body {name!r}"
    for what, value, unit in (("position", position, "m"), ("velocity", velocity, "m/s"),
                              ("angular_velocity", angular_velocity, "rad/s")):
        check_vector(owner, what, value, unit)
    check_orientation(owner, orientation)


def check_orientation(owner: str, orientation) -> None:
    """An orientation that is a rotation (a 3x3 matrix within 1e-3 of orthonormal with determinant +1, or a
    non-zero quaternion), or None; one line naming ``owner`` otherwise (issue 43: a marker's was projected
    silently)."""
    if orientation is None:
        return
    try:
        if isinstance(orientation, (str, bytes)):
            raise ValueError
        arr = np.asarray(orientation, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{owner}: orientation must be a 3x3 rotation matrix or a quaternion, got "
                         f"{orientation!r}") from None
    if not np.all(np.isfinite(arr)):
        raise ModelError(f"{owner}: orientation must be finite numbers, got {arr.tolist()}")
    if arr.shape == (4,) and not np.linalg.norm(arr) > 0.0:
        raise ModelError(f"{owner}: orientation quaternion is zero; give [e0, e1, e2, e3] of a rotation")
    if arr.shape == (3, 3):
        error = float(np.max(np.abs(arr.T @ arr - np.eye(3))))
        if error > 1e-3 or np.linalg.det(arr) < 0.0:
            raise ModelError(f"{owner}: orientation is not a rotation matrix (columns orthonormal to "
                             f"{error:.2g}, determinant {np.linalg.det(arr):.3g}): give the body axes in global "
                             "coordinates as orthonormal columns, right-handed")
