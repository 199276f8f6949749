"""The compiled plan as one object with named fields, passed by reference (issues 41 and 42).

One numba ``StructRef`` (:class:`PlanType`) with a field per array instead of tuples read by position; compiled
code reads ``plan.offsets``, ``plan.keep``, ``plan.fx_work``, and a call from Python passes one pointer (design and
measured gains: docs/architecture.md, "One plan object, passed by reference"). The fields' types are fixed here
(:data:`FIELDS`), not taken from a model. The struct is allocated by numba's runtime and zeroed (:func:`_allocate`:
no compiled function); :func:`pack` writes its fields from Python as borrowed views (numba's array structure,
``meminfo, parent, nitems, itemsize, data, shape…, strides…`` in 8-byte words, with a null ``meminfo`` and
``parent``): the Python plan (:class:`flexmbs.engine.plan._Plan`) owns the arrays, and compiled code reads them
without reference counts. The layout is checked against numba's data model when this module is imported. Compiled
code only reads fields: arrays change in place, and Python rebinds a field with :func:`pack`.
"""
from __future__ import annotations

import ctypes
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import typeof, types
from numba.core import cgutils, imputils
from numba.core.datamodel import default_manager, models
from numba.core.extending import infer_getattr, intrinsic, lower_getattr_generic
from numba.core.registry import cpu_target
from numba.core.runtime.nrt import rtsys
from numba.core.runtime.nrtdynmod import meminfo_data_ty
from numba.core.typing.ctypes_utils import make_function_type
from numba.core.typing.templates import AttributeTemplate
from numba.core.typing.typeof import typeof_impl
from numba.experimental import structref

from flexmbs_jit import njit

from .lapack import lapack_functions

__all__ = ["PlanType", "PlanRef", "PLAN_TYPE", "FIELDS", "MI", "MF", "WS", "FNS", "BLK", "TMP", "ALIASES", "new_plan",
           "new_plan_of", "pack", "pack_values", "constant_function"]

# the positions of the Python plan's tuples, by name (flexmbs.engine.plan._Plan builds them)
MI = ("offsets", "n_modes", "rigid_index", "marker_body", "n_coord", "c_kind", "c_mi", "c_mj", "c_a", "c_b", "c_rows",
      "keep", "meas_a", "meas_b", "el_z", "el_y", "el_s", "el_a", "el_f", "el_i", "ipar", "rot", "f_kind", "f_mi",
      "f_mj", "f_sig", "f_which", "n_force_gaps", "fx_bodies", "f_rows", "f_friction", "drv", "k_index", "k_ipar",
      "dims", "meas_kind")
MF = ("r_mass", "r_fm", "r_inertia", "gravity", "m_local", "m_orient", "s_t", "s_r", "fpar", "scale_q", "scale_z",
      "sig", "f_par", "zscale", "fx_data", "k_fpar")
WS = ("A", "G", "omega", "X", "R", "JX", "JTH", "V", "W", "packed", "ji", "jj", "phi_all", "jac_all", "y", "ydot",
      "fy", "aux", "force", "f_out", "zs", "py", "fx_work", "k_out", "angle_ref")
FNS = ("el_kernels", "force_cb", "gap_cb", "getrf", "getrs", "k_addr")
BLK = ("K", "C", "Dz", "Gq", "Gv", "Gz")
TMP = ("res0", "zdot0", "res", "zdot", "phi", "jac", "mass")


def _members(tuple_: str, names: tuple) -> dict:
    """``{name: (tuple_, position)}`` for the members of a nested tuple (``""``: no name)."""
    return {name: (tuple_, k) for k, name in enumerate(names) if name}


