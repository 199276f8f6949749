"""The machine as stored in a results file: body shapes in their frames and their poses over time.

Reads the static ``/model`` group the multibody core writes next to the signals (see ``flexmbs.engine.recorder``
``model_description``): per body its type and, for flexible bodies, undeformed node positions, translational shape
rows of the simulated modes, surface triangles, output nodes and their modal stress; per marker its body and local
position. Poses come from the signals ``body/NAME/position`` (m) and ``body/NAME/orientation`` (Euler parameters),
elastic coordinates from ``body/NAME/modal_coordinates``.

A deformed node of a flexible body is at ``x = r + A (s_p + S_p q_f)`` (seed 003 eq. (2-145)). A rigid body is drawn
from ``node_positions`` + ``surface`` if its entry has them (body frame, m), otherwise from a simple shape derived
from its markers (tubes from their centroid to each marker and to the frame origin, balls at the markers).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from fem.errors import FileFormatError, FlexmbsError

from flexmbs.model.rotations import rotation_matrix

__all__ = ["BodyShape", "MachineScene", "load_scene", "as_scene", "von_mises", "node_chain"]


def von_mises(stress: np.ndarray) -> np.ndarray:
    """Von Mises equivalent stress of components ``(..., 6)`` in order xx, yy, zz, yz, xz, xy (Pa → Pa).

    ``σ_v = sqrt(½[(σxx−σyy)² + (σyy−σzz)² + (σzz−σxx)²] + 3 (τyz² + τxz² + τxy²))``
    """
    from flexmbs.post.durability import equivalent_stress

    return equivalent_stress(stress, "von_mises")


@dataclass
class BodyShape:
    """One body of the scene.

    Attributes
    ----------
    name, kind : str            kind is the body class name (``"FlexibleBody"``, ``"RigidBody"``, ``"Ground"``)
    points : (n, 3) float, m    undeformed points in the body frame
    triangles : (n_tri, 3) int
    lines : (n_lines, 2) int    segments drawn for flexible bodies without a surface (frame-element models)
    translations : (n, 3, m)    shape rows of the simulated modes (flexible bodies), m per unit modal coordinate
    output_nodes : (n_out,) int indices into ``points`` with modal stress
    modal_stress : (n_out, 6, m) Pa per unit modal coordinate, components xx, yy, zz, yz, xz, xy (body axes)
    node_ids : (n,) int or None mesh node ids, if the file stores them
    mode_indices : (m,) int     which modes of the FlexBody file were simulated
    derived : bool              True if the shape was made from the markers (no geometry in the file)
    stress_nodes : (n_s,) int   indices into ``points`` of the full stress field (surface, all nodes or sets)
    stress_field : (n_s, 6, m) float32, Pa per unit modal coordinate (simulated modes), see flexmbs.post.durability
    """

    name: str
    kind: str
    points: np.ndarray
    triangles: np.ndarray
    lines: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    translations: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 0)))
    output_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    modal_stress: np.ndarray = field(default_factory=lambda: np.zeros((0, 6, 0)))
    node_ids: np.ndarray | None = None
    mode_indices: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    derived: bool = False
    stress_nodes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    stress_field: np.ndarray = field(default_factory=lambda: np.zeros((0, 6, 0), dtype=np.float32))

    @property
    def flexible(self) -> bool:
        return self.translations.shape[-1] > 0

    def stress_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Nodes with modal stress and their modal stress: the full field if stored, else the output nodes."""
        if self.stress_nodes.size:
            return self.stress_nodes, self.stress_field
        return self.output_nodes, self.modal_stress


