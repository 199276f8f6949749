"""The exit of a Python process that loaded an FMU built with pythonfmu (docs/fmi.md, "Exit of the host").

pythonfmu's Linux library keeps its interpreter guard in a static ``std::shared_ptr`` (``pyState``). When the library
is still loaded at the process's exit (glibc keeps it after ``dlclose``), the guard is released twice: first by the
C++ static destructor (which frees it), then by the library's destructor ``finalizePythonInterpreter`` from
``_dl_fini``, which decrements the count in the freed block. That write damages the heap; glibc notices it in some
runs only (``corrupted double-linked list``, exit 134: the full suite once, FMPy's master in 5 of 9 runs in session
14).
flexmbs releases the guard right after the instantiation, through the library's own ``finalizePythonInterpreter``:
by the exported FMU's module in any Python host, and by ``fm.FMU`` for any pythonfmu FMU. The guard is then null
and neither exit-time release touches freed memory. The tests read the guard's two words (object and control block
pointers) in the loaded library, a deterministic check of what the heap damage needs (before the fix they are
non-zero after the instantiation), and check that the host exits with status 0 and no glibc message."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("fmpy", reason="the fmi extra: pip install 'flexmbs[fmi]'")
pythonfmu = pytest.importorskip("pythonfmu", reason="the fmi extra: pip install 'flexmbs[fmi]'")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the double release is in pythonfmu's Linux library (Windows: DllMain)")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), FLEXMBS_COMPILE_NOTICE="0")

# the two words of pythonfmu's static guard (anonymous-namespace ``pyState``) in the loaded library: its address
# from the library's ELF symbol table, its load base from /proc/self/maps
GUARD = '''
import ctypes, os, struct

def guard_words(library):
    path = os.path.realpath(library)
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    symtab = next(s for s in sections if s[1] == 2)  # SHT_SYMTAB: (name, type, flags, addr, offset, size, link, ...)
    strings = sections[symtab[6]][4]
    for k in range(symtab[5] // 24):
        name, _, _, _, value, _ = struct.unpack_from("<IBBHQQ", data, symtab[4] + 24 * k)
        start = strings + name
        if data[start:data.index(b"\\0", start)] == b"_ZN12_GLOBAL__N_17pyStateE":
            break
    else:
        raise LookupError(f"no pythonfmu guard (pyState) in {path}: another pythonfmu build; see docs/fmi.md")
    with open("/proc/self/maps") as maps:
        base = min(int(line.split("-")[0], 16) for line in maps if line.split()[-1:] == [path])
    return [ctypes.c_uint64.from_address(base + value + 8 * k).value for k in range(2)]
'''

# FMPy's own low-level API, as another Python tool would load flexmbs's FMU (no flexmbs import in this process)
BY_FMPY = GUARD + '''
import sys
import fmpy
from fmpy.fmi2 import FMU2Slave
path = sys.argv[1]
md = fmpy.read_model_description(path)
fmu = FMU2Slave(guid=md.guid, unzipDirectory=fmpy.extract(path), modelIdentifier=md.coSimulation.modelIdentifier)
fmu.instantiate()
print("guard", *guard_words(fmu.dll._name), flush=True)
fmu.terminate()
fmu.freeInstance()
'''

# flexmbs's importer with an FMU of pythonfmu's own (its module knows nothing of the guard)
BY_FLEXMBS = GUARD + '''
import sys
import flexmbs as fm
block = fm.FMU(sys.argv[1], outputs=["x"], kind="co-simulation", step=0.1, name="halving")
print("guard", *guard_words(block._fmu.dll._name), flush=True)
'''

HALVING = '''
from pythonfmu import Fmi2Causality, Fmi2Slave, Real


class Halving(Fmi2Slave):
    """x halves at each step."""

    author = "flexmbs tests"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.x = 1.0
        self.register_variable(Real("x", causality=Fmi2Causality.output))

    def do_step(self, current_time, step_size):
        self.x *= 0.5
        return True
'''


def _host(script, fmu):
    """Run ``script`` on ``fmu`` in a Python process that ends by a plain exit; returns the guard's two words."""
    done = subprocess.run([sys.executable, "-c", script, fmu], env=ENV, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "corrupted" not in done.stderr and "free()" not in done.stderr, done.stderr[-2000:]
    words = [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("guard")]
    assert len(words) == 1, done.stdout[-2000:]
    return [int(w) for w in words[0]]


def test_exported_fmu_releases_the_guard_in_a_python_host(tmp_path):
    """flexmbs's exported FMU (the four-bar), instantiated by FMPy: right after ``fmi2Instantiate`` pythonfmu's guard
    is null (both words 0: nothing for the two releases at exit), and the host exits with status 0, no glibc
    message. Before the fix both words pointed to the live guard."""
    from flexmbs.fmi import export_fmu

    fmu = export_fmu("fourbar-hydraulic", str(tmp_path / "fourbar.fmu"), inputs=["M2"],
                     outputs=["joint/O1/rotation"], settings={"t_end": 0.1})
    assert _host(BY_FMPY, fmu) == [0, 0]


def test_importer_releases_the_guard_of_any_pythonfmu_fmu(tmp_path):
    """An FMU built by pythonfmu alone (``x`` halves at each step; its module does nothing about the guard) loaded by
    ``fm.FMU`` as a co-simulation block: the guard is null after the instantiation and the host exits cleanly."""
    script = tmp_path / "halving.py"
    script.write_text(textwrap.dedent(HALVING))
    fmu = pythonfmu.FmuBuilder.build_FMU(str(script), dest=str(tmp_path))
    sys.modules.pop("halving", None)  # pythonfmu imported it here while building
    assert _host(BY_FLEXMBS, str(fmu)) == [0, 0]