#: names of single arrays of the nested tuples (the same arrays: written with their tuple). Compiled code reads
#: these by name rather than unpacking the tuple: unpacking a 21-tuple of arrays was ≈ 2 s of numba's lowering in
#: the samples alone (issue 42)
ALIASES = {
    # the flexible bodies' padded invariants and running deformation amplitudes (flex_terms.flexible_arrays)
    **_members("fx_data", ("fx_mass", "fx_first_moment", "fx_inertia", "fx_i3", "fx_i4", "fx_i5", "fx_i6", "fx_i8",
                           "fx_i8s", "fx_i9", "fx_stiffness", "fx_damping", "amplitude", "fx_kg_inertia",
                           "fx_kg_weights", "fx_kg_shapes", "fx_kg_on")),
    # their scratch: M̄ and Q̄ per body, the geometric stiffness's, the kept inertia terms, the frame of a column,
    # the mass mode, the kept M q̈
    **_members("fx_work", ("fx_mbar", "fx_qv", "fx_kmat", "fx_kq", "freeze", "fx_mbar_kept", "fx_qv_kept", "frame",
                           "mass_mode", "mq_kept")),
    # the buffers of the Python parts (flexmbs.engine.callbacks.PythonParts.buffers)
    **_members("py", ("py_q", "py_v", "py_z", "py_lam", "py_loads", "py_zdot", "py_z_rows", "py_phi", "py_jac",
                      "py_rows", "py_control", "py_columns")),
    # the event gaps: positions of the armed gaps in the gap buffer, the buffer, armed flags, each element's first
    # gap, the gap above which a gap re-arms
    **_members("gv", ("gap_pos", "gaps", "gap_armed", "gap_offsets", "gap_rearm")),
    # the samples' index arrays (flexmbs.engine.samples.Sampler.sp): the marker count, per joint its reaction side
    # marker, whether that is marker j, its body and two markers, the reaction rows (joint, position in ji/jj,
    # row of λ), the joint coordinates (markers, kind), the elements' first output column
    **_members("sp", ("n_markers", "jt_side", "jt_on_j", "jt_body", "jt_mi", "jt_mj", "jr_joint", "jr_pos", "jr_lam",
                      "jc_mi", "jc_mj", "jc_kind", "out_offsets")),
    # the sample buffers (Sampler.bf): times (their length is the capacity), step sizes, iterations, violations,
    # q, q̇, z, ω, marker positions, y, forces on y, element outputs, integrals, joint forces, torques and
    # coordinates, force outputs, force-kernel outputs, λ, reaction fallbacks, the count of samples taken
    **_members("bf", ("sample_times", "sample_h", "sample_iterations", "sample_violation", "sample_q", "sample_v",
                      "sample_z", "sample_omega", "sample_markers", "sample_y", "sample_fy", "sample_out",
                      "sample_integrals", "sample_joint_force", "sample_joint_torque", "sample_joint_coordinate",
                      "sample_forces", "sample_kernel_out", "sample_lam", "sample_fallbacks", "sample_count")),
}

_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_double)
_CALLBACK_TYPE = make_function_type(_CALLBACK(lambda t: None))  # (it depends on the prototype only)


@typeof_impl.register(_CALLBACK)
def _typeof_callback(value, context):
    """The numba type of a signal callback (``void(double)``), made once: numba's own typeof of a ctypes function
    builds it from the function's argument types at every call of a compiled function that takes one from Python
    (the start's residual and constraints: tens of µs a call, issue 41)."""
    return _CALLBACK_TYPE


_ARRAY = {f"{k}{n}": types.Array(types.int64 if k == "i" else types.float64, n, "C") for k in "if" for n in range(1, 6)}


def _types(codes: str) -> list:
    """Types from codes: ``i1`` an int64 vector, ``f3`` a 3-d float64 array, ``(...)`` a tuple of them."""
    out, stack = [], []
    for token in codes.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            stack.append(out)
            out = []
        elif token == ")":
            inner, out = out, stack.pop()
            out.append(types.Tuple(inner) if len(set(inner)) > 1 else types.UniTuple(inner[0], len(inner)))
        else:
            out.append(_ARRAY[token])
    return out


