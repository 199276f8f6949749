"""Solid elements with scikit-fem: consistent stiffness and mass, lumped mass, nodal stress recovery.

scikit-fem supplies the meshes (``MeshTet``, ``MeshTet2``, ``MeshHex``, ``MeshHex2`` from meshio, so quadratic
elements are isoparametric and curved bores keep their shape), the elements (``ElementTetP1/P2``,
``ElementHex1/2``, ``ElementHexS2``), the quadrature and the shape-function gradients. The 20-node serendipity
hexahedron (ANSYS SOLID186, Abaqus C3D20) is mapped by its corners (subparametric): its mid-side nodes must lie
on straight edges, which :func:`discretize` checks; it is integrated fully (3 × 3 × 3 points would do for the
stiffness; order 5 is used as for ``ElementHex2``), not with the 2 × 2 × 2 reduced rule that is SOLID186's and
C3D20R's default, so it is slightly stiffer than those. The isotropic element stiffness

    K_e[a i, b j] = Σ_q w_q (λ ∂_i N_a ∂_j N_b + μ ∂_j N_a ∂_i N_b + μ δ_ij ∇N_a·∇N_b)

is contracted here with batched matrix products instead of skfem's generic ``linear_elasticity`` form, which
evaluates the form entry by entry and took 25 s (against about 2 s) on a 143 000-dof mesh. Mass is
``kron(M_scalar, I_3)``. Quadrature orders: P1 2, P2 4, Q1 3, Q2 5 (exact mass on affine elements).

Dof numbering: node ``p`` of the :class:`fem.mesh.Mesh` owns dofs ``3 p + (0, 1, 2)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import meshio
import numpy as np
import scipy.sparse as sp
import skfem
from scipy.spatial import cKDTree
from skfem.io.meshio import from_meshio as _skfem_from_meshio

from fem.errors import MeshError
from fem.mesh import Mesh

__all__ = ["SolidDiscretization", "discretize", "assemble_stiffness", "assemble_mass", "lumped_mass",
           "nodal_stress", "von_mises", "surface_nodes"]

_ELEMENTS = {
    "tetra": (skfem.ElementTetP1, 2),
    "tetra10": (skfem.ElementTetP2, 4),
    "hexahedron": (skfem.ElementHex1, 3),
    "hexahedron20": (skfem.ElementHexS2, 5),
    "hexahedron27": (skfem.ElementHex2, 5),
}
_CHUNK = 2000  # elements per batch: (chunk, nb, nb, 3, 3) work arrays of ≈ 14 MB for tet10 (8000: 1.6× slower)


@dataclass
class SolidDiscretization:
    """scikit-fem objects for a :class:`Mesh` and the maps between their numbering and ours.

    Attributes
    ----------
    mesh : Mesh
    skmesh : skfem.Mesh
    element : skfem.Element (scalar)
    basis : skfem.CellBasis (scalar, with the quadrature above)
    element_nodes : (n_elements, nb) int
        Our node index of each local scalar dof of each skfem element.
    element_order : (n_elements,) int
        Our element index of each skfem element (per-region materials use it).
    """

    mesh: Mesh
    skmesh: skfem.Mesh
    element: skfem.Element
    basis: skfem.CellBasis
    element_nodes: np.ndarray
    element_order: np.ndarray

    def release_pattern(self) -> None:
        """Drop the node-pair assembly pattern kept by :func:`_node_pattern` (rebuilt if asked for again)."""
        self._pattern = None

    def release_quadrature(self) -> None:
        """Replace the basis at the quadrature points (shape functions and gradients of every element, and
        scikit-fem's cached mapping: 0.13 GB at 177k dofs, issue 46) by one at a single point per element: its dofs
        and facets (:func:`surface_nodes`) and stress recovery (its own basis at the element nodes) stay; assembly,
        :func:`lumped_mass` and the geometric stiffness need the full basis and may not follow."""
        if getattr(self, "quadrature_released", False):
            return
        one = (self.element.doflocs.T[:, :1], np.ones(1))
        cached = getattr(self.skmesh, "_cached_mapping", None)
        if cached is not None and isinstance(getattr(cached, "_cache", None), dict):
            cached._cache.clear()
        self.basis = skfem.CellBasis(self.skmesh, self.element, quadrature=one)
        self.quadrature_released = True


def discretize(mesh: Mesh) -> SolidDiscretization:
    """Build the scikit-fem mesh and basis of ``mesh`` and map skfem dofs onto our nodes."""
    element_cls, intorder = _ELEMENTS[mesh.cell_type]
    if mesh.cell_type == "hexahedron20":  # serendipity: trilinear geometry from the corners
        skmesh = _skfem_from_meshio(meshio.Mesh(mesh.points, [("hexahedron", mesh.cells[:, :8])]))
    else:
        skmesh = _skfem_from_meshio(meshio.Mesh(mesh.points, [(mesh.cell_type, mesh.cells)]))
    element = element_cls()
    basis = skfem.CellBasis(skmesh, element, intorder=intorder)
    dof_locations = basis.doflocs.T  # (n_dofs, 3)
    tree = cKDTree(mesh.points)
    dist, node_of_dof = tree.query(dof_locations)
    size = float(np.max(np.ptp(mesh.points, axis=0)))
    if dist.max() > 1e-6 * size or np.unique(node_of_dof).size != mesh.n_nodes:
        raise MeshError(f"{mesh.source or 'the mesh'}: element nodes do not match the element geometry "
                        "(misplaced mid-side nodes?); remesh with straight or isoparametric quadratic elements"
                        + (" (20-node hexahedra need straight edges)" if mesh.cell_type == "hexahedron20" else ""))
    element_nodes = node_of_dof[basis.element_dofs.T]  # (n_elements, nb)
    n_corner = skmesh.t.shape[0]
    element_order = _match_elements(mesh.cells[:, :n_corner], element_nodes[:, :n_corner])
    return SolidDiscretization(mesh, skmesh, element, basis, element_nodes, element_order)


def _match_elements(ours: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """For each skfem element, the index of our element with the same corner nodes."""
    key_ours = np.sort(ours, axis=1)
    key_theirs = np.sort(theirs, axis=1)
    order_ours = np.lexsort(key_ours.T[::-1])
    order_theirs = np.lexsort(key_theirs.T[::-1])
    result = np.empty(len(theirs), dtype=np.int64)
    result[order_theirs] = order_ours
    if not np.array_equal(key_ours[result], key_theirs):
        raise MeshError("cannot match scikit-fem elements to the mesh cells (duplicate elements?)")
    return result


def _gradients(basis: skfem.CellBasis, rows: slice) -> np.ndarray:
    """Shape-function gradients, (n_chunk, n_qp, nb, 3)."""
    return np.stack([basis.basis[a][0].grad[:, rows, :] for a in range(len(basis.basis))], axis=0).transpose(
        2, 3, 0, 1)


def _node_pattern(disc: SolidDiscretization):
    """The node-pair sparsity pattern of the mesh, once per discretization (kept on ``disc``).

    Returns the CSR structure ``(indptr, indices)`` of the (n_nodes × n_nodes) node graph, sorted, and ``position``
    (n_elements nb²,) int32: the pattern entry of every element entry (entry ``e nb² + a nb + b`` goes to the block
    of nodes ``(element_nodes[e, a], element_nodes[e, b])``). Issue 46: the former (n_blocks × n_elements nb²)
    gather matrix held these positions with 16 more bytes per entry (1.4 GB at 3 M dofs), and its products made a
    dense n_blocks × 9 temporary per chunk of elements. The stiffness (3 × 3 blocks) and the mass (scalar blocks) share it: assembling into a known
    pattern replaces the COO → CSR conversion and duplicate summation of 9 × n_elements nb² entries (the 177k-dof
    tet10 bar: 33 M).

    Built without a global sort of the n_elements nb² node-pair keys (issue 31): the pattern is the product ``Eᵀ E`` of
    the (element × node) incidence matrix (SciPy's sparse product, rows then sorted), and the position of every element
    entry is looked up in that pattern holding the positions as values (SciPy's CSR element lookup: a binary search in
    one sorted row). The 177k-dof tet10 bar (3.7 M entries): 0.23–0.40 s instead of 0.5–0.85 s for
    ``np.unique(key, return_inverse=True)``, the same arrays (the call in ``solid_model``, 6 fresh processes each). A
    numba kernel (node → element incidence, one stamp array over the rows) took 0.10 s warm but 0.35–0.45 s on its
    first call in a process (numba's start-up and cache load), which is the one call a reduction makes.
    """
    cached = getattr(disc, "_pattern", None)
    if cached is not None:
        return cached
    nodes = disc.element_nodes
    n_el, nb = nodes.shape
    n = disc.mesh.n_nodes
    flat = nodes.ravel()
    # integer counts (the number of shared elements, ≥ 1): the product drops entries that sum to zero
    incidence = sp.csr_matrix((np.ones(flat.size, dtype=np.int32), flat, np.arange(0, flat.size + 1, nb)),
                              shape=(n_el, n))
    graph = (incidence.T.tocsr() @ incidence).tocsr()
    del incidence
    graph.sort_indices()
    indptr = graph.indptr.astype(np.int64)
    indices = graph.indices.astype(np.int32, copy=False)
    del graph
    slot = sp.csr_array((np.arange(indices.size, dtype=np.int32), indices, indptr), shape=(n, n))
    position = np.empty(n_el * nb * nb, dtype=np.int32)
    step = 50_000  # elements per lookup: the row and column temporaries stay ≈ 80 MB (issue 46: 3 M dofs)
    for start in range(0, n_el, step):
        part = nodes[start:start + step]
        position[start * nb * nb:(start + len(part)) * nb * nb] = np.asarray(
            slot[np.repeat(part.ravel(), nb), np.tile(part, (1, nb)).ravel()]).ravel()
    disc._pattern = (indptr, indices, position)
    return disc._pattern


def _element_stiffness(grad: np.ndarray, dx: np.ndarray, lam: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Element stiffness matrices in node-block layout ``K_e[c, a, b, i, j]`` (row dof ``3 a + i``, column
    ``3 b + j``), N/m: ``λ Σ w ∂_i N_a ∂_j N_b + μ Σ w ∂_j N_a ∂_i N_b + μ δ_ij Σ w ∇N_a·∇N_b`` (each term
    symmetric under ``(a i) ↔ (b j)``, so K_e is). The two sums are made symmetric bit for bit (einsum's products
    round differently on the two sides), and then so is K_e and the assembled K: :class:`fem.model.FEModel` forms
    ``Tᵀ K T`` without a transpose of K."""
    c, q, nb, _ = grad.shape
    g = grad.reshape(c, q, 3 * nb)  # index (a, i)
    outer = np.einsum("cqx,cqy,cq->cxy", g, g, dx, optimize=True)  # Σ w ∂_i N_a ∂_j N_b
    outer = (0.5 * (outer + outer.transpose(0, 2, 1))).reshape(c, nb, 3, nb, 3)
    lap = np.einsum("cqai,cqbi,cq->cab", grad, grad, dx, optimize=True)  # Σ w ∇N_a·∇N_b
    lap = 0.5 * (lap + lap.transpose(0, 2, 1))
    ke = np.empty((c, nb, nb, 3, 3))  # C order: the (c, a, b) blocks are rows of 9 for the block sum
    np.multiply(outer.transpose(0, 1, 3, 2, 4), lam[:, None, None, None, None], out=ke)
    ke += outer.transpose(0, 1, 3, 4, 2) * mu[:, None, None, None, None]
    lap *= mu[:, None, None]
    for i in range(3):
        ke[:, :, :, i, i] += lap
    return ke


def assemble_stiffness(disc: SolidDiscretization, lam: np.ndarray, mu: np.ndarray) -> sp.csr_matrix:
    """Consistent stiffness matrix, (3 n_nodes, 3 n_nodes), N/m.

    Parameters
    ----------
    disc : SolidDiscretization
    lam, mu : (n_elements,) float, Pa
        Lamé parameters per element of *our* numbering.

    Notes
    -----
    The element matrices are summed, in element order, straight into the CSR arrays of the node-pair pattern's
    3 × 3 blocks (:func:`_node_pattern`; linear, no sort of the 9 × n_elements nb² entries, no block matrix to convert:
    issue 46).
    """
    basis = disc.basis
    n_el, nb = disc.element_nodes.shape
    lam_sk, mu_sk = lam[disc.element_order], mu[disc.element_order]
    indptr, indices, position = _node_pattern(disc)
    # straight into the final CSR arrays (issue 46): the 3 × 3 block of pattern entry p (node row r) holds, in row
    # 3 r + i, the entries base[p] + i row3[p] + j, j = 0..2 (base = 9 indptr[r] + 3 (p − indptr[r]), row3 = 3 L_r)
    n_nodes = disc.mesh.n_nodes
    lengths = np.diff(indptr)
    row_of = np.repeat(np.arange(n_nodes, dtype=np.int64), lengths)
    base = 9 * indptr[row_of] + 3 * (np.arange(indices.size, dtype=np.int64) - indptr[row_of])
    row3 = 3 * lengths[row_of]
    del row_of
    nnz = 9 * indices.size
    index_dtype = np.int32 if nnz < 2**31 else np.int64
    data = np.zeros(nnz)
    for start in range(0, n_el, _CHUNK):
        sl = slice(start, min(start + _CHUNK, n_el))
        ke = _element_stiffness(_gradients(basis, sl), basis.dx[sl], lam_sk[sl], mu_sk[sl]).reshape(-1, 3, 3)
        p = position[start * nb * nb:sl.stop * nb * nb]
        b, r3 = base[p], row3[p]
        for i in range(3):  # element order within every entry: K stays symmetric bit for bit
            for j in range(3):
                np.add.at(data, b + (i * r3 + j), ke[:, i, j])
    columns = np.empty(nnz, dtype=index_dtype)
    for i in range(3):
        for j in range(3):
            columns[base + (i * row3 + j)] = 3 * indices.astype(index_dtype) + j
    del base, row3
    row_ptr = np.empty(3 * n_nodes + 1, dtype=index_dtype)
    row_ptr[0] = 0
    np.cumsum(np.repeat(3 * lengths, 3), out=row_ptr[1:])
    n = 3 * n_nodes
    out = sp.csr_matrix((data, columns, row_ptr), shape=(n, n))
    out.has_sorted_indices = True
    return out


def _scalar_mass_blocks(disc: SolidDiscretization, rho: np.ndarray, rows: slice = slice(None)) -> np.ndarray:
    """Element scalar mass matrices Σ_q w ρ N_a N_b, (n_elements, nb, nb) in skfem element order (the elements
    ``rows`` of that order)."""
    basis = disc.basis
    values = np.stack([np.asarray(basis.basis[a][0])[rows] for a in range(len(basis.basis))], axis=-1)  # (e, q, nb)
    weights = basis.dx[rows] * rho[disc.element_order][rows][:, None]
    return np.einsum("eqa,eqb,eq->eab", values, values, weights, optimize=True)


def assemble_mass(disc: SolidDiscretization, rho: np.ndarray) -> sp.csr_matrix:
    """Consistent mass matrix, (3 n_nodes, 3 n_nodes), kg; ``rho`` (n_elements,) kg/m³ in our element order.

    ``kron(M_scalar, I_3)`` assembled into the node-pair pattern of :func:`_node_pattern`; the element blocks
    are symmetrized first (``(M_e + M_eᵀ) / 2``), so the sum is symmetric.
    """
    indptr, indices, position = _node_pattern(disc)
    n_el, nb = disc.element_nodes.shape
    scalar = np.zeros(indices.size)
    step = 50_000  # elements at a time (issue 46: the element blocks of 3 M dofs were 0.6 GB, twice)
    for start in range(0, n_el, step):
        sl = slice(start, min(start + step, n_el))
        blocks = _scalar_mass_blocks(disc, rho, sl)
        blocks = 0.5 * (blocks + blocks.transpose(0, 2, 1))
        np.add.at(scalar, position[start * nb * nb:sl.stop * nb * nb], blocks.ravel())
    return _kron_identity3(indptr, indices, scalar)


def _kron_identity3(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray) -> sp.csr_matrix:
    """``kron(S, I_3)`` in CSR for a scalar CSR ``S`` (sorted rows), built directly: SciPy's ``kron`` went through
    COO with 64-bit row and column arrays (issue 46: 5.8 GB at 3 M dofs). Row ``3 r + i`` holds ``3 c + i`` for
    every column ``c`` of row ``r``, the same numbers in the same order as ``sp.kron(S, I_3, format="csr")``."""
    n = indptr.size - 1
    lengths = np.diff(indptr)
    nnz = 3 * indices.size
    index_dtype = np.int32 if max(nnz, 3 * n) < 2**31 else np.int64
    row_of = np.repeat(np.arange(n, dtype=np.int64), lengths)
    base = 3 * indptr[row_of] + (np.arange(indices.size, dtype=np.int64) - indptr[row_of])
    length = lengths[row_of]
    del row_of
    data = np.empty(nnz)
    columns = np.empty(nnz, dtype=index_dtype)
    for i in range(3):
        at = base + i * length
        data[at] = values
        columns[at] = 3 * indices.astype(index_dtype) + i
    row_ptr = np.empty(3 * n + 1, dtype=index_dtype)
    row_ptr[0] = 0
    np.cumsum(np.repeat(lengths, 3), out=row_ptr[1:])
    out = sp.csr_matrix((data, columns, row_ptr), shape=(3 * n, 3 * n))
    out.has_sorted_indices = True
    return out


def lumped_mass(disc: SolidDiscretization, rho: np.ndarray) -> np.ndarray:
    """HRZ-lumped nodal masses, (n_nodes,) kg: per element the diagonal of the consistent mass scaled to the
    element mass (Hinton–Rock–Zienkiewicz). Positive for every element type (row sums are not, for P2 corners)."""
    blocks = _scalar_mass_blocks(disc, rho)
    diag = np.einsum("eaa->ea", blocks)
    element_mass = blocks.sum(axis=(1, 2))
    lumped = diag * (element_mass / diag.sum(axis=1))[:, None]
    return np.bincount(disc.element_nodes.ravel(), weights=lumped.ravel(), minlength=disc.mesh.n_nodes)


def nodal_stress(disc: SolidDiscretization, displacement: np.ndarray, lam: np.ndarray, mu: np.ndarray,
                 nodes: np.ndarray | None = None) -> np.ndarray:
    """Nodal stress by averaging element stresses evaluated at the element nodes.

    Parameters
    ----------
    displacement : (3 n_nodes,) or (3 n_nodes, k) float, m
    lam, mu : (n_elements,) Pa, our element order
    nodes : (n_out,) int, optional
        Nodes to evaluate (default all); only elements touching them are visited.

    Returns
    -------
    (n_out, 6, k) float, Pa — components ``xx, yy, zz, yz, xz, xy``.

    Notes
    -----
    The elements are visited in chunks with all ``k`` columns at once (work arrays of about
    :data:`_STRESS_WORK_BYTES`): per element one (3 nb × nb)(nb × 3 k) matrix product, which BLAS does far better
    for k of a hundred than for a block of 8 columns (issue 31: the machine-creeping structure's 147-mode surface
    field 1.9 s → 1.2 s, identical values).
    """
    u = displacement.reshape(disc.mesh.n_nodes, 3, -1)
    k = u.shape[2]
    nodes = np.arange(disc.mesh.n_nodes) if nodes is None else np.asarray(nodes)
    elems, grad, gather, count, inverse = _stress_operator(disc, nodes)
    enodes = disc.element_nodes[elems]  # (e, nb)
    n_e, nb = enodes.shape
    lam_e, mu_e = lam[disc.element_order[elems]], mu[disc.element_order[elems]]
    chunk = int(max(1, _STRESS_WORK_BYTES // (8 * nb * 18 * k)))  # displacements, gradient and Voigt stress
    total = np.zeros((gather.shape[0], 6 * k))
    for start in range(0, n_e, chunk):
        sl = slice(start, min(start + chunk, n_e))
        voigt = _element_node_stress(grad[sl], u[enodes[sl]], lam_e[sl], mu_e[sl])
        part = gather[:, start * nb:sl.stop * nb]  # (nodes × element nodes of the chunk)
        rows, local = np.unique(part.indices, return_inverse=True)  # only the nodes this chunk touches
        part = sp.csc_matrix((part.data, local.ravel(), part.indptr), shape=(rows.size, part.shape[1]))
        total[rows] += part @ voigt.reshape(-1, 6 * k)
    total = total.reshape(-1, 6, k)
    total /= count[:, None, None]  # in place: a 147-mode surface field is 85 MB, each fresh copy ~0.2 s of faults
    if inverse.size == total.shape[0] and np.array_equal(inverse, np.arange(inverse.size)):
        return total  # ``nodes`` ascending and unique (a surface field): the sums are already in their order
    return total[inverse]


_STRESS_WORK_BYTES = 16e6  # work arrays of one element chunk of nodal_stress


def _element_node_stress(grad: np.ndarray, ue: np.ndarray, lam: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Voigt stress (e, nb, 6, k) at the element nodes from the gradients (e, 3 nb, nb) there and the element
    displacements (e, nb, 3, k); ``lam``, ``mu`` (e,) Pa."""
    n_e, nb, _, k = ue.shape
    # ∂u_j/∂x_i at element node p, (e, p, i, j, k): one small matrix product per element, (p i × a)(a × j k)
    du = np.matmul(grad, ue.reshape(n_e, nb, 3 * k)).reshape(n_e, grad.shape[1] // 3, 3, 3, k)
    # the six Voigt components straight from the gradient (no 3 × 3 strain and stress temporaries):
    # σ = λ tr(ε) I + 2 μ ε with ε = (∇u + ∇uᵀ) / 2
    lam_e, mu_e = lam[:, None, None], mu[:, None, None]
    voigt = np.empty(du.shape[:2] + (6, k))  # (e, p, 6, k)
    trace = lam_e * (du[:, :, 0, 0] + du[:, :, 1, 1] + du[:, :, 2, 2])
    for c, (i, j) in enumerate(((0, 0), (1, 1), (2, 2), (1, 2), (0, 2), (0, 1))):
        if i == j:
            np.multiply(2.0 * mu_e, du[:, :, i, i], out=voigt[:, :, c])
            voigt[:, :, c] += trace
        else:
            np.add(du[:, :, i, j], du[:, :, j, i], out=voigt[:, :, c])
            voigt[:, :, c] *= mu_e
    return voigt


def _stress_operator(disc: SolidDiscretization, nodes: np.ndarray):
    """What :func:`nodal_stress` needs for ``nodes`` besides the displacements, kept on ``disc`` for the last node
    set (the modal stress field asks for the same nodes once per block of modes; rebuilding the basis at the
    element nodes each time cost most of it): the elements touching the nodes, the shape-function gradients at
    their nodes (e, 3 nb, nb), the sparse (node × element-node) sum replacing ``np.add.at``, the element count
    per node and the map back to the order of ``nodes``."""
    key = nodes.tobytes()
    cached = getattr(disc, "_stress_cache", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    wanted = np.zeros(disc.mesh.n_nodes, dtype=bool)
    wanted[nodes] = True
    elems = np.flatnonzero(wanted[disc.element_nodes].any(axis=1))
    ref_points = disc.element.doflocs.T  # (3, nb) reference coordinates of the element nodes
    at_nodes = skfem.CellBasis(disc.skmesh, disc.element, quadrature=(ref_points, np.ones(ref_points.shape[1])),
                               elements=elems)
    nb = len(at_nodes.basis)
    grad = np.stack([at_nodes.basis[a][0].grad for a in range(nb)], axis=0)  # (nb, 3, e, point)
    grad = np.ascontiguousarray(grad.transpose(2, 3, 1, 0)).reshape(len(elems), -1, nb)  # (e, point 3, nb)
    flat = disc.element_nodes[elems].ravel()
    unique, inverse = np.unique(nodes, return_inverse=True)
    row = np.full(disc.mesh.n_nodes, -1, dtype=np.int64)
    row[unique] = np.arange(unique.size)
    at = np.flatnonzero(row[flat] >= 0)
    # CSC: nodal_stress takes contiguous column ranges (element chunks) of it
    gather = sp.csc_matrix((np.ones(at.size), (row[flat[at]], at)), shape=(unique.size, flat.size))
    count = np.bincount(flat, minlength=disc.mesh.n_nodes)[unique].astype(float)
    operator = (elems, grad, gather, count, inverse)
    disc._stress_cache = (key, operator)
    return operator


def von_mises(stress: np.ndarray) -> np.ndarray:
    """Von Mises stress from Voigt components along axis -2 (``xx, yy, zz, yz, xz, xy``), Pa."""
    sxx, syy, szz, syz, sxz, sxy = (np.take(stress, i, axis=-2) for i in range(6))
    return np.sqrt(0.5 * ((sxx - syy) ** 2 + (syy - szz) ** 2 + (szz - sxx) ** 2)
                   + 3.0 * (syz**2 + sxz**2 + sxy**2))


def surface_areas(disc: SolidDiscretization) -> np.ndarray:
    """Tributary boundary-surface area of every node, (n_nodes,) m² (zero for interior and mid-side nodes).

    Each boundary face is taken flat through its corner nodes (quadrilaterals split in two triangles) and gives a
    third of each triangle's area to each corner; the areas sum to the (faceted) boundary area. Used as RBE3 weights
    and for the area-weighted centroid of a bore. (scikit-fem's FacetBasis on curved quadratic meshes needs the
    inverse isoparametric map, whose Newton iteration can fail on distorted faces; this never does.)
    """
    from fem.mesh import boundary_triangles

    mesh = disc.mesh
    triangles = boundary_triangles(mesh)
    p = mesh.points[triangles]
    area = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
    return np.bincount(triangles.ravel(), weights=np.repeat(area / 3.0, 3), minlength=mesh.n_nodes)


def surface_nodes(disc: SolidDiscretization) -> np.ndarray:
    """Indices (ascending) of every mesh node on the outer surface: corner, mid-side and face nodes of the boundary
    facets (scikit-fem's boundary facets and their facet dofs), (n_surface,) int."""
    basis = disc.basis
    node_of_dof = np.empty(basis.N, dtype=np.int64)
    node_of_dof[basis.element_dofs.T.ravel()] = disc.element_nodes.ravel()
    dofs = basis.get_dofs(disc.skmesh.boundary_facets()).flatten()
    return np.unique(node_of_dof[dofs])
