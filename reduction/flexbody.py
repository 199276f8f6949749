"""The reduced flexible body: what the floating-frame multibody formulation needs from a reduction.

A :class:`FlexBody` holds an elastic basis ``S`` (seed 003 eq. (2-143), rigid-body modes removed) that is
mass-orthonormal (``Sᵀ M S = I``) and stiffness-diagonal (``Sᵀ K S = diag(ω²)``), the undeformed node positions
in the body frame, the shape rows of the nodes the multibody side may attach to or draw, and the inertia invariants
I1..I9 of seed 003 eq. (2-163..2-171) so that the generalized mass matrix ``M(q)`` is cheap to form.

Invariants from the consistent mass matrix
------------------------------------------
Seed 003 eq. (2-144) lumps the kinetic energy to nodal masses ``m_p`` and writes the invariants as nodal sums.
We evaluate the same invariants as bilinear forms of the consistent FE mass matrix ``M`` with three kinds of
displacement fields over the FE dofs (translational rows per node, rotational rows where a node has them):

* ``Tt`` (ndof, 3): rigid translation along the body axes ``e_k``;
* ``Rr0`` (ndof, 3): rigid rotation about ``e_k`` of the undeformed body, ``e_k × s_p`` at translational dofs
  and ``e_k`` at rotational dofs;
* ``R_j`` (ndof, 3): the change of that rotation field per unit elastic coordinate ``q_j``, ``e_k × S_j,p`` at
  translational dofs (zero at rotational dofs: nodal rotations are small, eq. (2-150)).

With ``M`` diagonal (lumped) these reduce exactly to the nodal sums of the seed; with the consistent ``M`` they are
exact for the FE discretization, which is why ``I1``, ``I2`` and ``I7`` equal the full model's rigid-body mass
properties to round-off. The kinetic energy of a body with frame velocity ``v``, angular velocity ``ω`` (both in
body axes) and elastic rates ``q̇`` is then ``T = ½ [v ω q̇]ᵀ M(q) [v ω q̇]`` with

* ``M_vv = I1 · 1``
* ``M_vω = -skew(I2 + I3 q)``                       (first moment of the deformed body)
* ``M_vq = I3``
* ``M_ωω = I7 + Σ_j q_j (I8_j + I8_jᵀ) + Σ_jk q_j q_k I9_jk``
* ``M_ωq = I4 + Σ_j q_j I5_j``
* ``M_qq = I6`` (the identity for an orthonormal basis)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from fem.linalg import spmm
from fem.rigid_body import rigid_body_fields  # noqa: F401  (re-exported: reduction uses it for rigid-mode removal)

__all__ = ["Interface", "SlidingPath", "Invariants", "FlexBody", "compute_invariants", "rigid_body_fields"]


@dataclass
class Interface:
    """An attachment point of a flexible body (an RBE2/RBE3 reference node or a bare FE node).

    Attributes
    ----------
    name : str
    node : int
        Index into :attr:`FlexBody.node_ids` / :attr:`FlexBody.positions` of the reference node.
    spider : str
        ``"rbe2"``, ``"rbe3"`` or ``"node"``.
    connected_node_ids : ndarray of int
        Mesh node ids tied to the reference node by the spider.
    retained_dofs : str
        Which of the reference node's dofs are Craig–Bampton boundary dofs, e.g. ``"123456"`` or ``"123"``.
    """

    name: str
    node: int
    spider: str = "rbe2"
    connected_node_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    retained_dofs: str = "123456"


@dataclass
class SlidingPath:
    """A named chain of nodes a slider may run along (``flexmbs.SlidingContact``, seed 003 §5.1.1).

    Attributes
    ----------
    name : str
    nodes : (k,) int
        Indices into :attr:`FlexBody.node_ids`, sorted along the path.
    retained_dofs : str
        Translational dofs of every path node kept as Craig–Bampton boundary dofs (e.g. ``"3"``: exact static
        response to loads along z), or ``""`` for interior nodes (modal recovery only, as in the thesis).
    """

    name: str
    nodes: np.ndarray
    retained_dofs: str = ""


@dataclass
class Invariants:
    """Inertia invariants of seed 003 eq. (2-163..2-171), evaluated with the consistent mass matrix.

    Shapes use ``m`` = number of elastic modes. All in body-frame axes, SI units.

    Attributes
    ----------
    mass : float                 I1, kg
    first_moment : (3,)          I2 = ∫ρ s dV, kg m
    first_moment_modes : (3, m)  I3 = ∫ρ S dV, kg
    inertia : (3, 3)             I7 = ∫ρ s̃ᵀ s̃ dV, inertia tensor about the frame origin, kg m²
    rotation_modes : (3, m)      I4 = ∫ρ s̃ S dV, kg m
    rotation_modes_q : (m, 3, m) I5_j = ∫ρ S̃_j S dV, kg
    inertia_q : (m, 3, 3)        I8_j = ∫ρ S̃_jᵀ s̃ dV, kg m
    inertia_qq : (m, m, 3, 3)    I9_jk = ∫ρ S̃_jᵀ S̃_k dV, kg
    modal_mass : (m, m)          I6 = ∫ρ Sᵀ S dV (identity for an orthonormal basis)
    """

    mass: float
    first_moment: np.ndarray
    first_moment_modes: np.ndarray
    inertia: np.ndarray
    rotation_modes: np.ndarray
    rotation_modes_q: np.ndarray
    inertia_q: np.ndarray
    inertia_qq: np.ndarray
    modal_mass: np.ndarray


@dataclass
class FlexBody:
    """A reduced flexible body ready for the floating-frame formulation.

    Attributes
    ----------
    name : str
    node_ids : (n,) int
        Mesh ids of the nodes kept in the body (all mesh nodes, so surfaces can be drawn deformed), followed by
        the interface reference nodes (ids above the mesh's largest id).
    positions : (n, 3) float, m
        Undeformed node positions in the body frame (the mesh's coordinate system).
    translations : (n, 3, m) float
        Translational shape rows ``S_p`` (eq. 2-145), m per unit modal coordinate.
    rotations : (n, 3, m) float
        Rotational shape rows ``S_p^θ`` (eq. 2-148), rad per unit modal coordinate; zero where a node has no
        rotational dofs (see ``has_rotation``).
    has_rotation : (n,) bool
    frequencies_hz : (m,) float
        Elastic frequencies of the orthonormalized basis (``K_ff = diag((2π f)²)``).
    damping_ratios : (m,) float
    invariants : Invariants
    interfaces : list of Interface
    output_nodes : (n_out,) int
        Indices into ``node_ids`` of the nodes with modal stress.
    modal_stress : (n_out, 6, m) float, Pa per unit modal coordinate
        Stress components ``xx, yy, zz, yz, xz, xy``.
    nodal_masses : (n,) float, kg
        HRZ-lumped nodal masses (positive, summing to the body mass) for drawing and for lumped approximations.
    surface : (n_tri, 3) int
        Triangles over node indices, for drawing.
    report : dict
        Reduction report (fixed-interface, full free–free and reduced frequencies, MAC, counts, source, timing).
    stress_field : reduction.stressfield.StressField or None
        Modal stress over the surface, all nodes or node sets (float32), for durability; None in older files.
    geometric_stiffness : reduction.geometric.GeometricStiffness or None
        Modal geometric stiffness of the unit load cases (``reduce(..., geometric_stiffness=True)``); None when
        not asked for and in older files.
    """

    name: str
    node_ids: np.ndarray
    positions: np.ndarray
    translations: np.ndarray
    rotations: np.ndarray
    has_rotation: np.ndarray
    frequencies_hz: np.ndarray
    damping_ratios: np.ndarray
    invariants: Invariants
    interfaces: list[Interface] = field(default_factory=list)
    output_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    modal_stress: np.ndarray = field(default_factory=lambda: np.zeros((0, 6, 0)))
    nodal_masses: np.ndarray = field(default_factory=lambda: np.zeros(0))
    surface: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=int))
    report: dict = field(default_factory=dict)
    stress_field: object = None  # reduction.stressfield.StressField
    paths: dict = field(default_factory=dict)  # name -> SlidingPath
    geometric_stiffness: object = None  # reduction.geometric.GeometricStiffness (issue 28), None if not asked

    @property
    def n_modes(self) -> int:
        return int(self.frequencies_hz.size)

    def __repr__(self) -> str:
        f = self.frequencies_hz
        span = f"{f.min():.4g}–{f.max():.4g} Hz" if f.size else "none"
        faces = ", ".join(f"{i.name} ({i.spider}, {i.retained_dofs})" for i in self.interfaces)
        return (f"FlexBody({self.name!r}, {self.n_modes} elastic modes {span}, {self.node_ids.size} nodes, "
                f"{self.invariants.mass:.6g} kg, interfaces {faces or 'none'})")

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(repr(self))}</pre>"

    @property
    def stiffness(self) -> np.ndarray:
        """Modal stiffness ``K_ff = diag(ω²)``, (m, m), N m / (kg m²) per unit modal coordinate squared."""
        omega = 2.0 * np.pi * self.frequencies_hz
        return np.diag(omega**2)

    @property
    def damping(self) -> np.ndarray:
        """Modal damping matrix ``D_ff = diag(2 ζ ω)`` (seed 003 eq. 2-172, 2-173 with unit modal masses)."""
        omega = 2.0 * np.pi * self.frequencies_hz
        return np.diag(2.0 * self.damping_ratios * omega)

    def interface(self, name: str) -> Interface:
        """The interface called ``name``; a clear error lists the known names otherwise."""
        for itf in self.interfaces:
            if itf.name == name:
                return itf
        from fem.errors import ModelError

        known = ", ".join(i.name for i in self.interfaces) or "none"
        raise ModelError(f"flexible body {self.name!r} has no interface {name!r}; it has: {known}")

    def node_index(self, node_id: int) -> int:
        """Index of mesh node ``node_id`` in this body's node arrays."""
        hits = np.flatnonzero(self.node_ids == node_id)
        if hits.size == 0:
            from fem.errors import ModelError

            raise ModelError(f"flexible body {self.name!r} has no node with id {node_id}")
        return int(hits[0])


def compute_invariants(
    mass_matrix: sp.spmatrix,
    modes: np.ndarray,
    positions: np.ndarray,
    translation_dofs: np.ndarray,
    rotation_dofs: np.ndarray | None = None,
) -> Invariants:
    """Invariants I1..I9 of seed 003 eq. (2-163..2-171) as bilinear forms of the consistent mass matrix.

    Parameters
    ----------
    mass_matrix : (ndof, ndof) sparse, kg (kg m² on rotational dofs)
    modes : (ndof, m) float
        Elastic basis ``S`` over all FE dofs.
    positions : (n_nodes, 3) float, m
    translation_dofs, rotation_dofs : see :func:`rigid_body_fields`

    Returns
    -------
    Invariants
    """
    ndof, m = modes.shape
    tt, rr0 = rigid_body_fields(positions, translation_dofs, rotation_dofs, ndof)
    ms = spmm(mass_matrix, modes)  # (ndof, m)
    mrr0 = mass_matrix @ rr0  # (ndof, 3)
    mtt = mass_matrix @ tt
    trans = translation_dofs.ravel()
    # R_j = e_k × S_j lives at the translational dofs only, so R_jᵀ (M X) = Σ_p (e_k × s_j(p))·(M X)(p)
    # = Σ_ab ε_kab Σ_p s_j,a(p) (M X)_b(p): per-component products of the shape rows with M S and M Rr0
    # node rows (n_nodes, 3, ·) in two parts: a view of the leading nodes whose dofs are 0, 1, 2, ... in order (the
    # mesh nodes of a solid model) and a copy of the others (issue 31: no 71 MB copies of S and M S at 60k dofs)
    lead = _ordered_lead(translation_dofs)
    parts = [tuple(_rows(x, translation_dofs, nodes) for x in (modes, ms, mrr0)) for nodes in lead]
    g = sum(_component_products(s, m_s) for s, m_s, _ in parts)  # G_ab = S_aᵀ (M S)_b, (3, 3, m, m)
    h = sum(_component_products(s, m_r) for s, _, m_r in parts)  # H_ab = S_aᵀ (M Rr0)_b, (3, 3, m, 3)

    mass = float(np.trace(tt.T @ mtt) / 3.0)
    first_moment = (tt.T @ (mass_matrix @ _position_field(positions, translation_dofs, ndof))).ravel()
    first_moment_modes = tt.T @ ms
    inertia = rr0.T @ mrr0
    rotation_modes = rr0.T @ ms
    rotation_modes_q = _cross_contract(g).transpose(1, 0, 2)  # I5_j[k, i] = Σ_ab ε_kab G_ab[j, i]
    inertia_q = _cross_contract(h).transpose(1, 0, 2)  # I8_j[k, l] = Σ_ab ε_kab H_ab[j, l]
    if _isotropic_translational_mass(mass_matrix, translation_dofs, ndof):
        # M's 3 × 3 node blocks are multiples of I (a solid's kron(M_s, I_3), point masses): M (e_l × S) = e_l × (M S)
        # at the nodes, so I9_jk[k, l] = R_jᵀ M R_k = δ_kl Σ_a G_aa[j, i] − G_lk[j, i]; no (ndof, 3 m) products (at
        # 147 modes and 60k dofs the general form's 441 × ndof × 441 product was 23 GFlop)
        inertia_qq = -g.transpose(2, 3, 1, 0).copy()  # [j, i, k, l] = −G_lk[j, i]
        trace = g[0, 0] + g[1, 1] + g[2, 2]
        for k in range(3):
            inertia_qq[:, :, k, k] += trace
    else:  # general mass matrix: R as (ndof, 3 m) columns (k, j) -> k m + j
        r_flat = np.zeros((ndof, 3 * m))
        r_flat[trans, :] = _skew_columns_modes(modes[trans, :].reshape(-1, 3, m)).reshape(-1, 3 * m)
        inertia_qq = (r_flat.T @ spmm(mass_matrix, r_flat)).reshape(3, m, 3, m).transpose(1, 3, 0, 2)
    modal_mass = modes.T @ ms
    return Invariants(
        mass=mass,
        first_moment=first_moment,
        first_moment_modes=first_moment_modes,
        inertia=inertia,
        rotation_modes=rotation_modes,
        rotation_modes_q=rotation_modes_q,
        inertia_q=inertia_q,
        inertia_qq=inertia_qq,
        modal_mass=modal_mass,
    )


def _ordered_lead(translation_dofs: np.ndarray) -> tuple[slice, slice]:
    """Node ranges ``(leading, rest)``: the leading nodes are those whose translation dofs are ``0, 1, 2, ...`` in
    order (their rows of a dof array are a contiguous block), the rest need a gather."""
    flat = np.asarray(translation_dofs).ravel()
    off = np.flatnonzero(flat != np.arange(flat.size))
    p = (int(off[0]) if off.size else flat.size) // 3
    return slice(0, p), slice(p, len(translation_dofs))


def _rows(x: np.ndarray, translation_dofs: np.ndarray, nodes: slice) -> np.ndarray:
    """Translation rows of ``x`` (ndof, c) for the nodes ``nodes`` of :func:`_ordered_lead`, (n, 3, c): a view for
    the leading block (``x`` C-contiguous), a copy otherwise."""
    if nodes.start == 0:
        return x[:3 * nodes.stop].reshape(nodes.stop, 3, x.shape[1])
    return x[np.asarray(translation_dofs)[nodes].ravel()].reshape(-1, 3, x.shape[1])


def _component_products(rows: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``out[a, b] = rows[:, a, :]ᵀ other[:, b, :]`` for node rows (n, 3, m) and (n, 3, c): (3, 3, m, c).

    One (3 m × n)(n × 3 c) product instead of nine strided ones (issue 31: 0.17 s against 0.26 s for 147 modes at
    20k nodes)."""
    n, _, m = rows.shape
    c = other.shape[2]
    products = rows.reshape(n, 3 * m).T @ other.reshape(n, 3 * c)
    return np.ascontiguousarray(products.reshape(3, m, 3, c).transpose(0, 2, 1, 3))


def _cross_contract(products: np.ndarray) -> np.ndarray:
    """``Σ_ab ε_kab products[a, b]`` for k = x, y, z: (3, m, c) from (3, 3, m, c)."""
    p = products
    return np.stack([p[1, 2] - p[2, 1], p[2, 0] - p[0, 2], p[0, 1] - p[1, 0]])


def _isotropic_translational_mass(mass_matrix, translation_dofs: np.ndarray, ndof: int) -> bool:
    """True when the translational part of ``mass_matrix`` commutes with the nodal cross products ``e_l × ·``
    (every 3 × 3 node block a multiple of I: a solid's ``kron(M_s, I_3)``, point masses), tested on one random
    field to 1e-10 relative (a matrix that does not commute fails with probability one; round-off is 1e-16)."""
    trans = translation_dofs.ravel()
    v = np.random.default_rng(0).standard_normal((translation_dofs.shape[0], 3))
    fields = np.zeros((ndof, 4))
    fields[trans, 0] = v.ravel()
    for l, e in enumerate(np.eye(3)):
        fields[trans, l + 1] = np.cross(e, v).ravel()
    image = (mass_matrix @ fields)[trans, :].reshape(-1, 3, 4)
    scale = float(np.abs(image).max())
    if scale == 0.0:
        return False
    return all(float(np.abs(image[:, :, l + 1] - np.cross(e, image[:, :, 0])).max()) <= 1e-10 * scale
               for l, e in enumerate(np.eye(3)))


def _skew_columns_modes(rows: np.ndarray) -> np.ndarray:
    """(n, 3, m) shape rows -> (n, 3, 3, m) with [p, :, k, j] = e_k × S_j,p."""
    out = np.zeros((rows.shape[0], 3, 3, rows.shape[2]))
    x, y, z = rows[:, 0], rows[:, 1], rows[:, 2]
    out[:, 1, 0], out[:, 2, 0] = -z, y
    out[:, 0, 1], out[:, 2, 1] = z, -x
    out[:, 0, 2], out[:, 1, 2] = -y, x
    return out


def _position_field(positions: np.ndarray, translation_dofs: np.ndarray, ndof: int) -> np.ndarray:
    """The undeformed position vector as a field over the dofs: (ndof, 1), s_p at node p's translations."""
    field_ = np.zeros((ndof, 1))
    field_[translation_dofs.ravel(), 0] = positions.ravel()
    return field_