def _field_types() -> list:
    """``(name, numba type)`` of every field, in the struct's order."""
    callback = _CALLBACK_TYPE
    getrf, getrs = (typeof(f) for f in lapack_functions())
    fx_data = "(f1 f2 f3 f3 f3 f4 f3 f4 f4 f5 f2 f2 f1 f4 f3 f4 i1)"
    py = "(f1 f1 f1 f1 f2 f1 i1 f1 f2 i1 i1 i1)"
    fx_work = "(f3 f2 f2 f1 i1 f3 f2 i1 i1 f1)"
    fields = list(zip(MI, _types("i1 " * 29 + "i3 i1 i2 i2 i1 i1 i1")))
    fields += zip(MF, _types(f"f1 f2 f3 f1 f2 f3 f3 f3 f1 f1 f1 f1 f2 f1 {fx_data} f1"))
    fields += zip(WS, _types(f"f3 f3 f2 f2 f3 f3 f3 f2 f2 f2 f2 f2 f1 f2 f1 f1 f1 f1 f1 f2 f1 {py} {fx_work} f1 f1"))
    fields += [("el_kernels", _ARRAY["i1"]), ("force_cb", callback), ("gap_cb", callback), ("getrf", getrf),
               ("getrs", getrs), ("k_addr", _ARRAY["i1"])]
    fields += zip(BLK, _types("f2 " * 6))
    fields += zip(TMP, _types("f1 f1 f1 f1 f1 f2 f2"))
    # the solver's matrix, pivots, right-hand side, error vector, rejections per equation, integrals, Newton's work
    # vectors (loop.newton_step); the samples'
    # index arrays (sp) and buffers (bf) (flexmbs.engine.samples.Sampler); the event gaps (gv); the signal
    # callback (cb)
    fields += zip(("mat", "piv", "rhs", "errv", "limiting", "integrals", "aux_prev", "nwork"),
                  _types("f2 i1 f1 f1 i1 f1 f1 f1"))
    fields += zip(("sp", "bf", "gv"), _types("(" + "i1 " * 13 + ") (f1 f1 f1 f1 f2 f2 f2 f3 f3 f2 f2 f2 f2 f3 f3 f2 f3 "
                                             "f2 f2 f1 i1) (i1 f1 i1 i1 f1)"))
    fields.append(("cb", callback))
    # a run's state (flexmbs.engine.plan.CompiledRun): the states (q, v, a, q̈, z, ż, w, λ, ż_previous) at
    # the start and the end of the step, the integrator's coefficients, scalars, flags and counters
    state = "(" + "f1 " * 9 + ")"
    fields += zip(("cur", "new", "coef", "sc", "fl", "stats"), _types(f"{state} {state} f1 f1 i1 i1"))
    types_ = dict(fields)
    fields += [(alias, types_[tuple_][k]) for alias, (tuple_, k) in ALIASES.items()]
    return fields


class PlanType(types.StructRef):
    """The numba type of the compiled plan (one instance: :data:`PLAN_TYPE`)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class PlanRef(structref.StructRefProxy):
    """The compiled plan as Python holds it (a reference; its fields are written by :func:`pack`)."""


FIELDS = _field_types()
PLAN_TYPE = PlanType(FIELDS)

default_manager.register(PlanType, models.StructRefModel)
structref.define_boxing(PlanType, PlanRef)


@typeof_impl.register(PlanRef)
def _typeof_plan(value, context):
    """The plan's numba type, read from the proxy: without it numba's generic typeof tried the plan as a buffer
    first (a caught TypeError) in every call of a compiled function from Python, ≈ 10 µs a call (issue 41)."""
    return value._type


@infer_getattr
class _PlanAttributes(AttributeTemplate):
    key = PlanType

    def generic_resolve(self, typ, attr):
        return typ.field_dict.get(attr)


def _payload(context, builder, typ, value):
    """The plan's fields (``structref._Utils.get_data_struct`` without its check that numba's reference counting is
    on: a function compiled without it, ``apart(counted=False)``, reads fields as well; the data pointer comes from
    the same runtime function, which numba links into every library)."""
    meminfo = cgutils.create_struct_proxy(typ)(context, builder, value=value).meminfo
    function = cgutils.get_or_insert_function(builder.module, meminfo_data_ty, "NRT_MemInfo_data_fast")
    payload = typ.get_data_type()
    pointer = builder.bitcast(builder.call(function, [meminfo]),
                              context.data_model_manager[payload].get_value_type().as_pointer())
    return cgutils.create_struct_proxy(payload)(context, builder, ref=pointer)


@lower_getattr_generic(PlanType)
def _get_field(context, builder, typ, value, attr):
    """A field's value as stored: its arrays have a null ``meminfo`` (module docstring), so no reference counts."""
    data = _payload(context, builder, typ, value)
    return imputils.impl_ret_untracked(context, builder, typ.field_dict[attr], getattr(data, attr))


