"""``reduce(model, interfaces, n_modes)``: an FE model in, a :class:`FlexBody` out.

Pipeline (seed 003 §2.1.2.1, §2.1.2.3): Craig–Bampton basis with one factorization → orthonormalization and
rigid-mode removal → expansion to all FE dofs (spiders included) → invariants I1..I9 from the consistent mass matrix
→ modal stress at output nodes → reduction report (fixed-interface, full free–free and reduced frequencies, MAC).
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from fem.analysis import modal_analysis
from fem.canonical import CONVENTION_VERSION
from fem.errors import ModelError
from fem.model import FEModel
from reduction.craig_bampton import COMPLETE_MAX, craig_bampton, orthonormalize
from reduction.flexbody import FlexBody, Interface, SlidingPath, compute_invariants
from reduction.modes_report import CUTOFF_FACTOR, accuracy_warnings, character_names, mode_characters, pair_modes
from reduction.stressfield import modal_stress_field, stress_field_nodes

__all__ = ["reduce", "damping_ratios", "mac_matrix", "paired_mac", "ReductionAccuracyWarning"]


class ReductionAccuracyWarning(UserWarning):
    """A low free–free mode of the reduced body is off by more than the tolerance (the message names the remedy)."""


def damping_ratios(frequencies_hz: np.ndarray, damping) -> np.ndarray:
    """Modal damping ratio per mode (seed 003 eq. 2-172, 2-173; 1 % and 5 % were used there).

    ``damping``: a constant ratio, or frequency bands ``[(f_upper_hz, ratio), ...]`` ascending (modes above the
    last band keep the last ratio), or a callable ``ratio(f_hz)``.
    """
    f = np.asarray(frequencies_hz, dtype=float)
    if callable(damping):
        ratios = np.array([float(damping(x)) for x in f])
    elif np.isscalar(damping):
        ratios = np.full(f.size, float(damping))
    else:
        bands = sorted((float(a), float(b)) for a, b in damping)
        ratios = np.array([next((r for upper, r in bands if x <= upper), bands[-1][1]) for x in f])
    if np.any(ratios < 0) or np.any(ratios >= 1):
        raise ModelError("modal damping ratios must be in [0, 1), e.g. 0.01 for 1 %")
    return ratios


def mac_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Modal assurance criterion ``|aᵢᵀ bⱼ|² / (aᵢᵀ aᵢ · bⱼᵀ bⱼ)``, (n_a, n_b)."""
    num = (a.T @ b) ** 2
    return num / np.outer(np.einsum("ij,ij->j", a, a), np.einsum("ij,ij->j", b, b))


def paired_mac(reduced: np.ndarray, reduced_hz: np.ndarray, full: np.ndarray, full_hz: np.ndarray,
               cluster: float = 0.01) -> np.ndarray:
    """MAC of each reduced mode with its full-model partner.

    Repeated frequencies (a square bar's bending pairs) make single mode shapes arbitrary within their
    eigenspace, so a reduced mode is compared with the *span* of the full modes whose frequencies lie within
    ``cluster`` (relative) of its own — the share of the mode lying in that span; for an isolated mode this is
    the ordinary MAC with its partner.
    """
    out = np.zeros(reduced.shape[1])
    for i, f in enumerate(reduced_hz):
        near = np.flatnonzero(np.abs(full_hz / f - 1.0) <= cluster) if f > 0 else np.zeros(0, dtype=int)
        if near.size == 0:
            near = np.array([int(np.argmin(np.abs(full_hz - f)))])
        basis, _ = np.linalg.qr(full[:, near])
        v = reduced[:, i]
        out[i] = float(np.sum((basis.T @ v) ** 2) / (v @ v))
    return out


def _boundary_dofs(model: FEModel, interfaces: Mapping[str, str]) -> tuple[np.ndarray, list[Interface]]:
    dofs, items = [], []
    for name, retained in interfaces.items():
        if name not in model.references:
            known = ", ".join(model.references) or "none"
            raise ModelError(f"interface {name!r} has no reference node in the model (defined: {known})")
        retained = retained or "123456"
        if not set(retained) <= set("123456") or len(set(retained)) != len(retained):
            raise ModelError(f"interface {name!r}: retained dofs {retained!r} must be digits from 123456")
        ref = model.references[name]
        full = model.node_dofs(ref.node, "".join(sorted(retained)))
        dofs.append(model.independent_index(full))
        items.append(Interface(name, -1, ref.spider, model.node_ids[ref.connected], "".join(sorted(retained))))
    if not dofs:
        return np.zeros(0, dtype=np.int64), items
    return np.concatenate(dofs), items