class MachineScene:
    """Bodies, markers and their motion from a ``*.results.h5`` file.

    Attributes
    ----------
    path : str
    time : (n_t,) float, s
    bodies : list of BodyShape      (ground last, if it has markers)
    markers : dict name -> (body name, local position (3,) m)
    """

    def __init__(self, path: str, time, bodies, markers, poses, modal):
        self.path = path
        self.time = time
        self.bodies: list[BodyShape] = bodies
        self.markers = markers
        self._poses = poses  # name -> (positions (n_t, 3), orientations (n_t, 4))
        self._modal = modal  # name -> (n_t, m)

    def body(self, name: str) -> BodyShape:
        for b in self.bodies:
            if b.name == name:
                return b
        import difflib

        names = [b.name for b in self.bodies if b.kind != "Ground"]
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise FlexmbsError(f"no body {name!r} in {self.path!r} (bodies: {', '.join(names)}){hint}")

    def modal_coordinates(self, name: str) -> np.ndarray:
        """Elastic coordinates of a flexible body, (n_t, m), m kg^0.5."""
        body = self.body(name)
        if not body.flexible:
            raise FlexmbsError(f"body {name!r} is {body.kind}, not a flexible body: it has no modal coordinates")
        return self._modal[name]

    def pose(self, name: str, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Frame origin (3,) m and rotation matrix body → global (3, 3) of body ``name`` at sample ``k``."""
        if name not in self._poses:
            return np.zeros(3), np.eye(3)
        r, p = self._poses[name]
        quat = p[k] / np.linalg.norm(p[k])
        return r[k], rotation_matrix(quat)

    def elastic_displacement(self, name: str, k: int) -> np.ndarray:
        """Elastic displacement ``S q_f`` of every node in the body frame at sample ``k``, (n, 3), m."""
        body = self.body(name)
        if not body.flexible:
            return np.zeros_like(body.points)
        return body.translations @ self._modal[name][k]

    def points(self, name: str, k: int, scale: float = 1.0) -> np.ndarray:
        """Global positions ``r + A (s + scale · S q_f)`` of the body's points at sample ``k``, (n, 3), m."""
        body = self.body(name)
        r, a = self.pose(name, k)
        local = body.points + scale * self.elastic_displacement(name, k) if body.flexible else body.points
        return r + local @ a.T

    def nodal_von_mises(self, name: str, k: int) -> np.ndarray:
        """Von Mises stress at every point of the body at sample ``k``, (n,), Pa; NaN where none is known
        (points outside the stress field and the output nodes, rigid bodies)."""
        body = self.body(name)
        out = np.full(body.points.shape[0], np.nan)
        if body.flexible:
            nodes, modal = body.stress_table()
            if nodes.size:
                out[nodes] = von_mises(modal @ self._modal[name][k].astype(modal.dtype))
        return out


def load_scene(path: str) -> MachineScene:
    """Read the model description and the motion of a results file."""
    from flexmbs.results.results import _open_results  # a cut file is named as cut (issue 43)

    with _open_results(path) as fh:
        if fh.attrs.get("format") != "flexmbs-results":
            raise FileFormatError(f"{path!r} is not a flexmbs results file (format {fh.attrs.get('format')!r})")
        if "model/bodies" not in fh:
            raise FileFormatError(f"{path!r} has no /model/bodies group: it was written without the model "
                                  "description, nothing to draw")
        time = fh["time"][()] if "time" in fh else np.zeros(0)
        markers = {str(name): (_text(g.attrs.get("body", "ground")), g["local_position"][()]
                               if "local_position" in g else np.zeros(3)) for name, g in fh["model/markers"].items()
                   } if "model/markers" in fh else {}
        bodies, poses, modal = [], {}, {}
        signals = fh["signals"] if "signals" in fh else {}
        q = fh.get("states/q")  # a run that did not request the poses: from the states
        for name, g in fh["model/bodies"].items():
            base = f"body/{name}/"
            at = (int(g["state_offset"][()]), int(g["n_coordinates"][()])) if "state_offset" in g else None
            if base + "position" in signals and base + "orientation" in signals:
                poses[name] = (signals[base + "position"][()], signals[base + "orientation"][()])
            elif q is not None and at is not None:
                poses[name] = (q[:, at[0]:at[0] + 3], q[:, at[0] + 3:at[0] + 7])
            if base + "modal_coordinates" in signals:
                modal[name] = signals[base + "modal_coordinates"][()]
            elif q is not None and at is not None and at[1] > 7:
                modal[name] = q[:, at[0] + 7:at[0] + at[1]]
            bodies.append(_body_shape(name, g))
    if time.size == 0:
        raise FileFormatError(f"{path!r} has no output times yet (the run stopped before its first sample)")
    n_t = time.size
    for name in list(poses):  # a crashed run may leave signals one row apart: keep the common length
        poses[name] = (poses[name][0][:n_t], poses[name][1][:n_t])
    _derive_rigid_shapes(bodies, markers, poses)
    return MachineScene(str(path), time, bodies, markers, poses, modal)


def as_scene(source) -> MachineScene:
    """A MachineScene from a scene, a results file path, or a :class:`flexmbs.Results` that was written to a file."""
    if isinstance(source, MachineScene):
        return source
    if isinstance(source, (str, os.PathLike)):
        return load_scene(os.fspath(source))
    path = getattr(source, "path", None)
    if path:
        return load_scene(str(path))
    raise FlexmbsError("drawing needs a results file: run simulate(..., output='RUN.results.h5') or pass its path")


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _body_shape(name: str, g) -> BodyShape:
    kind = _text(g.attrs.get("type", "RigidBody"))
    get = lambda key, default: g[key][()] if key in g else default  # noqa: E731
    points = np.asarray(get("node_positions", np.zeros((0, 3))), dtype=float)
    triangles = np.asarray(get("surface", np.zeros((0, 3), dtype=int)), dtype=np.int64)
    ids = get("node_ids", None)
    translations = np.asarray(get("node_translations", np.zeros((points.shape[0], 3, 0))), dtype=float)
    stress = np.asarray(get("modal_stress", np.zeros((0, 6, translations.shape[-1]))), dtype=float)
    lines = node_chain(points) if translations.shape[-1] and not triangles.size else np.zeros((0, 2), np.int64)
    return BodyShape(name, kind, points, triangles, lines, translations,
                     np.asarray(get("output_nodes", np.zeros(0)), dtype=np.int64), stress,
                     None if ids is None else np.asarray(ids, dtype=np.int64),
                     np.asarray(get("mode_indices", np.arange(translations.shape[-1])), dtype=np.int64),
                     stress_nodes=np.asarray(get("stress_nodes", np.zeros(0)), dtype=np.int64),
                     stress_field=np.asarray(get("stress_field", np.zeros((0, 6, translations.shape[-1]))),
                                             dtype=np.float32))


def node_chain(points: np.ndarray) -> np.ndarray:
    """Segments between consecutive nodes of a flexible body without surface (a frame-element model stores its
    nodes along the beam), if every segment is about as short as its start node's nearest-neighbour distance;
    none otherwise (the body is drawn as points)."""
    from scipy.spatial import cKDTree

    n = points.shape[0]
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64)
    lengths = np.linalg.norm(np.diff(points, axis=0), axis=1)
    nearest = cKDTree(points).query(points[:-1], k=2)[0][:, 1]
    if np.any(lengths == 0.0) or np.any(lengths > 1.5 * nearest):
        return np.zeros((0, 2), dtype=np.int64)
    return np.column_stack([np.arange(n - 1), np.arange(1, n)]).astype(np.int64)