_RUNTIME: list = []  # [True] once numba's runtime is initialized (_allocate)


def _allocate() -> PlanRef:
    """A new plan with every field zero. numba's runtime allocates the payload and Python zeroes it: no compiled
    function (``structref.new`` of ≈ 300 fields, with a destructor releasing each array, took 0.4 s to compile,
    issue 42). The destructor is not needed: the fields are borrowed views (module docstring), nothing to release."""
    if not _RUNTIME:  # once per process (numba's initialize takes its compile lock at every call: 20 µs)
        rtsys.initialize(cpu_target.target_context)
        _RUNTIME.append(True)
    info = rtsys.meminfo_alloc(8 * _SIZE)
    ctypes.memset(info.data, 0, 8 * _SIZE)
    return PlanRef._numba_box_(PLAN_TYPE, info)


_DTYPES = {"int64": np.dtype(np.int64), "float64": np.dtype(np.float64)}


def _layout(typ):
    """How :func:`pack` writes a leaf of type ``typ``: ``(0, ndim, dtype)`` an array, ``(2,)`` a function pointer
    (numpy's ``dtype.name`` and ``ndarray.ctypes`` cost microseconds each, and a plan has ~240 arrays: the types are
    read once here). A field is a leaf or a tuple of leaves (pack reads no deeper nesting)."""
    if isinstance(typ, types.BaseTuple):
        raise ImportError("flexmbs: a tuple inside a tuple field of the compiled plan (pack reads flat tuples)")
    return (0, typ.ndim, _DTYPES[typ.dtype.name]) if isinstance(typ, types.Array) else (2,)


def _words(layout) -> int:
    """The 8-byte words of a leaf in the struct: an array's ``meminfo, parent, nitems, itemsize, data``, shape and
    strides; a function pointer's address."""
    return 1 if layout[0] == 2 else 5 + 2 * layout[1]


def _plan_of() -> tuple[dict, int]:
    """Per field, how pack reads it: ``(first word, members (None: a single leaf), [layout per leaf])``, the leaves in
    the struct's order; and the struct's words, checked against numba's data model of the struct (its size)."""
    plan_of, at = {}, 0
    for name, typ in FIELDS:
        tuple_ = isinstance(typ, types.BaseTuple)
        layouts = [_layout(t) for t in (typ if tuple_ else (typ,))]
        plan_of[name] = (at, len(layouts) if tuple_ else None, layouts)
        at += sum(map(_words, layouts))
    context = cpu_target.target_context
    payload = context.data_model_manager[PLAN_TYPE.get_data_type()].get_value_type()
    size = context.get_abi_sizeof(payload)
    if size != 8 * at:  # another numba's layout of arrays or structs
        raise ImportError(f"flexmbs: numba {__import__('numba').__version__} lays the compiled plan out in {size} "
                          f"bytes, not {8 * at}: install the numba version pyproject.toml names")
    return plan_of, at


_PLAN_OF, _SIZE = _plan_of()  # (_SIZE: words)
_WORDS = ctypes.c_int64 * _SIZE
#: per tuple field: the words its aliases copy, ``(first word of the alias, first word of its member, words)``
_ALIASES_OF: dict = {}
for _alias, (_tuple, _k) in ALIASES.items():
    _layouts = _PLAN_OF[_tuple][2]
    _ALIASES_OF.setdefault(_tuple, []).append((_PLAN_OF[_alias][0], _PLAN_OF[_tuple][0]
                                               + sum(map(_words, _layouts[:_k])), _words(_layouts[_k])))
