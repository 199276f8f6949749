"""3D Euler–Bernoulli frame element (2 nodes, 6 dofs per node), assembled by hand.

scikit-fem has no 3D frame element with rotational dofs (its beam elements are 1D/2D Hermite elements for scalar
deflection), so the classical element is written here, vectorized over elements: axial ``EA/L``, torsion ``GJ/L``,
bending in the local x–y plane with ``I_z`` and in the x–z plane with ``I_y`` (cubic Hermite), consistent mass with
translational ``ρAL/420`` Hermite blocks and torsional ``ρ(I_y+I_z)L/6``. Shear deformation and rotary inertia of
bending are neglected (Euler–Bernoulli), as in the seed 003 §2.1.3 link.

Local dof order per node: ``u, v, w, θx, θy, θz``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fem.errors import ModelError

__all__ = ["BeamSection", "FrameData", "rectangular_section", "circular_section", "frame_element_matrices",
           "frame_axes", "frame_axial_forces", "frame_geometric_stiffness"]


@dataclass(frozen=True)
class BeamSection:
    """Cross-section properties.

    Attributes
    ----------
    area : float, m²
    iy, iz : float, m⁴
        Second moments about the local y and z axes.
    torsion : float, m⁴
        Saint-Venant torsion constant J.
    """

    area: float
    iy: float
    iz: float
    torsion: float


@dataclass(frozen=True)
class FrameData:
    """What a frame model keeps of its elements for later analyses (geometric stiffness, :mod:`fem.geometric`).

    Attributes
    ----------
    elements : (n_el, 2) int
        Node indices of each element.
    section : BeamSection
    youngs_modulus : float, Pa
    orientation : (3,) float or None
    """

    elements: np.ndarray
    section: BeamSection
    youngs_modulus: float
    orientation: object = None


def rectangular_section(width_y: float, height_z: float) -> BeamSection:
    """Solid rectangle b (along local y) × h (along local z); J from the series approximation of Roark
    (``J = a b³ (1/3 − 0.21 (b/a)(1 − b⁴/(12 a⁴)))``, a ≥ b, within 0.5 %)."""
    a, b = max(width_y, height_z), min(width_y, height_z)
    torsion = a * b**3 * (1.0 / 3.0 - 0.21 * (b / a) * (1.0 - b**4 / (12.0 * a**4)))
    return BeamSection(width_y * height_z, width_y * height_z**3 / 12.0, height_z * width_y**3 / 12.0, torsion)


def circular_section(diameter: float) -> BeamSection:
    """Solid circle: A = πd²/4, I = πd⁴/64, J = πd⁴/32."""
    i = np.pi * diameter**4 / 64.0
    return BeamSection(np.pi * diameter**2 / 4.0, i, i, 2.0 * i)


def _bending_blocks(length: np.ndarray, sign: float) -> tuple[np.ndarray, np.ndarray]:
    """Hermite stiffness (per EI) and mass (per ρA) blocks over (v1, θ1, v2, θ2), shape (n, 4, 4)."""
    L = length[:, None, None]
    k = np.array([[12, 6, -12, 6], [6, 4, -6, 2], [-12, -6, 12, -6], [6, 2, -6, 4]], dtype=float)
    m = np.array([[156, 22, 54, -13], [22, 4, 13, -3], [54, 13, 156, -22], [-13, -3, -22, 4]], dtype=float)
    # powers of L per entry: translation-translation 0, translation-rotation 1, rotation-rotation 2
    p = np.array([[0, 1, 0, 1], [1, 2, 1, 2], [0, 1, 0, 1], [1, 2, 1, 2]])
    s = np.diag([1.0, sign, 1.0, sign])
    k_blocks = (s @ k @ s)[None] * L ** p[None] / L**3
    m_blocks = (s @ m @ s)[None] * L ** p[None] * L / 420.0
    return k_blocks, m_blocks


def frame_axes(positions: np.ndarray, elements: np.ndarray, orientation: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """Local axes (n_el, 3, 3) (rows: local x, y, z in global components) and lengths (n_el,) m of frame
    elements; ``orientation`` as in :func:`frame_element_matrices`."""
    d = positions[elements[:, 1]] - positions[elements[:, 0]]
    length = np.linalg.norm(d, axis=1)
    if np.any(length <= 0):
        raise ModelError("a frame element has zero length; check its two node positions")
    ex = d / length[:, None]
    ref = np.tile(np.asarray(orientation if orientation is not None else [0.0, 0.0, 1.0], float), (len(d), 1))
    parallel = np.linalg.norm(np.cross(ex, ref), axis=1) < 1e-8
    ref[parallel] = [0.0, 1.0, 0.0] if orientation is None else ref[parallel]
    ey = ref - np.einsum("ij,ij->i", ref, ex)[:, None] * ex
    if np.any(np.linalg.norm(ey, axis=1) < 1e-8):
        raise ModelError("frame element orientation vector is parallel to an element axis")
    ey /= np.linalg.norm(ey, axis=1)[:, None]
    ez = np.cross(ex, ey)
    return np.stack([ex, ey, ez], axis=1), length


def frame_element_matrices(positions: np.ndarray, elements: np.ndarray, section: BeamSection,
                           youngs_modulus: float, shear_modulus: float, density: float,
                           orientation: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Global stiffness and consistent mass matrices of frame elements.

    Parameters
    ----------
    positions : (n_nodes, 3) float, m
    elements : (n_el, 2) int
    section : BeamSection
    youngs_modulus, shear_modulus : float, Pa
    density : float, kg/m³
    orientation : (3,) float, optional
        A vector in the local x–y plane (default: global z unless the element is parallel to it, then global y);
        local y is its part normal to the element axis.

    Returns
    -------
    stiffness, mass : (n_el, 12, 12) float in global axes, dof order ``[u1 v1 w1 θ1 | u2 v2 w2 θ2]``.
    """
    rot, length = frame_axes(positions, elements, orientation)
    n = len(length)
    k = np.zeros((n, 12, 12))
    m = np.zeros((n, 12, 12))
    E, G, rho, A = youngs_modulus, shear_modulus, density, section.area
    pair = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for dof, coef_k, coef_m in ((0, E * A, rho * A), (3, G * section.torsion, rho * (section.iy + section.iz))):
        idx = np.ix_([dof, dof + 6], [dof, dof + 6])
        k[(slice(None),) + idx] = coef_k / length[:, None, None] * pair
        m[(slice(None),) + idx] = coef_m * length[:, None, None] / 6.0 * (pair + 3.0 * np.eye(2))
    for (trans, rot_dof, inertia, sign) in ((1, 5, section.iz, 1.0), (2, 4, section.iy, -1.0)):
        kb, mb = _bending_blocks(length, sign)
        idx = np.ix_([trans, rot_dof, trans + 6, rot_dof + 6], [trans, rot_dof, trans + 6, rot_dof + 6])
        k[(slice(None),) + idx] = E * inertia * kb
        m[(slice(None),) + idx] = rho * A * mb
    return _to_global(rot, k), _to_global(rot, m)


