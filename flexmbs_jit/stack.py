"""Scratch vectors on the stack of a compiled function: no allocation, no reference counts.

``np.empty`` in compiled code calls numba's allocator (``malloc`` plus a ``MemInfo``) and every array made from the
result (a slice, a reshape, an argument of a call) counts references with atomic operations; for the few doubles a
small kernel needs per call (the hydraulic circuit's node pressures, a sample's small matrix) that costs more than
the arithmetic. :func:`scratch` reserves the vector in the calling function's stack frame instead, as an array
without a ``MemInfo`` (numba's reference counts then test a null pointer and do nothing).

The vector lives until the function that called :func:`scratch` returns: never return it, nor keep it past that
(a callee may fill and return it to that function, as any argument). Call it outside loops (each call reserves
more stack until the function returns) and only for small sizes (the stack holds a few MB).
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["scratch"]


@intrinsic
def scratch(typingctx, n):
    """A float64 vector of ``n`` elements (uninitialized) in the caller's stack frame (module docstring)."""
    if not isinstance(n, types.Integer):
        return None
    array_type = types.Array(types.float64, 1, "C")

    def codegen(context, builder, signature, args):
        size = context.cast(builder, args[0], signature.args[0], types.intp)
        size = builder.select(builder.icmp_signed(">", size, size.type(0)), size, size.type(0))
        data = builder.alloca(ir.DoubleType(), size=size)
        array = context.make_array(array_type)(context, builder)
        itemsize = context.get_constant(types.intp, 8)
        context.populate_array(array, data=data, shape=cgutils.pack_array(builder, [size]),
                               strides=cgutils.pack_array(builder, [itemsize]), itemsize=itemsize, meminfo=None)
        return array._getvalue()

    return array_type(n), codegen
