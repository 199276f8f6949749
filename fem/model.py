"""The assembled finite-element model: nodes, dofs, K and M, point masses, springs and interface spiders.

Dof layout of the *full* vector: solid mesh nodes own 3 translations, frame (beam) nodes and interface reference
nodes own 3 translations + 3 rotations. Spiders are eliminated exactly (``u_full = T u``); :attr:`FEModel.stiffness`
and :attr:`FEModel.mass` are the matrices over the independent dofs ``u``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from fem.errors import MaterialError, ModelError
from fem.linalg import principal_submatrix, return_freed_memory
from fem.materials import Material, lame_parameters, parse_material
from fem.selectors import select_nodes
from fem.spiders import rbe2_rows, rbe3_rows

if TYPE_CHECKING:  # the solid mesh's modules (meshio, scikit-fem) are imported where a solid model is made or used:
    # a frame model, the package build's engine warm-up among them, runs without them (issue 42: a smaller build env)
    from fem.mesh import Mesh
    from fem.solid import SolidDiscretization

__all__ = ["ReferenceNode", "FEModel", "solid_model", "frame_model"]


@dataclass
class ReferenceNode:
    """A 6-dof interface node tied to mesh nodes by a spider.

    Attributes
    ----------
    name : str
    node : int
        Index of the reference node in :attr:`FEModel.positions`.
    spider : str
        ``"rbe2"`` or ``"rbe3"`` (or ``"node"`` for an existing 6-dof node used directly).
    connected : (n,) int
        Node indices tied to it.
    """

    name: str
    node: int
    spider: str
    connected: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))


class FEModel:
    """A linear finite-element model ready for modal, static and Craig–Bampton analysis.

    Build it with :func:`solid_model` or :func:`frame_model`, then add point masses, springs and reference nodes.

    Attributes
    ----------
    positions : (n_nodes, 3) float, m
    node_ids : (n_nodes,) int
    translation_dofs : (n_nodes, 3) int
        Full dof numbers of each node's translations.
    rotation_dofs : (n_nodes, 3) int
        Full dof numbers of each node's rotations, -1 where the node has none.
    references : dict[str, ReferenceNode]
    mesh : Mesh or None
    solid : SolidDiscretization or None
    """

    frame = None  # fem.beam.FrameData of a frame model (elements kept for the geometric stiffness)

    def __init__(self, positions, node_ids, stiffness, mass, translation_dofs, rotation_dofs, *, mesh=None,
                 solid=None, lame=None, lumped=None, exactly_symmetric: bool = False):
        self.positions = np.asarray(positions, dtype=float)
        self.node_ids = np.asarray(node_ids, dtype=np.int64)
        self.translation_dofs = np.asarray(translation_dofs, dtype=np.int64)
        self.rotation_dofs = np.asarray(rotation_dofs, dtype=np.int64)
        self.mesh = mesh
        self.solid = solid
        self._lame = lame  # (lam, mu) per element for stress recovery
        self._lumped = lumped  # HRZ nodal masses of the mesh part, kg
        self._k_parts = [sp.csr_matrix(stiffness)]
        self._m_parts = [sp.csr_matrix(mass)]
        # K and M equal their transposes bit for bit (the builders below; added blocks are made so): then
        # ``Tᵀ K T`` is formed symmetric without a transpose of the whole matrix (:func:`_projected`)
        self._exactly_symmetric = bool(exactly_symmetric)
        self.references: dict[str, ReferenceNode] = {}
        self.node_sets: dict = {}  # named node index sets of a model without mesh (fem.matrices: the job's *Nset)
        self._constraints: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._cache: dict = {}

    # ------------------------------------------------------------------ sizes and lookup
    @property
    def n_nodes(self) -> int:
        return int(self.positions.shape[0])

    @property
    def n_full_dofs(self) -> int:
        return int(self._k_parts[0].shape[0])

    def describe_box(self) -> str:
        lo, hi = self.positions.min(axis=0), self.positions.max(axis=0)
        return "[" + ", ".join(f"{a:.4g}..{b:.4g}" for a, b in zip(lo, hi)) + "] m"

    def select(self, selector: str) -> np.ndarray:
        """Node indices picked by a selector string (see :mod:`fem.selectors`)."""
        sets = self.mesh.node_sets if self.mesh is not None else self.node_sets
        return select_nodes(selector, self.positions, self.node_ids, sets, self.describe_box())

    def node_dofs(self, nodes, which: str = "123456") -> np.ndarray:
        """Full dof numbers of ``nodes`` for the components in ``which`` (1-3 translations, 4-6 rotations);
        rotations a node does not have are skipped."""
        nodes = np.atleast_1d(np.asarray(nodes, dtype=np.int64))
        comps = [int(c) - 1 for c in which]
        table = np.hstack([self.translation_dofs, self.rotation_dofs])[nodes][:, comps]
        return table[table >= 0]

    # ------------------------------------------------------------------ additions
    def _grow(self, n_new_dofs: int) -> np.ndarray:
        n = self.n_full_dofs
        self._k_parts = [_padded(p, n_new_dofs) for p in self._k_parts]
        self._m_parts = [_padded(p, n_new_dofs) for p in self._m_parts]
        self._cache.clear()
        return np.arange(n, n + n_new_dofs)

    def add_node(self, point, node_id: int | None = None) -> int:
        """Add a free 6-dof node (no stiffness or mass); returns its index."""
        dofs = self._grow(6)
        self.positions = np.vstack([self.positions, np.asarray(point, float)[None]])
        new_id = int(self.node_ids.max()) + 1 if node_id is None else int(node_id)
        self.node_ids = np.append(self.node_ids, new_id)
        self.translation_dofs = np.vstack([self.translation_dofs, dofs[:3][None]])
        self.rotation_dofs = np.vstack([self.rotation_dofs, dofs[3:][None]])
        return self.n_nodes - 1

    def add_stiffness(self, dofs: np.ndarray, matrix: np.ndarray) -> None:
        """Add a dense symmetric block ``matrix`` on full dofs ``dofs`` (its symmetric part, ``(A + Aᵀ) / 2``)."""
        self._k_parts.append(self._symmetric_block(dofs, matrix))

    def add_mass(self, dofs: np.ndarray, matrix: np.ndarray) -> None:
        """Add a dense symmetric mass block on full dofs ``dofs`` (its symmetric part)."""
        self._m_parts.append(self._symmetric_block(dofs, matrix))

    def _symmetric_block(self, dofs, matrix) -> sp.csr_matrix:
        matrix = np.asarray(matrix, dtype=float)
        if matrix.ndim == 2 and matrix.shape[0] == matrix.shape[1]:
            matrix = 0.5 * (matrix + matrix.T)  # exactly symmetric: the same two numbers added both ways
        if np.unique(np.asarray(dofs)).size != np.size(dofs):  # repeated dofs sum in an order of their own
            self._exactly_symmetric = False
        self._cache.clear()
        return _block(dofs, matrix, self.n_full_dofs)

    def add_point_mass(self, node: int, mass: float, inertia=None) -> None:
        """Point mass (kg) and optional inertia tensor (3, 3) kg m² at a node (inertia needs rotational dofs)."""
        self.add_mass(self.node_dofs(node, "123"), mass * np.eye(3))
        if inertia is not None:
            rot = self.node_dofs(node, "456")
            if rot.size != 3:
                raise ModelError("a point inertia needs a node with rotational dofs (a frame or reference node)")
            self.add_mass(rot, np.asarray(inertia, float))

    def add_spring(self, node_a: int, node_b: int | None, stiffness) -> None:
        """Linear spring between two nodes (or node to ground when ``node_b`` is None).

        ``stiffness``: scalar or (3,) N/m on translations, or (6,) with N m/rad on rotations, in global axes.
        """
        k = np.atleast_1d(np.asarray(stiffness, dtype=float))
        k = np.repeat(k, 3) if k.size == 1 else k
        which = "123456"[: k.size]
        dofs_a = self.node_dofs(node_a, which)
        if node_b is None:
            self.add_stiffness(dofs_a, np.diag(k))
            return
        dofs_b = self.node_dofs(node_b, which)
        self.add_stiffness(np.concatenate([dofs_a, dofs_b]), np.kron(np.array([[1, -1], [-1, 1]]), np.diag(k)))

    def add_reference_node(self, name: str, nodes, spider: str = "rbe2", point=None,
                           weights: np.ndarray | None = None) -> ReferenceNode:
        """Add a 6-dof reference node tied to ``nodes`` (indices or a selector string) by an RBE2 or RBE3.

        ``point`` defaults to the surface-area-weighted centroid of the connected nodes (the bearing centre of a
        bore, whatever the node spacing); plain centroid for interior nodes.
        """
        if name in self.references:
            raise ModelError(f"interface {name!r} is defined twice")
        spider = spider.lower()
        if spider not in ("rbe2", "rbe3"):
            raise ModelError(f"unknown spider {spider!r} for interface {name!r}; use rbe2 or rbe3")
        try:  # issue 43: None raised a TypeError
            connected = self.select(nodes) if isinstance(nodes, str) else np.asarray(nodes, dtype=np.int64)
        except (TypeError, ValueError):
            raise ModelError(f"interface {name!r}: nodes must be a selector (box:..., group:NAME, nodes:...) or node "
                             f"indices, got {nodes!r}") from None
        self._check_overlap(name, connected)
        areas = self._surface_weights(connected)
        if spider == "rbe3" and weights is None:
            weights = areas
        if point is None:  # area-weighted centroid: the bearing centre of a bore, whatever the node spacing
            point = np.average(self.positions[connected], axis=0, weights=areas)
        else:  # issue 43: a point of NaN was accepted
            try:
                point = np.asarray(point, dtype=float).reshape(3)
            except (TypeError, ValueError):
                raise ModelError(f"interface {name!r}: point must be 3 numbers (m), got {point!r}") from None
            if not np.all(np.isfinite(point)):
                raise ModelError(f"interface {name!r}: point must be finite numbers (m), got {point.tolist()}")
        ref = self.add_node(point)
        ref_dofs = self.node_dofs(ref)
        if spider == "rbe2":
            rows = rbe2_rows(self.positions[ref], ref_dofs, self.positions[connected],
                             self.translation_dofs[connected], self.rotation_dofs[connected])
        else:
            rows = rbe3_rows(self.positions[ref], ref_dofs, self.positions[connected],
                             self.translation_dofs[connected], weights)
        self._constraints.append(rows)
        self._cache.clear()
        self.references[name] = ReferenceNode(name, ref, spider, connected)
        return self.references[name]

    def _check_overlap(self, name: str, connected: np.ndarray) -> None:
        """One-line ModelError when the nodes of interface ``name`` include another interface's reference node or
        nodes another spider already ties (two spiders cannot both prescribe the same node)."""
        for other in self.references.values():
            shared = np.intersect1d(connected, np.append(other.connected, other.node))
            if shared.size:
                raise ModelError(f"interfaces {other.name!r} and {name!r} overlap: {shared.size} node(s) belong to "
                                 f"both (e.g. node {int(self.node_ids[shared[0]])}); make the selectors disjoint "
                                 "(smaller sphere/box or another group)")

    def add_interface_node(self, name: str, node: int) -> ReferenceNode:
        """Use an existing 6-dof node (a frame node) directly as an interface, without a spider."""
        if name in self.references:
            raise ModelError(f"interface {name!r} is defined twice")
        if self.rotation_dofs[node, 0] < 0:
            raise ModelError(f"node {int(self.node_ids[node])} has no rotational dofs; tie solid nodes to an "
                             "interface with an rbe2 or rbe3 spider")
        self.references[name] = ReferenceNode(name, int(node), "node", np.array([node], dtype=np.int64))
        return self.references[name]

    def connected_pieces(self) -> int:
        """Number of disconnected pieces: components of the node graph linked by stiffness entries and spiders.

        In two steps, without forming the node graph (which converted every stiffness entry through COO: 1.7 s of
        the 177k-dof bar, issue 31): the components of the stiffness pattern as it is stored (dof graph), then the
        components of the small graph that joins them by the spiders' dependent–independent pairs of ``T`` and by
        the dofs of one node.

        The first step takes the *strongly* connected components of the stored pattern: SciPy finds them on ``K``'s own
        CSR arrays (``indices`` and ``indptr`` only; explicit zeros stay entries), where the undirected search
        (``directed=False``, or ``connection='weak'``) first transposes the graph, and the graph was a fresh array of
        ones: the bar's first call 0.7–1.1 s before, 0.15–0.2 s now (6 fresh processes each). In a structurally
        symmetric pattern the strong components are the components; the sum of parts need not be one (each part's
        pattern is symmetric, but the sum drops entries that cancel to exact zeros, on one side only where the two
        sides round differently: 521 entries of the bar before its element sums were symmetrized), so the stored entries between two strong components join them in the second step:
        the count is that of the stored pattern in every case.
        """
        from scipy.sparse.csgraph import connected_components

        n = self.n_full_dofs
        node_of_dof = np.full(n, -1, dtype=np.int64)
        for table in (self.translation_dofs, self.rotation_dofs):
            has = table >= 0
            node_of_dof[table[has]] = np.nonzero(has)[0]
        k = self.full_stiffness
        n_k, label = connected_components(k, directed=True, connection="strong")
        between = [], []  # labels of the entries between two strong components (none in a symmetric pattern)
        for start in range(0, n, 16384):  # by blocks of rows: temporaries of a few MB, not 3 of nnz (page faults)
            stop = min(start + 16384, n)
            row_label = np.repeat(label[start:stop], np.diff(k.indptr[start:stop + 1]))
            col_label = label[k.indices[k.indptr[start]:k.indptr[stop]]]
            cross = row_label != col_label
            between[0].append(row_label[cross])
            between[1].append(col_label[cross])
        # one dof of every node that has any (the others link to it)
        anchor = np.where(self.translation_dofs[:, 0] >= 0, self.translation_dofs[:, 0], self.rotation_dofs[:, 0])
        dofs = np.flatnonzero(node_of_dof >= 0)
        t = self.transform.tocoo()
        rows = np.concatenate([label[t.row], label[dofs], *between[0]])
        cols = np.concatenate([label[self.independent_dofs[t.col]], label[anchor[node_of_dof[dofs]]], *between[1]])
        joined = connected_components(sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_k, n_k)),
                                      directed=False)[1]
        return int(np.unique(joined[label[dofs]]).size + (self.n_nodes - np.unique(node_of_dof[dofs]).size))

    def _surface_weights(self, connected: np.ndarray) -> np.ndarray:
        if self.solid is None:
            return np.ones(len(connected))
        if getattr(self, "_surface_areas", None) is None:  # the mesh's own: kept when nodes are added (not _cache)
            from fem.solid import surface_areas

            self._surface_areas = surface_areas(self.solid)
        areas = self._surface_areas[connected]
        return areas if np.count_nonzero(areas) >= 3 else np.ones(len(connected))

    # ------------------------------------------------------------------ constrained matrices
    @property
    def transform(self) -> sp.csr_matrix:
        """``T`` with ``u_full = T u`` (n_full_dofs, n_dofs)."""
        if "T" not in self._cache:
            self._cache["T"], self._cache["independent"] = _constraint_transform(self._constraints,
                                                                                  self.n_full_dofs)
        return self._cache["T"]

    @property
    def independent_dofs(self) -> np.ndarray:
        """Full dof number of each independent dof (n_dofs,)."""
        self.transform
        return self._cache["independent"]

    @property
    def full_stiffness(self) -> sp.csr_matrix:
        if getattr(self, "_assembly_released", False):
            raise ModelError("the full stiffness of this model was released after its reduction (reduce(..., "
                             "release=True)); build the model again to use it")
        if "K_full" not in self._cache:
            self._cache["K_full"] = _sum(self._k_parts)
        return self._cache["K_full"]

    def stiffness_blocks(self, boundary: np.ndarray, interior: np.ndarray):
        """``K_ii`` (CSR), ``K_ib`` (CSR) and ``K_bb`` (dense) of the independent-dof stiffness ``Tᵀ K T`` for the
        independent-dof indices ``boundary`` and ``interior`` (sorted), straight from the full stiffness, without
        the projected matrix; None where that is not exact (use ``stiffness``).

        Exact when every spider row combines boundary dofs only (RBE2 spiders whose reference dofs are all retained:
        ``Tᵀ K T = A_II + X + Xᵀ + Cᵀ A_DD C`` with ``X = Cᵀ A_DI`` adds to the boundary rows and columns only), so
        ``K_ii = A[interior, interior]`` and the boundary rows are ``T_bᵀ A T`` (a few rows). The projected copy of
        ``K`` was the 3 M-dof reduction's peak (15.2 GB with ``K`` and ``M`` and their projections, issue 46).
        """
        if not self._exactly_symmetric or "K" in self._cache:
            return None
        boundary = np.asarray(boundary, dtype=np.int64)
        independent = self.independent_dofs
        full_boundary = independent[boundary]
        for _, columns, _ in self._constraints:
            if not np.isin(columns, full_boundary).all():
                return None
        full = self.full_stiffness
        k_ii = principal_submatrix(full, independent[np.asarray(interior, dtype=np.int64)])
        t = self.transform
        t_b = sp.csr_matrix(t.tocsc()[:, boundary])
        rows = sp.csr_matrix((t_b.T @ full) @ t)  # (n_b, n_dofs): the boundary rows of Tᵀ K T
        k_ib = sp.csr_matrix(rows[:, interior].T)
        k_bb = rows[:, boundary].toarray()
        return k_ii, k_ib, 0.5 * (k_bb + k_bb.T)

    def release_assembly(self, project: bool = True) -> int:
        """Free the assembled full stiffness (its element parts and their sum) once the independent-dof stiffness
        ``stiffness`` exists: the reduction of a large part needs only that (issue 46). Returns the bytes freed.
        Constraints, springs and the full stiffness cannot be used afterwards (a one-line error says so).
        ``project=False``: without forming ``stiffness`` first (the caller holds the blocks of
        :meth:`stiffness_blocks`; ``stiffness`` is then an error)."""
        if project:
            self.stiffness  # the projected matrix the reduction works with
        freed = 0
        full = self._cache.get("K_full")
        counted = {id(self._cache.get("K"))}
        for part in self._k_parts + ([full] if full is not None else []):
            if id(part) not in counted:  # the full stiffness may be the one part itself (_sum)
                counted.add(id(part))
                freed += part.data.nbytes + part.indices.nbytes + part.indptr.nbytes
        n = self.n_full_dofs
        self._k_parts = [sp.csr_matrix((n, n))]
        self._cache.pop("K_full", None)
        if self._lumped is not None:  # a solid's nodal masses come from its lumping, not from the element mass
            full_mass = self.full_mass  # the sum of the parts (invariants and canonical modes use it)
            base = self._m_parts[0]
            if base is not full_mass and base is not self._cache.get("M"):
                freed += base.data.nbytes + base.indices.nbytes + base.indptr.nbytes
            self._m_parts[0] = sp.csr_matrix((n, n))
        if self.solid is not None and not getattr(self.solid, "quadrature_released", False):
            self.solid.release_quadrature()  # the basis of the assembly (stress recovery makes its own)
        self._assembly_released = True
        return_freed_memory()
        return freed

    def release_stiffness(self) -> int:
        """Free the independent-dof stiffness ``stiffness`` too (after :meth:`release_assembly`), once the reduction
        holds its blocks (``K_ii`` and the couplings: :class:`reduction.solvers.BlockStiffness`, issue 46). Returns
        the bytes freed; ``stiffness`` is a one-line error afterwards."""
        if not getattr(self, "_assembly_released", False):
            raise ModelError("release_stiffness() follows release_assembly()")
        k = self._cache.pop("K", None)
        if k is None:
            return 0
        freed = k.data.nbytes + k.indices.nbytes + k.indptr.nbytes
        del k
        return_freed_memory()
        return freed

    @property
    def full_mass(self) -> sp.csr_matrix:
        if "M_full" not in self._cache and getattr(self, "_assembly_released", False):
            raise ModelError("this model's assembled mass was released after its reduction (reduce(..., "
                             "release=True)); build the model again to change or reuse it")
        if "M_full" not in self._cache:
            self._cache["M_full"] = _sum(self._m_parts)
        return self._cache["M_full"]

    @property
    def stiffness(self) -> sp.csr_matrix:
        """Stiffness over the independent dofs, ``Tᵀ K T``."""
        if "K" not in self._cache:
            if getattr(self, "_assembly_released", False):
                raise ModelError("this model's assembled stiffness was released after its reduction (reduce(..., "
                                 "release=True)); build the model again to change or reuse it")
            no_spiders = not self._constraints
            self._cache["K"] = self.full_stiffness if no_spiders else self._projected(self.full_stiffness)
        return self._cache["K"]

    @property
    def mass(self) -> sp.csr_matrix:
        """Mass over the independent dofs, ``Tᵀ M T``."""
        if "M" not in self._cache:
            no_spiders = not self._constraints
            self._cache["M"] = self.full_mass if no_spiders else self._projected(self.full_mass)
        return self._cache["M"]

    def _projected(self, full: sp.csr_matrix) -> sp.csr_matrix:
        """``Tᵀ A T`` for a symmetric ``A`` over the full dofs, symmetric bit for bit.

        With the full dofs split into independent ``I`` and spider-dependent ``D`` (``u_D = C u``, ``T = [1; C]``):
        ``Tᵀ A T = A_II + X + Xᵀ + Cᵀ A_DD C`` with ``X = Cᵀ A_DI``. Where ``A`` is exactly symmetric, ``A_II`` is,
        and ``X + Xᵀ`` and the symmetrized small ``Cᵀ A_DD C`` are by construction, so their sum is: no product
        with ``T`` and no transpose of the whole matrix (issue 31: 1.8 of 2.4 s of the 177k-dof bar's ``Tᵀ K T``
        and ``Tᵀ M T`` were the two sparse products and the symmetrization ``(A + Aᵀ) / 2``). Otherwise (imported
        matrices) the general ``(Tᵀ A T + (Tᵀ A T)ᵀ) / 2``.
        """
        t = self.transform
        if not self._exactly_symmetric:
            return _symmetric(t.T @ full @ t)
        independent = self.independent_dofs
        dependent = np.setdiff1d(np.arange(self.n_full_dofs), independent, assume_unique=True)
        c = t[dependent]  # (n_D, n_I): the spiders' rows of T
        a_d = full[dependent]  # the dependent rows of A, all columns
        x = (c.T @ a_d[:, independent]).tocsr()  # Cᵀ A_DI: rows of the spiders' independent nodes only
        y = (c.T @ (a_d[:, dependent] @ c)).tocsr()
        coupling = x + x.T.tocsr() + _symmetric(y)
        return (principal_submatrix(full, independent) + coupling).tocsr()

    @property
    def n_dofs(self) -> int:
        return int(self.independent_dofs.size)

    def independent_index(self, full_dofs: np.ndarray) -> np.ndarray:
        """Positions of full dofs in the independent vector; error if any is eliminated by a spider."""
        lookup = np.full(self.n_full_dofs, -1, dtype=np.int64)
        lookup[self.independent_dofs] = np.arange(self.n_dofs)
        idx = lookup[np.asarray(full_dofs, dtype=np.int64)]
        if np.any(idx < 0):
            raise ModelError("a selected dof is tied to an interface spider; select nodes outside the spiders or "
                             "use the interface's reference node")
        return idx

    def expand(self, independent_values: np.ndarray) -> np.ndarray:
        """Full-dof vector(s) from independent-dof vector(s): ``T u``."""
        return self.transform @ independent_values

    # ------------------------------------------------------------------ mass properties and stress
    def rigid_body_properties(self) -> dict:
        """Mass (kg), centre of mass (m) and inertia tensor about it (kg m²) from the full consistent mass."""
        from fem.rigid_body import rigid_body_fields

        tt, rr = rigid_body_fields(self.positions, self.translation_dofs, self.rotation_dofs, self.n_full_dofs)
        m = self.full_mass
        mass = float(np.trace(tt.T @ (m @ tt)) / 3.0)
        first = -(tt.T @ (m @ rr))  # = skew(Σ m x)
        com = np.array([first[2, 1], first[0, 2], first[1, 0]]) / mass
        inertia_origin = rr.T @ (m @ rr)
        d = com
        inertia = inertia_origin - mass * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
        return {"mass": mass, "center_of_mass": com, "inertia": inertia}

    def nodal_masses(self) -> np.ndarray:
        """Lumped nodal masses, (n_nodes,) kg: HRZ lumping of the solid mesh (fem.solid.lumped_mass) or the
        translational row sums of a frame model's consistent mass, plus the translational point masses."""
        base = self._m_parts[0]
        if self._lumped is not None:
            masses = np.zeros(self.n_nodes)
            masses[: len(self._lumped)] = self._lumped
        else:
            translation = np.zeros((self.n_full_dofs, 3))
            for k in range(3):
                translation[self.translation_dofs[:, k], k] = 1.0
            sums = base @ translation  # mass per node under a rigid translation
            masses = np.mean([sums[self.translation_dofs[:, k], k] for k in range(3)], axis=0)
        if len(self._m_parts) > 1:
            extra = _sum(self._m_parts[1:]).diagonal()
            masses = masses + extra[self.translation_dofs].mean(axis=1)
        return masses

    def stress(self, full_displacement: np.ndarray, nodes: np.ndarray | None = None) -> np.ndarray:
        """Nodal stress (n, 6, k) Pa of solid mesh nodes for full-dof displacement(s) (see fem.solid.nodal_stress)."""
        if self.solid is None:
            raise ModelError("stress recovery needs a solid mesh model")
        from fem.solid import nodal_stress

        n_mesh = self.mesh.n_nodes
        u = np.asarray(full_displacement)
        u = u.reshape(u.shape[0], -1)
        mesh_dofs = self.translation_dofs[:n_mesh].reshape(-1)
        if np.array_equal(mesh_dofs, np.arange(mesh_dofs.size)):  # mesh nodes first, x y z each: a view, no copy
            return nodal_stress(self.solid, u[:mesh_dofs.size], self._lame[0], self._lame[1], nodes)
        return nodal_stress(self.solid, u[mesh_dofs], self._lame[0], self._lame[1], nodes)