_pointer_at = ctypes.c_void_p.from_address


def _array_data_field() -> bool:
    """Whether an array's data pointer can be read from its object (numpy's ``PyArrayObject_fields``: the object
    header, then ``char *data``): checked here on arrays of every kind pack sees, else numpy's ``ctypes.data``."""
    probes = (np.arange(3.0), np.zeros((2, 3), dtype=np.int64), np.zeros(0), np.arange(8.0)[2:5])
    try:
        return all(_pointer_at(id(a) + _HEADER).value == a.ctypes.data for a in probes)
    except Exception:  # noqa: BLE001  any surprise: the portable way
        return False


_HEADER = object.__basicsize__  # the bytes of a Python object's header (16 on 64-bit CPython)
_DATA_FIELD = _array_data_field()


def _refuse(where: str, leaf, layout) -> None:
    """The one-line TypeError of the leaf of field ``where`` (``name`` or ``name[k]``) that is not the array its type
    says."""
    raise TypeError(f"compiled plan field {where!r}: expected a C-contiguous {layout[2]} array of "
                    f"{layout[1]} dimension(s), got {type(leaf).__name__} {getattr(leaf, 'dtype', '')} "
                    f"{getattr(leaf, 'shape', '')}")


def _flat_values(values, nested: tuple) -> list:
    """The leaves of the fields' ``values`` in the struct's order: the single leaves as they are, the members of the
    tuple fields (``nested``: their ``(position, name, members)``) spliced in."""
    flat = list(values)
    for i, name, members in reversed(nested):  # (from the end: the positions before stay; no slices copied)
        value = flat[i]
        if type(value) is not tuple or len(value) != members:
            raise TypeError(f"compiled plan field {name!r}: expected a tuple of {members}, got "
                            f"{type(value).__name__}")
        flat[i:i + 1] = value
    return flat


def _words_of(names: tuple, values) -> list:
    """The struct words of fields ``names`` with ``values`` (in this order), read by Python (where the compiled
    reading is refused or not checked: the one-line refusal), in :func:`_compiled_words`'s order (an array's
    ``meminfo`` and ``parent`` are null in every plan: the struct is allocated zeroed, and they are not written)."""
    words: list = []
    plan = _plan_for(names)
    for leaf, (where, layout) in zip(_flat_values(values, plan.nested), plan.leaves):
        if layout[0] == 2:
            words.append(_function_address(leaf))
        elif (not isinstance(leaf, np.ndarray) or leaf.dtype != layout[2] or leaf.ndim != layout[1]
              or not leaf.flags.c_contiguous):
            _refuse(where, leaf, layout)
        else:
            address = (_pointer_at(id(leaf) + _HEADER).value or 0) if _DATA_FIELD else leaf.ctypes.data
            words += (leaf.size, leaf.itemsize, address, *leaf.shape, *leaf.strides)
    return words


class _FieldsPlan(NamedTuple):
    """How the fields ``names`` of one pack are read and written (:func:`_plan_for`)."""

    ndims: np.ndarray  # per leaf (in the struct's order): its dimensions, -1 a function pointer
    descrs: np.ndarray  # its dtype's descriptor address (0: a function pointer)
    at: np.ndarray  # its first word in the words read (:func:`_compiled_words`)
    places: np.ndarray  # its first written word in the struct (an array's after its ``meminfo`` and ``parent``)
    pointers: list  # the function pointers' leaf indices
    n: int  # the number of words read
    nested: tuple  # the tuple fields, ``(position, name, members)``
    leaves: list  # per leaf ``(name or name[k], layout)`` (the Python reading's refusal)
    dest: np.ndarray  # the struct word of each word read
    to: np.ndarray  # the words of the tuples' aliases ...
    source: np.ndarray  # ... and the words they copy
    keys: dict  # the names (the keys of a new plan's held values)


_PLANS: dict = {}