def _derive_rigid_shapes(bodies: list[BodyShape], markers: dict, poses: dict) -> None:
    """Give rigid bodies without geometry a shape from their markers; add the ground's markers as anchors."""
    import pyvista

    ground_points = [np.asarray(p, dtype=float) for b, p in markers.values() if b == "ground"]
    spots = [r[0] for r, _ in poses.values()] + ground_points + [b.points for b in bodies if b.points.size]
    cloud = np.vstack([np.atleast_2d(s) for s in spots]) if spots else np.zeros((1, 3))
    size = float(np.linalg.norm(cloud.max(axis=0) - cloud.min(axis=0))) or 1.0
    radius = 0.012 * size
    if ground_points and "ground" not in {b.name for b in bodies}:
        bodies.append(BodyShape("ground", "Ground", np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64)))
    for body in bodies:
        if body.points.size and (body.triangles.size or body.flexible):
            continue
        local = [np.asarray(p, dtype=float) for b, p in markers.values() if b == body.name]
        if body.kind == "Ground":
            pieces = [pyvista.Cube(center=p, x_length=3 * radius, y_length=3 * radius, z_length=3 * radius)
                      for p in local]
        else:
            pieces = _bone(local + [np.zeros(3)], radius, pyvista)
        mesh = pieces[0].merge(pieces[1:]) if len(pieces) > 1 else pieces[0]
        mesh = mesh.extract_surface(algorithm=None).triangulate().clean()
        body.points = np.asarray(mesh.points, dtype=float)
        body.triangles = mesh.faces.reshape(-1, 4)[:, 1:].astype(np.int64)
        body.translations = np.zeros((body.points.shape[0], 3, 0))
        body.derived = True


def _bone(points: list[np.ndarray], radius: float, pyvista) -> list:
    """Tubes from the centroid of distinct points to each point, balls at the points (a body with one point: a
    cube)."""
    unique: list[np.ndarray] = []
    for p in points:
        if all(np.linalg.norm(p - u) > radius for u in unique):
            unique.append(p)
    centre = np.mean(unique, axis=0)
    if len(unique) == 1:
        return [pyvista.Cube(center=centre, x_length=3 * radius, y_length=3 * radius, z_length=3 * radius)]
    pieces = [pyvista.Sphere(radius=1.6 * radius, center=p, theta_resolution=12, phi_resolution=12) for p in unique]
    pieces += [pyvista.Tube(pointa=centre, pointb=p, radius=radius, n_sides=12, capping=True).triangulate()
               for p in unique if np.linalg.norm(p - centre) > radius]
    return pieces