def _padded(matrix, n_new: int) -> sp.csr_matrix:
    """``matrix`` with ``n_new`` empty rows and columns appended, sharing its data (a CSR matrix only gets more
    row pointers; ``sp.block_diag`` rebuilt every part through COO for each added node)."""
    matrix = matrix.tocsr()
    indptr = np.concatenate([matrix.indptr, np.full(n_new, matrix.indptr[-1], dtype=matrix.indptr.dtype)])
    return sp.csr_matrix((matrix.data, matrix.indices, indptr), shape=(matrix.shape[0] + n_new,
                                                                        matrix.shape[1] + n_new))


def _block(dofs: np.ndarray, matrix: np.ndarray, n: int) -> sp.csr_matrix:
    dofs = np.asarray(dofs, dtype=np.int64)
    matrix = np.asarray(matrix, dtype=float)
    if matrix.shape != (dofs.size, dofs.size):
        raise ModelError(f"a {matrix.shape} block does not fit {dofs.size} dofs")
    rows = np.repeat(dofs, dofs.size)
    cols = np.tile(dofs, dofs.size)
    return sp.csr_matrix((matrix.ravel(), (rows, cols)), shape=(n, n))


def _sum(parts: list) -> sp.csr_matrix:
    """The sum of the parts; a single part is returned itself (its copy was one more stiffness and mass of the
    whole part at the reduction's assembly peak: issue 46). Nothing writes into the parts or the sum."""
    if len(parts) == 1:
        return parts[0].tocsr()
    total = parts[0] + parts[1]
    for p in parts[2:]:
        total = total + p
    return total.tocsr()


