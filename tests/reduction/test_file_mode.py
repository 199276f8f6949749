"""A flexible-body file gets the mode every other output gets: 0666 less the umask (issue 44: it was 0600)."""
from __future__ import annotations

import os
import stat

from fem.meshing import structured_bar_mesh
from fem.model import solid_model
from reduction import reduce, write_flexbody


def test_body_file_mode_follows_the_umask(tmp_path):
    fe = solid_model(structured_bar_mesh(0.4, 0.05, 0.05, 8, 1, 1), "steel")
    fe.add_reference_node("a", "box:-0.001,-1,-1,0.001,1,1", "rbe2")
    fe.add_reference_node("b", "box:0.399,-1,-1,0.401,1,1", "rbe2")
    body = reduce(fe, ["a", "b"], n_modes=2, compare_modes=0)
    old = os.umask(0o027)
    try:
        path = write_flexbody(body, str(tmp_path / "bar.flex.h5"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640  # 0666 & ~0027, as open() would make it


def test_body_prints_one_line_with_modes_mass_and_interfaces():
    fe = solid_model(structured_bar_mesh(0.4, 0.05, 0.05, 8, 1, 1), "steel")
    fe.add_reference_node("a", "box:-0.001,-1,-1,0.001,1,1", "rbe2")
    fe.add_reference_node("b", "box:0.399,-1,-1,0.401,1,1", "rbe3")
    body = reduce(fe, {"a": "123456", "b": "123"}, n_modes=2, compare_modes=0)
    text = repr(body)
    assert "\n" not in text and len(text) < 200
    # mass of the steel box 0.4 × 0.05 × 0.05 m: 7.85 kg
    assert f"{7850 * 0.4 * 0.05 * 0.05:.6g} kg" in text and "a (rbe2, 123456), b (rbe3, 123)" in text
    assert f"{body.n_modes} elastic modes" in text