def _plan_for(names: tuple) -> _FieldsPlan:
    """The :class:`_FieldsPlan` of fields ``names``, found once per set of names (it depends on the fields' types
    only)."""
    found = _PLANS.get(names)
    if found is None:
        ndims, descrs, at, places, pointers, leaves, dest, to, source, n = [], [], [], [], [], [], [], [], [], 0
        nested = tuple((i, name, _PLAN_OF[name][1]) for i, name in enumerate(names) if _PLAN_OF[name][1] is not None)
        for name in names:
            word, members, layouts = _PLAN_OF[name]
            for k, layout in enumerate(layouts):
                at.append(n)
                leaves.append((name if members is None else f"{name}[{k}]", layout))
                if layout[0] == 2:
                    pointers.append(len(ndims))
                    ndims.append(-1)
                    descrs.append(0)
                    places.append(word)
                else:
                    ndims.append(layout[1])
                    descrs.append(id(layout[2]))
                    places.append(word + 2)
                written = _words(layout) - 2 * (layout[0] != 2)
                dest += range(places[-1], places[-1] + written)
                n += written
                word += _words(layout)
            for alias_at, first, count in _ALIASES_OF.get(name, ()):
                to += range(alias_at, alias_at + count)
                source += range(first, first + count)
        ints = lambda x: np.array(x, dtype=np.int64)  # noqa: E731
        found = _PLANS[names] = _FieldsPlan(ints(ndims), ints(descrs), ints(at), ints(places), pointers, n, nested,
                                            leaves, np.array(dest, dtype=np.intp), np.array(to, dtype=np.intp),
                                            np.array(source, dtype=np.intp), dict.fromkeys(names))
    return found


# --- the words of many arrays in one compiled call ---------------------------------------------------------------
# Python reads an array's size, shape, strides and data address in ≈ 1 µs, and a plan has ≈ 180 arrays (a third of
# the start of a small run, issue 41): the kernel below reads the same fields of numpy's array objects
# (``PyArrayObject_fields``) for all of them at once. :func:`_compiled_words_work` checks it against the Python reading
# before it is used, and an array that is not exactly an ndarray of the field's dtype, dimensions and C order sends
# the pack to the Python reading, which refuses it in one line.

@intrinsic
def _load_int64(typingctx, address):
    """The 8-byte integer at ``address``."""
    def codegen(context, builder, signature, args):
        return builder.load(builder.inttoptr(args[0], ir.IntType(64).as_pointer()))
    return types.int64(types.int64), codegen


@intrinsic
def _load_int32(typingctx, address):
    """The 4-byte integer at ``address``, widened."""
    def codegen(context, builder, signature, args):
        return builder.sext(builder.load(builder.inttoptr(args[0], ir.IntType(32).as_pointer())), ir.IntType(64))
    return types.int64(types.int64), codegen


@njit(cache=True)
def _array_words(objects, ndims, descrs, at, header, array_type, out):
    """The words of the arrays whose objects are at the addresses ``objects`` (``ndims[k] < 0``: not an array, left
    to Python) into ``out[at[k]:]``: ``size, itemsize (8), data, shape..., strides...``. Returns -1, or the first
    ``k`` whose object is not a C-ordered ndarray of descriptor ``descrs[k]`` and ``ndims[k]`` dimensions."""
    for k in range(objects.size):
        nd = ndims[k]
        if nd < 0:
            continue
        a = objects[k]
        if (_load_int64(a + header - 8) != array_type or _load_int64(a + header + 40) != descrs[k]
                or _load_int32(a + header + 8) != nd or (_load_int32(a + header + 48) & 1) == 0):
            return k
        dims, strides, o = _load_int64(a + header + 16), _load_int64(a + header + 24), at[k]
        size = 1
        for d in range(nd):
            n = _load_int64(dims + 8 * d)
            size *= n
            out[o + 3 + d] = n
            out[o + 3 + nd + d] = _load_int64(strides + 8 * d)
        out[o], out[o + 1], out[o + 2] = size, 8, _load_int64(a + header)
    return -1