def _symmetric(a: sp.spmatrix) -> sp.csr_matrix:
    a = sp.csr_matrix(a)
    total = (a + a.T).tocsr()
    total.data *= 0.5  # in place (the same numbers as ``(a + aᵀ) * 0.5`` without another copy of the matrix)
    return total


def _constraint_transform(constraints, n_full: int):
    """Assemble ``T`` from dependent rows; every dependency must be on independent dofs."""
    dependent = np.concatenate([c[0] for c in constraints]) if constraints else np.zeros(0, dtype=np.int64)
    if dependent.size != np.unique(dependent).size:
        raise ModelError("two interface spiders share a node; make their node selections disjoint")
    is_dep = np.zeros(n_full, dtype=bool)
    is_dep[dependent] = True
    for _, cols, _ in constraints:
        if is_dep[cols].any():
            raise ModelError("an interface spider connects to a node of another spider; make them disjoint")
    independent = np.flatnonzero(~is_dep)
    column_of = np.full(n_full, -1, dtype=np.int64)
    column_of[independent] = np.arange(independent.size)
    rows = [independent]
    cols = [np.arange(independent.size)]
    vals = [np.ones(independent.size)]
    for dep, c, coef in constraints:
        rows.append(np.repeat(dep, c.shape[1]))
        cols.append(column_of[c].ravel())
        vals.append(coef.ravel())
    t = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(n_full, independent.size))
    t.eliminate_zeros()
    return t, independent


