"""The architecture of docs/architecture.md, kept true: packages and flexmbs's rooms import only downwards, and no
module takes part in an import circle.

Every ``import`` and ``from … import`` of the project's source is read with :mod:`ast` (also the ones inside
functions: a lazy import is still a dependency), resolved to a module of this project, and checked against the
tables below. A new module in a room needs no change here; a new room or package does (and a line in the docs).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("flexmbs_jit", "fem", "reduction", "flexmbs", "hydraulics", "cases")

# package -> packages of this project it may import (docs/architecture.md, "Packages")
PACKAGE_MAY_IMPORT = {
    "flexmbs_jit": set(),  # how kernels compile and where they are cached: under every package that compiles
    "fem": {"flexmbs_jit"},
    "reduction": {"fem", "flexmbs_jit"},
    "flexmbs": {"fem", "reduction", "flexmbs_jit"},
    "hydraulics": {"fem", "flexmbs_jit"},  # the element protocol is duck-typed: hydraulics never imports flexmbs
    "cases": {"flexmbs_jit", "fem", "reduction", "flexmbs", "hydraulics"},
}

# flexmbs's rooms, lowest first: a room may import the rooms before it (docs/architecture.md, "Rooms")
ROOMS = ("model", "results", "catalog", "engine", "post", "linear", "tree", "studies", "fmi", "cli")
BASE_MODULES = {"flexmbs._version", "flexmbs._shadow"}  # import nothing of flexmbs; every room may use them
FACADE = "flexmbs"  # flexmbs/__init__.py: re-exports the public names; nothing inside flexmbs imports it


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    """Every module of the five packages, by dotted name."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            modules[_module_name(path)] = path
    return modules


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports (anywhere in its source)."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # `from package import submodule` depends on the submodule, `from module import name` on the module
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # `import a.b.c` of a non-module attribute: its module
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def room_of(module: str) -> str | None:
    """The room of a flexmbs module, ``None`` for the facade, the base modules and ``__main__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in ROOMS or (len(parts) == 2 and parts[1] in ROOMS) else None


def layering_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import that runs against the tables above, as ``importer -> imported (why)``."""
    bad = []
    for importer, targets in graph.items():
        package = importer.split(".")[0]
        for target in targets:
            target_package = target.split(".")[0]
            if target_package != package:
                if target_package not in PACKAGE_MAY_IMPORT[package]:
                    bad.append(f"{importer} -> {target} (package {package} may not import {target_package})")
                continue
            if package != "flexmbs" or importer in (FACADE, "flexmbs.__main__"):
                continue
            if target == FACADE:
                bad.append(f"{importer} -> flexmbs (only users import the facade; import the room's module)")
                continue
            if target in BASE_MODULES:
                continue
            if importer in BASE_MODULES:
                bad.append(f"{importer} -> {target} (a base module imports nothing of flexmbs)")
                continue
            room, target_room = room_of(importer), room_of(target)
            if room is None or target_room is None:
                bad.append(f"{importer} -> {target} (module outside the rooms of docs/architecture.md)")
            elif ROOMS.index(target_room) > ROOMS.index(room):
                bad.append(f"{importer} -> {target} (room {room} may not import the later room {target_room})")
    return sorted(bad)


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, circles, counter = {}, {}, set(), [], [], [0]

    def visit(root):
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        circles.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter[0]
                counter[0] += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_packages_and_rooms_import_only_downwards():
    assert layering_violations(import_graph()) == []


def test_no_import_circles():
    assert import_circles(import_graph()) == []


def test_flexmbs_top_level_stays_small():
    """At most 12 modules beside the rooms (issue 25): a new module belongs in a room."""
    top = [p.name for p in (ROOT / "flexmbs").glob("*.py")]
    assert len(top) <= 12, sorted(top)
    assert {p.name for p in (ROOT / "flexmbs").iterdir() if p.is_dir() and (p / "__init__.py").exists()} == set(ROOMS)


@pytest.mark.parametrize("importer, imported, message", [
    ("flexmbs.model.bodies", "flexmbs.engine.solver", "room model may not import the later room engine"),
    ("flexmbs.engine.system", "flexmbs", "only users import the facade"),
    ("reduction.io", "flexmbs._version", "package reduction may not import flexmbs"),
    ("hydraulics.core", "flexmbs.model.forces", "package hydraulics may not import flexmbs"),
])
def test_a_back_edge_is_caught(importer, imported, message):
    """The checks above are not vacuous: an added back-edge is reported with its reason."""
    graph = import_graph()
    graph[importer] = graph[importer] | {imported}
    assert any(message in line for line in layering_violations(graph))


def test_a_circle_is_caught():
    graph = import_graph()
    graph["flexmbs.model.rotations"] = graph["flexmbs.model.rotations"] | {"flexmbs.model.joints"}
    assert ["flexmbs.model.joints", "flexmbs.model.rotations"] in import_circles(graph)