def _compiled_words(names: tuple, values, payload: np.ndarray | None = None) -> np.ndarray | None:
    """:func:`_words_of` by the compiled reading (an int64 array), or None: then the Python reading decides. With
    ``payload`` (the words of a new plan's struct) the words go straight to their places there (no array of words
    copied into it; a plan whose reading fails is left to the Python reading, which writes each word again), and
    ``payload`` is returned."""
    plan = _plan_for(names)
    flat = _flat_values(values, plan.nested)
    if len(flat) != plan.ndims.size:
        return None
    if payload is None:
        out, at = np.empty(plan.n, dtype=np.int64), plan.at
    else:
        out, at = payload, plan.places
    if _array_words(_object_ids(flat), plan.ndims, plan.descrs, at, _HEADER, id(np.ndarray), out) >= 0:
        return None
    for k in plan.pointers:
        function = flat[k]
        known = _CONSTANT.get(id(function))
        out[at[k]] = known[1] if known is not None and known[0] is function else _function_address(function)
    return out


def _function_address(function) -> int:
    """The address of a ctypes function (its object's buffer holds it: 0.8 µs; ``ctypes.cast``: 2.2 µs)."""
    if isinstance(function, ctypes._CFuncPtr):
        return ctypes.c_void_p.from_buffer(function).value or 0
    return ctypes.cast(function, ctypes.c_void_p).value or 0


#: ``id -> (function, address)`` of the ctypes functions that every plan points to (:func:`constant_function`; the
#: dict holds each function, so no other object takes its id)
_CONSTANT: dict = {}


def constant_function(function):
    """``function``, a ctypes function that lives as long as the process (LAPACK's, the shared no-op callback), with
    its address read once for every plan that points to it (four of a plan's five function pointers)."""
    _CONSTANT[id(function)] = (function, _function_address(function))
    return function


for _function in lapack_functions():  # (LAPACK's LU: in every plan)
    constant_function(_function)
del _function


_LIST_ITEMS = object.__basicsize__ + 8  # where a list object holds the address of its item pointers (PyListObject:
# the object header, the size, then ``PyObject **ob_item``)
_INT64 = np.dtype(np.int64)


def _object_ids_read(objects: list) -> np.ndarray:
    """The ``id`` of every item of a non-empty list, read as the list's own array of item pointers (one view: 1 µs
    for a plan's 180 arrays, ``np.fromiter(map(id, ...))`` 10 µs); used while the list lives and is not changed."""
    items = _pointer_at(id(objects) + _LIST_ITEMS).value
    return np.frombuffer((ctypes.c_int64 * len(objects)).from_address(items), dtype=np.int64)


def _list_view_works() -> bool:
    """Whether :func:`_object_ids_read` gives exactly the ``id`` of each item, as an array of the type the compiled
    reading was compiled for (checked once, at import: else :func:`_object_ids` takes ``id`` per item)."""
    try:
        probe = [np.zeros(2), 1.5, "x", None, np.zeros(3, dtype=np.int64)]
        got = _object_ids_read(probe)
        return (got.tolist() == [id(x) for x in probe] and got.dtype == _INT64 and got.flags.c_contiguous
                and got.flags.aligned and got.flags.writeable and typeof(got) == typeof(np.zeros(1, dtype=np.int64)))
    except Exception:  # noqa: BLE001  any surprise: id per item
        return False


_LIST_VIEW = _list_view_works()


def _object_ids(objects: list) -> np.ndarray:
    """The ``id`` of each item of ``objects`` (a list) as an int64 array."""
    if _LIST_VIEW and type(objects) is list and objects:
        return _object_ids_read(objects)
    return np.fromiter(map(id, objects), dtype=np.int64, count=len(objects))


_COMPILED_WORDS: list = []  # [whether the compiled reading agrees with Python's], found at the first pack