def reduce(model: FEModel, interfaces: Mapping[str, str] | Sequence[str], n_modes: int,
           output_nodes: np.ndarray | None = None, damping=0.0, name: str = "body",
           compare_modes: int | None = None, progress: Callable[[str], None] | None = None,
           stress_field="surface", paths: Mapping | None = None,
           max_frequency: float | None = None, geometric_stiffness: bool = False, solver: str = "auto",
           compare_method: str = "reuse", release: bool = False) -> FlexBody:
    """Reduce an FE model to a flexible body.

    Parameters
    ----------
    model : FEModel
        With reference nodes for the interfaces (``model.add_reference_node``).
    interfaces : dict[str, str] or list[str]
        Interface names and their retained dofs (``"123456"`` all, ``"123"`` translations only, e.g. for a
        spherical joint: seed 003 §5.1.2). A list retains all six.
    n_modes : int
        Fixed-interface normal modes. The body gets ``n_modes + n_boundary − 6`` elastic coordinates.
    output_nodes : (n_out,) int, optional
        Interior node indices kept for contacts and stress output (default: the interface reference nodes only).
        All mesh nodes keep translational shape rows anyway (for drawing); output nodes add modal stress.
    damping : float, bands or callable
        Modal damping ratios, see :func:`damping_ratios`.
    compare_modes : int, optional
        Number of elastic full free–free FE modes computed for the report (default: the number of elastic modes of
        the body, at most 20; 0 skips the comparison and its extra factorization).
    progress : callable(str), optional
    stress_field : str, sequence of str, int array or None
        Where the body keeps modal stress for durability (:mod:`reduction.stressfield`): ``"surface"`` (default,
        every surface node), ``"all"`` (every mesh node), node-set selectors (``"group:fillet"``, a list of them)
        or node indices; ``"none"``/None for no field (frame models have none).
    paths : dict[str, selector | indices | (selector | indices, dofs)], optional
        Sliding paths for :class:`flexmbs.SlidingContact` (seed 003 §5.1.1): chains of at least 2 mesh nodes.
        With ``dofs`` (e.g. ``"3"``) the translations of every path node along those axes become boundary dofs
        (static modes: exact static response to contact loads along them); without, the nodes stay interior
        (modal recovery only, as in the thesis; add normal modes to compensate).
    max_frequency : float, Hz, optional
        Cut-off criterion: the highest frequency of interest ``F``; every fixed-interface mode up to
        ``CUTOFF_FACTOR · F`` (:data:`reduction.modes_report.CUTOFF_FACTOR` = 2) is retained and ``n_modes`` is
        only the first guess of how many to solve for.
    geometric_stiffness : bool
        Also compute the modal geometric stiffness matrices (:mod:`reduction.geometric`, issue 28) so that the
        body stiffens under centrifugal and tensile loads and softens under compression (frame and solid models).
    solver : {"auto", "direct", "iterative"}
        Interior solves: PARDISO's factorization, AMG-preconditioned CG and LOBPCG, or chosen from the factor's
        estimated size and the free memory (:mod:`reduction.solvers`; refused in one line when nothing fits).
    compare_method : {"reuse", "full"}
        The report's full free–free modes: with the interior solver of the reduction (no second factorization,
        residual :data:`reduction.solvers.COMPARE_TOL`), or by a separate modal analysis of the full model with its
        own factorization of ``K − σM``.
    release : bool
        Free the model's assembled full stiffness once the interior blocks exist, the solid's quadrature-point basis,
        and (unless a separate modal analysis or the geometric stiffness needs it) the independent-dof stiffness
        (applied from its blocks then); the model cannot be changed or reduced again afterwards (the command line
        does this).

    Returns
    -------
    FlexBody

    Notes
    -----
    Runs with OpenBLAS (NumPy's and SciPy's dense BLAS) on one thread; PARDISO (MKL) keeps its threads. The dense
    products here are thin (n × tens of columns) and memory-bound: measured on the shared 2-core machine
    (docs/benchmarks.md, "Reduction at its limit"), the second OpenBLAS thread mostly spin-waited.
    """
    if isinstance(n_modes, bool) or not isinstance(n_modes, (int, np.integer)) or n_modes < 0:
        raise ModelError(f"n_modes must be a whole number of fixed-interface modes (0 or more), got {n_modes!r}")
    if not (hasattr(model, "add_reference_node") and hasattr(model, "node_dofs")):  # issue 43: None: AttributeError
        raise ModelError(f"reduce expects an FE model (fem.model.solid_model(...), with its interfaces' reference "
                         f"nodes added), got {type(model).__name__}")
    if interfaces is None or isinstance(interfaces, str):
        raise ModelError(f"interfaces must be the names of the model's reference nodes (a list, or a dict of name: "
                         f"retained dofs such as '123456'), got {interfaces!r}")
    if compare_method not in ("reuse", "full"):
        raise ModelError(f"compare_method {compare_method!r}: use reuse (the reduction's own solver) or full (a "
                         "second factorization)")
    with _openblas_one_thread():
        return _reduce(model, interfaces, n_modes, output_nodes, damping, name, compare_modes, progress,
                       stress_field, paths, max_frequency, geometric_stiffness, solver, compare_method, release)