def _to_global(rot: np.ndarray, local: np.ndarray) -> np.ndarray:
    """``Tᵀ k T`` per element, ``T = diag(rot, rot, rot, rot)``: (n_el, 12, 12) local -> global axes."""
    transform = np.zeros(local.shape)
    for block in range(4):
        transform[:, 3 * block:3 * block + 3, 3 * block:3 * block + 3] = rot
    return np.einsum("nji,njk,nkl->nil", transform, local, transform, optimize=True)


def frame_axial_forces(positions: np.ndarray, elements: np.ndarray, axial_stiffness: float,
                       translations: np.ndarray) -> np.ndarray:
    """Axial force ``N = EA/L · e_x·(u₂ − u₁)`` of frame elements (tension positive), N.

    Parameters
    ----------
    positions : (n_nodes, 3) float, m
    elements : (n_el, 2) int
    axial_stiffness : float
        ``EA``, N.
    translations : (n_nodes, 3) or (n_nodes, 3, k) float, m
        Nodal translations in global axes (k displacement fields at once).

    Returns
    -------
    (n_el,) or (n_el, k) float, N
    """
    rot, length = frame_axes(positions, elements)
    u = np.asarray(translations, dtype=float)
    du = u[elements[:, 1]] - u[elements[:, 0]]
    stretch = np.einsum("ni,ni...->n...", rot[:, 0, :], du)
    return axial_stiffness * stretch / length.reshape((-1,) + (1,) * (stretch.ndim - 1))


def frame_geometric_stiffness(positions: np.ndarray, elements: np.ndarray, section: BeamSection,
                              axial_force: np.ndarray, orientation: np.ndarray | None = None) -> np.ndarray:
    """Geometric (stress) stiffness of frame elements carrying an axial force ``N`` (tension positive), global axes.

    The consistent form for cubic Hermite bending and linear torsion with the axial force alone (bending moments
    and shear left out; McGuire, Gallagher & Ziemian, *Matrix Structural Analysis*, 2nd ed. 2000, eq. (9.19) with
    ``M = 0``; Przemieniecki 1968 §15): in each bending plane over ``(v₁, θ₁, v₂, θ₂)``::

        N/(30 L) [[36, 3L, −36, 3L], [3L, 4L², −3L, −L²], [−36, −3L, 36, −3L], [3L, −L², −3L, 4L²]]

    and ``N I_p/(A L) [[1, −1], [−1, 1]]`` on the twists (``I_p = I_y + I_z``, Wagner term of a doubly symmetric
    section). For a pinned–pinned column it gives the Euler load ``π² EI/L²`` (from above, as the mesh is refined).

    Parameters
    ----------
    positions : (n_nodes, 3) float, m
    elements : (n_el, 2) int
    section : BeamSection
    axial_force : (n_el,) float, N
    orientation : see :func:`frame_element_matrices`

    Returns
    -------
    (n_el, 12, 12) float, N/m (N on rotations)
    """
    rot, length = frame_axes(positions, elements, orientation)
    n_el = len(length)
    force = np.asarray(axial_force, dtype=float).reshape(n_el)
    L = length[:, None, None]
    g = np.array([[36, 3, -36, 3], [3, 4, -3, -1], [-36, -3, 36, -3], [3, -1, -3, 4]], dtype=float)
    p = np.array([[0, 1, 0, 1], [1, 2, 1, 2], [0, 1, 0, 1], [1, 2, 1, 2]])
    local = np.zeros((n_el, 12, 12))
    for trans, rot_dof, sign in ((1, 5, 1.0), (2, 4, -1.0)):
        s = np.diag([1.0, sign, 1.0, sign])
        block = (s @ g @ s)[None] * L ** p[None] / (30.0 * L) * force[:, None, None]
        idx = np.ix_([trans, rot_dof, trans + 6, rot_dof + 6], [trans, rot_dof, trans + 6, rot_dof + 6])
        local[(slice(None),) + idx] = block
    polar = (section.iy + section.iz) / section.area
    idx = np.ix_([3, 9], [3, 9])
    local[(slice(None),) + idx] = (force * polar / length)[:, None, None] * np.array([[1.0, -1.0], [-1.0, 1.0]])
    return _to_global(rot, local)