def _compiled_words_work() -> bool:
    """Whether :func:`_compiled_words` gives exactly the Python reading's words (arrays of both dtypes, one to five
    dimensions, empty, views, strided ones refused), also written straight into a struct's words, checked once per
    process."""
    if not _COMPILED_WORDS:
        works = False
        if _DATA_FIELD:
            try:
                base = np.arange(40.0)
                probes = {"r_mass": np.arange(3.0), "zs": base[2:7], "A": np.zeros((2, 3, 3)), "G": np.zeros((0, 3, 4)),
                          "offsets": np.zeros(0, dtype=np.int64), "sp": tuple(np.arange(k, dtype=np.int64)
                                                                              for k in range(1, 14)),
                          "fx_data": tuple(np.zeros((2,) * ndim, dtype=dtype) for _, ndim, dtype in
                                           _PLAN_OF["fx_data"][2]),
                          "cb": _CALLBACK(lambda t: None)}
                names = tuple(probes)
                got = _compiled_words(names, probes.values())
                direct, copied = np.zeros(_SIZE, dtype=np.int64), np.zeros(_SIZE, dtype=np.int64)
                copied[_plan_for(names).dest] = _words_of(names, probes.values())
                works = (got is not None and got.tolist() == _words_of(names, probes.values())
                         and _compiled_words(names, probes.values(), direct) is direct
                         and np.array_equal(direct, copied)
                         and _compiled_words(("zs",), (base[::2],)) is None
                         and _compiled_words(("zs",), (np.zeros(3, dtype=np.int64),)) is None
                         and _compiled_words(("A",), (np.zeros((2, 3)),)) is None)
            except Exception:  # noqa: BLE001  any surprise: the Python reading
                works = False
        _COMPILED_WORDS.append(works)
    return _COMPILED_WORDS[0]


def pack(plan: PlanRef, held: dict, /, **fields) -> None:
    """Write ``fields`` (name = array, tuple of arrays or ctypes function) into ``plan``; ``held`` (the owner's
    dict) holds every value written, so that nothing the struct points to is freed while it lives. Each field's
    leaves are walked flat (:data:`_PLAN_OF`); all words go into the struct in one assignment, and the aliases of
    a tuple field get the words of their member in a second."""
    pack_values(plan, held, tuple(fields), tuple(fields.values()))


def pack_values(plan: PlanRef, held: dict, names: tuple, values: tuple) -> None:
    """:func:`pack` of the fields ``names`` (distinct) with ``values`` in the same order: a plan's ≈ 110 fields
    without a dictionary of keyword arguments."""
    words = _compiled_words(names, values) if _compiled_words_work() else None
    if words is None:
        words = _words_of(names, values)
    payload = np.frombuffer(_WORDS.from_address(plan._meminfo.data), dtype=np.int64)
    payload[_plan_for(names).dest] = words
    _aliases_held(payload, held, names, values)


def _aliases_held(payload: np.ndarray, held: dict | None, names: tuple, values: tuple) -> None:
    """The aliases of the tuple fields ``names`` get their members' words; ``held`` holds ``values`` (None: the
    caller does)."""
    plan = _plan_for(names)
    if plan.to.size:
        payload[plan.to] = payload[plan.source]
    if held is None:
        return
    if not held:  # a new plan's: its keys at once (a copy of a dict of them), then the values without resizing
        held.update(plan.keys)
    held.update(zip(names, values))  # (an alias's array is held by its tuple's)


def new_plan(held: dict, /, **fields) -> PlanRef:
    """A plan with ``fields`` written (:func:`pack`); the fields not given are zero (empty) until written."""
    return new_plan_of(held, tuple(fields), tuple(fields.values()))


def new_plan_of(held: dict | None, names: tuple, values: tuple) -> PlanRef:
    """:func:`new_plan` of the fields ``names`` (distinct) with ``values`` in the same order; ``held`` None: the
    caller holds ``values`` as long as the plan lives (no dict of them)."""
    plan = _allocate()
    if _compiled_words_work():  # the words straight into the new struct
        payload = np.frombuffer(_WORDS.from_address(plan._meminfo.data), dtype=np.int64)
        if _compiled_words(names, values, payload) is not None:
            _aliases_held(payload, held, names, values)
            return plan
    pack_values(plan, held, names, values)
    return plan