def _openblas_one_thread():
    """Context: OpenBLAS (all copies loaded, NumPy's and SciPy's) limited to one thread, restored on exit."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(internal_api="openblas").limit(limits=1)


def _reduce(model, interfaces, n_modes, output_nodes, damping, name, compare_modes, progress, stress_field, paths,
            max_frequency, geometric_stiffness, solver="auto", compare_method="reuse", release=False) -> FlexBody:
    say = progress or (lambda message: None)
    start = time.perf_counter()
    if not isinstance(interfaces, Mapping):
        interfaces = {name_: "123456" for name_ in interfaces}
    if not interfaces and not paths:  # issue 48: a free–free modal basis
        return _reduce_free_free(model, n_modes, output_nodes, damping, name, say, stress_field, geometric_stiffness,
                                 max_frequency, start)
    boundary, items = _boundary_dofs(model, interfaces)
    sliding, path_boundary = _paths(model, paths or {})
    boundary = np.concatenate([boundary, path_boundary])
    pieces = model.connected_pieces()
    if pieces > 1:
        raise ModelError(f"the mesh has {pieces} disconnected pieces; a flexible body must be one connected part "
                         "(mesh the parts separately or join them)")
    if max_frequency is not None and not max_frequency > 0.0:
        raise ModelError(f"max_frequency must be a positive frequency in Hz, got {max_frequency}")
    cutoff = None if max_frequency is None else CUTOFF_FACTOR * float(max_frequency)
    from reduction.solvers import Phases, phase_estimates

    n_compare = min(n_modes + boundary.size - 6, 20) if compare_modes is None else int(compare_modes)
    reuse = n_compare > 0 and compare_method == "reuse" and model.n_dofs > COMPARE_DENSE_MAX
    phases = Phases(phase_estimates(model.n_dofs, "direct", n_compare > 0), say)
    # the model's own K is freed too unless a later step asks for it (a separate modal analysis, the geometric
    # stiffness): the reduction applies it from K_ii and the couplings (issue 46)
    cb = craig_bampton(model, boundary, n_modes, say, max_frequency_hz=cutoff, solver=solver, keep_solver=reuse,
                       phases=phases, release=release and not geometric_stiffness,
                       release_stiffness=reuse or n_compare == 0)
    try:
        phases.start("orthonormalization")
        say("orthonormalizing the Craig–Bampton basis (eq. 2-140) and removing rigid-body modes")
        ortho = orthonormalize(model, cb)
        omega2 = np.maximum(ortho.eigenvalues, 0.0)
        frequencies = np.sqrt(omega2) / (2.0 * np.pi)
        n_compare = min(frequencies.size, 20) if compare_modes is None else n_compare
        comparison = None
        if n_compare > 0:
            phases.start("free-free comparison")
            comparison = _free_free_comparison(model, cb, ortho, n_compare, reuse, say)
    finally:
        cb.release()  # the factor (or the multigrid hierarchy) is not needed past here
    statistics = cb_statistics(cb)
    phases.start("invariants, stress field, file")
    modes = np.asarray(model.expand(ortho.elastic))  # (n_full, m)
    say("invariants I1..I9 from the consistent mass matrix")
    invariants = compute_invariants(model.full_mass, modes, model.positions, model.translation_dofs,
                                    _rotation_dofs_or_none(model))
    body = _assemble_body(model, modes, frequencies, damping_ratios(frequencies, damping), invariants, items,
                          output_nodes, name)
    if model.solid is not None:
        field_nodes, scope = stress_field_nodes(model, stress_field)
        if field_nodes.size:
            body.stress_field = modal_stress_field(model, modes, field_nodes, scope, say)
    body.paths = sliding
    if geometric_stiffness:  # issue 28: modal geometric stiffness of the unit load cases
        from reduction.geometric import modal_geometric_stiffness

        body.geometric_stiffness = modal_geometric_stiffness(model, cb, ortho.elastic, say)
    body.report = _report(model, cb, ortho, frequencies, modes, comparison, say, max_frequency)
    body.report.update(statistics)
    if cutoff is not None:
        body.report.update({"max_frequency_hz": float(max_frequency), "cutoff_factor": CUTOFF_FACTOR,
                            "cutoff_hz": cutoff})
    body.report.update({"n_normal_modes": cb.n_normal_modes, "n_boundary_dofs": int(boundary.size),
                        "physical_dofs": int(model.n_dofs), "seconds": time.perf_counter() - start})
    return body


def _reduce_free_free(model, n_modes, output_nodes, damping, name, say, stress_field, geometric_stiffness,
                      max_frequency, start) -> FlexBody:
    """A body on the lowest ``n_modes`` elastic free–free modes of the full model (no interfaces): the rigid-body
    modes are dropped, the elastic ones are mass-orthogonal to them (the floating frame of the Craig–Bampton bodies);
    markers then sit on output nodes or averaging markers (:meth:`flexmbs.FlexibleBody.add_averaging_node`).
    Its frequencies are the full model's by construction; static interface loads are represented by the modes only
    (converge with ``n_modes``)."""
    if geometric_stiffness:
        raise ModelError("geometric_stiffness needs interfaces (its load cases are interface loads); give at least "
                         "one interface or leave it off")
    if max_frequency is not None:
        raise ModelError("max_frequency chooses fixed-interface modes; for a free–free basis give n_modes")
    if n_modes < 1:
        raise ModelError(f"a free–free basis needs at least 1 elastic mode, got n_modes={n_modes}")
    say(f"free–free modal basis: {n_modes} elastic modes of the full model (no interfaces)")
    if n_modes + 6 > model.n_dofs:
        raise ModelError(f"asked for {n_modes} elastic modes but the part has {model.n_dofs - 6} (n_modes = "
                         f"{model.n_dofs - 6} gives the complete basis)")
    if n_modes + 6 == model.n_dofs:  # the complete basis, dense (a cross-check for small models)
        if model.n_dofs > COMPLETE_MAX:
            raise ModelError(f"a complete free–free basis is solved densely, for models up to {COMPLETE_MAX} dofs; "
                             "ask for fewer modes")
        full = _dense_modes(model)
    else:
        full = modal_analysis(model, n_modes + 6)
    hz = full.frequencies_hz
    if not np.all(np.abs(hz[:6]) < 1e-3 * hz[6]):
        raise ModelError("the free–free model does not have six rigid-body modes well below the first elastic one "
                         f"(lowest frequencies {', '.join(f'{f:.3g}' for f in hz[:7])} Hz): a mechanism or a "
                         "disconnected mesh; check the mesh")
    modes, frequencies = np.asarray(full.modes[:, 6:]), hz[6:].copy()
    say("invariants I1..I9 from the consistent mass matrix")
    invariants = compute_invariants(model.full_mass, modes, model.positions, model.translation_dofs,
                                    _rotation_dofs_or_none(model))
    body = _assemble_body(model, modes, frequencies, damping_ratios(frequencies, damping), invariants, [],
                          output_nodes, name)
    if model.solid is not None:
        field_nodes, scope = stress_field_nodes(model, stress_field)
        if field_nodes.size:
            body.stress_field = modal_stress_field(model, modes, field_nodes, scope, say)
    body.paths = {}
    body.report = {"basis": "free-free", "fixed_interface_hz": np.zeros(0), "rigid_modes_removed": 6,
                   "reduced_hz": frequencies, "source": model.mesh.source if model.mesh is not None else "",
                   **_canonical_report(None, frequencies.size), "full_free_free_hz": frequencies,
                   "mac": np.ones(frequencies.size), "n_normal_modes": int(n_modes), "n_boundary_dofs": 0,
                   "physical_dofs": int(model.n_dofs), "seconds": time.perf_counter() - start}
    return body


def _dense_modes(model):
    """All eigenpairs of a small model (dense), in the canonical form of :mod:`fem.canonical`."""
    import scipy.linalg as sla

    from fem.analysis import ModalResult
    from fem.canonical import canonical_transform

    values, vectors = sla.eigh(model.stiffness.toarray(), model.mass.toarray())
    modes = np.asarray(model.expand(vectors))
    zero = np.abs(values) < 1e-8 * np.abs(values).max()
    q, values, _ = canonical_transform(modes, values, model.full_mass, model.positions, model.translation_dofs,
                                       zero=zero)
    return ModalResult(np.sign(values) * np.sqrt(np.abs(values)) / (2.0 * np.pi), modes @ q)


def _paths(model: FEModel, paths: Mapping) -> tuple[dict, np.ndarray]:
    """Resolve sliding paths to node indices (sorted along the path) and their boundary dofs."""
    out, dofs = {}, []
    for name, spec in paths.items():
        nodes, retained = (spec if isinstance(spec, tuple) else (spec, ""))
        retained = retained or ""
        if not set(retained) <= set("123") or len(set(retained)) != len(retained):
            raise ModelError(f"path {name!r}: retained dofs {retained!r} must be translations from 123 (or empty)")
        idx = model.select(nodes) if isinstance(nodes, str) else np.unique(np.asarray(nodes, dtype=np.int64))
        if idx.size < 2:
            raise ModelError(f"path {name!r}: the selector matches {idx.size} node(s); a sliding path needs at "
                             "least 2 nodes")
        pts = model.positions[idx]
        direction = np.linalg.svd(pts - pts.mean(axis=0), full_matrices=False)[2][0]
        direction *= np.sign(direction[np.argmax(np.abs(direction))])  # ascending along the main axis
        idx = idx[np.argsort(pts @ direction, kind="stable")]
        if retained:
            dofs.append(model.independent_index(model.node_dofs(idx, "".join(sorted(retained)))))
        out[name] = SlidingPath(name, idx, "".join(sorted(retained)))
    return out, (np.concatenate(dofs) if dofs else np.zeros(0, dtype=np.int64))


def _rotation_dofs_or_none(model: FEModel):
    return model.rotation_dofs if np.any(model.rotation_dofs >= 0) else None


def _assemble_body(model, modes, frequencies, ratios, invariants, items, output_nodes, name) -> FlexBody:
    translations = modes[model.translation_dofs]  # (n, 3, m)
    has_rotation = model.rotation_dofs[:, 0] >= 0
    rotations = np.zeros(translations.shape)  # not zeros_like: fresh zero pages, only the few 6-dof nodes written
    rotations[has_rotation] = modes[model.rotation_dofs[has_rotation]]
    for item in items:
        item.node = int(model.references[item.name].node)
    outputs = np.unique(np.asarray(output_nodes if output_nodes is not None else [], dtype=np.int64))
    if outputs.size and (outputs.min() < 0 or outputs.max() >= model.n_nodes):
        raise ModelError(f"output node index out of range 0..{model.n_nodes - 1}")
    if model.solid is not None and outputs.size:
        mesh_outputs = outputs[outputs < model.mesh.n_nodes]
        stress = model.stress(modes, mesh_outputs)
        outputs = mesh_outputs
    else:
        stress = np.zeros((outputs.size, 6, modes.shape[1]))
    surface = np.zeros((0, 3), dtype=np.int64)
    if model.mesh is not None:  # fem.mesh (meshio) for a solid mesh only: the build's warm-up (a frame) needs none
        from fem.mesh import boundary_triangles

        surface = boundary_triangles(model.mesh)
    return FlexBody(name=name, node_ids=model.node_ids.copy(), positions=model.positions.copy(),
                    translations=translations, rotations=rotations, has_rotation=has_rotation,
                    frequencies_hz=frequencies, damping_ratios=ratios, invariants=invariants, interfaces=items,
                    output_nodes=outputs, modal_stress=stress, nodal_masses=model.nodal_masses(), surface=surface)


def _canonical_report(info: dict | None, n_modes: int) -> dict:
    """Mode convention entries of the report: version, group number per mode, dropped in-group coupling."""
    groups = np.arange(n_modes)
    for members in (info or {}).get("groups", []):
        groups[members] = members[0]
    return {"canonical_modes_version": CONVENTION_VERSION, "mode_groups": groups,
            "canonical_max_coupling": float((info or {}).get("max_coupling", 0.0)),
            "canonical_incomplete_groups": len((info or {}).get("incomplete", []))}


def _report(model, cb, ortho, frequencies, modes, comparison, say, max_frequency=None) -> dict:
    report = {
        "fixed_interface_hz": cb.fixed_interface_hz,
        "rigid_modes_removed": int(ortho.rigid.shape[1]),
        "reduced_hz": frequencies,
        "source": model.mesh.source if model.mesh is not None else "",
        **_canonical_report(ortho.canonical, frequencies.size),
    }
    if comparison is not None:
        full_hz, full_modes, method = comparison
        n_compare = full_hz.size
        trans = model.translation_dofs.ravel()
        reduced_shapes, full_shapes = modes[trans][:, :n_compare], full_modes[trans]
        report["full_free_free_hz"] = full_hz
        report["comparison_method"] = method
        report["mac"] = paired_mac(reduced_shapes, frequencies[:n_compare], full_shapes, full_hz)
        report["mac_matrix"] = mac_matrix(reduced_shapes, full_shapes)
        report.update(_paired_report(model, modes, frequencies, full_modes, full_hz, max_frequency))
    return report


#: models up to this many dofs are compared by the separate modal analysis (dense or one small factorization)
COMPARE_DENSE_MAX = 3000


def cb_statistics(cb) -> dict:
    """What the interior solver did (route, factor size or multigrid levels and iterations) for the report."""
    stats = dict(getattr(cb, "statistics", None) or {})
    return {f"solver_{k}": (np.asarray(v) if isinstance(v, list) else v) for k, v in stats.items() if v is not None}


def _free_free_comparison(model, cb, ortho, n_compare: int, reuse: bool, say):
    """The full model's lowest ``n_compare`` elastic free–free modes (Hz, expanded shapes, method)."""
    from fem.canonical import GROUP_PAD, canonical_transform

    if not reuse:
        say(f"full free–free FE modal analysis ({n_compare} elastic modes) for the report (second factorization)")
        full = modal_analysis(model, n_compare + 6)
        return full.frequencies_hz[6:], np.asarray(full.modes[:, 6:]), "modal analysis of the full model (its own " \
                                                                         "factorization of K − σM)"
    from reduction.solvers import free_free_modes

    n_solve = n_compare + GROUP_PAD
    start = ortho.elastic  # all reduced elastic modes: those beyond n_solve are guard vectors
    say(f"full free–free modes ({n_compare} elastic) for the report with the reduction's own solver "
        f"({cb.solver.route}; no second factorization)")
    values, vectors, method = free_free_modes(model, cb, start, n_solve, say)
    cb.release()  # the factor is not needed for the canonical form below (its temporaries come on top otherwise)
    shapes = np.asarray(model.expand(vectors))
    q, values, _ = canonical_transform(shapes, values, model.full_mass, model.positions, model.translation_dofs)
    values = values[:n_compare]
    hz = np.sign(values) * np.sqrt(np.abs(values)) / (2.0 * np.pi)
    return hz, shapes @ q[:, :n_compare], method


def _paired_report(model, modes, frequencies, full_modes, full_hz, max_frequency=None) -> dict:
    """Full modes paired with reduced ones by shape (:mod:`reduction.modes_report`), error, character, warnings."""
    trans = model.translation_dofs
    partner, mac, member = pair_modes(modes[trans.ravel()], full_modes[trans.ravel()], full_hz)
    fractions, participation = mode_characters(full_modes[trans], model.positions, model.nodal_masses())
    characters = character_names(fractions, participation)
    error = np.where(partner >= 0, frequencies[np.maximum(partner, 0)] / full_hz - 1.0, np.nan)
    lines = accuracy_warnings(full_hz, frequencies, partner, mac, characters, max_frequency=max_frequency)
    for line in lines:
        warnings.warn(line, ReductionAccuracyWarning, stacklevel=4)
    return {"pair_reduced": partner, "pair_mac": mac, "pair_member_mac": member, "pair_error": error,
            "character_fractions": fractions, "participation": participation, "characters": ",".join(characters),
            "warnings": "\n".join(lines)}