def solid_model(mesh: Mesh, material: Material | str | dict | None = None) -> FEModel:
    """Assemble a solid FE model with scikit-fem.

    Parameters
    ----------
    mesh : Mesh
    material : Material, str, dict or None
        One material for the whole mesh, or ``{element_set_name: material, ...}`` (every element must be covered;
        a key ``"*"`` gives the default). None (default): the materials of the mesh file (``mesh.materials``, e.g.
        an Abaqus ``*Solid Section``); a mesh without any is a :class:`MaterialError` (there is no default
        material). A material given here replaces the file's.
    """
    if material is None:
        if not mesh.materials:
            raise MaterialError(f"{mesh.source or 'the mesh'} defines no material; give one (--material steel, "
                                "cast-iron, aluminium or E=..,nu=..,rho=.. in SI)")
        material = mesh.materials
    from fem.solid import assemble_mass, assemble_stiffness, discretize, lumped_mass

    lam, mu, rho = _element_materials(mesh, material)
    disc: SolidDiscretization = discretize(mesh)
    stiffness = assemble_stiffness(disc, lam, mu)
    mass = assemble_mass(disc, rho)
    disc.release_pattern()  # the assembly pattern (≈ 75 MB at 177k dofs) is not needed after the assembly
    return_freed_memory()  # the assembly's temporaries (0.12 GB of free heap at 177k dofs: issue 46)
    n = mesh.n_nodes
    translation_dofs = np.arange(3 * n).reshape(n, 3)
    return FEModel(mesh.points, mesh.node_ids, stiffness, mass, translation_dofs, np.full((n, 3), -1),
                   mesh=mesh, solid=disc, lame=(lam, mu), lumped=lumped_mass(disc, rho), exactly_symmetric=True)


def _element_materials(mesh: Mesh, material):
    n = mesh.n_elements
    if not isinstance(material, dict):
        material = {"*": material}
    mats = {k: parse_material(v) for k, v in material.items()}
    lam, mu, rho = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)

    def assign(elems, mat):
        l_, m_ = lame_parameters(mat.youngs_modulus, mat.poisson_ratio)
        lam[elems], mu[elems], rho[elems] = l_, m_, mat.density

    if "*" in mats:
        assign(slice(None), mats["*"])
    for set_name, mat in mats.items():
        if set_name == "*":
            continue
        if set_name not in mesh.element_sets:
            known = ", ".join(sorted(mesh.element_sets)) or "none"
            raise ModelError(f"material region {set_name!r} is not an element set of the mesh (sets: {known})")
        assign(mesh.element_sets[set_name], mat)
    if np.isnan(rho).any():
        raise ModelError(f"{int(np.isnan(rho).sum())} element(s) have no material; add a default with key '*'")
    return lam, mu, rho


def frame_model(points, elements, section, material: Material | str = "steel", orientation=None,
                node_ids=None) -> FEModel:
    """Assemble a 3D Euler–Bernoulli frame model (6 dofs per node), see :mod:`fem.beam`."""
    from fem.beam import FrameData, frame_element_matrices

    points = np.asarray(points, dtype=float)
    elements = np.asarray(elements, dtype=np.int64)
    mat = parse_material(material)
    ke, me = frame_element_matrices(points, elements, section, mat.youngs_modulus, mat.shear_modulus,
                                    mat.density, orientation)
    n = len(points)
    dofs = (6 * elements[:, :, None] + np.arange(6)).reshape(len(elements), 12)
    rows = np.repeat(dofs, 12, axis=1).ravel()
    cols = np.tile(dofs, (1, 12)).ravel()
    k = sp.csr_matrix((ke.ravel(), (rows, cols)), shape=(6 * n, 6 * n))
    m = sp.csr_matrix((me.ravel(), (rows, cols)), shape=(6 * n, 6 * n))
    all_dofs = np.arange(6 * n).reshape(n, 6)
    ids = np.arange(1, n + 1) if node_ids is None else node_ids
    model = FEModel(points, ids, _symmetric(k), _symmetric(m), all_dofs[:, :3], all_dofs[:, 3:],
                    exactly_symmetric=True)
    model.frame = FrameData(elements, section, mat.youngs_modulus, orientation)  # for fem.geometric
    return model
