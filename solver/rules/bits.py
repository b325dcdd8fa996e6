"""Multi-word bitboards as numba values: ``UniTuple(uint64, w)`` treated as one w*64-bit integer.

A bitboard is a tuple of ``w`` uint64 words (word 0 holds bits 0..63).  The operations
below are numba intrinsics that turn the tuple into a single LLVM integer of ``64 * w``
bits, operate on it and split it again.  LLVM then keeps the words in registers and
compiles shifts across words without branches, and numba specialises every kernel on
``w`` by itself, because ``w`` is part of the tuple's type.  So one source serves every
board, and a one-word board runs on plain 64-bit instructions.

The functions work only inside numba-compiled code.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = [
    "bb_and", "bb_or", "bb_xor", "bb_andnot", "bb_shift", "bb_popcount", "bb_any",
    "bb_eq", "bb_lowest", "bb_highest", "bb_clear_lowest", "bb_bit", "bb_test", "bb_zero",
    "bb_load", "bb_store",
]


def _check(*tys) -> int:
    t = tys[0]
    if not (isinstance(t, types.UniTuple) and t.dtype == types.uint64):
        raise TypeError(f"a bitboard is a UniTuple(uint64, w), not {t}")
    for other in tys[1:]:
        if other != t:
            raise TypeError(f"bitboards of different widths: {t} and {other}")
    return t.count


def _wide(builder, tup, w):
    """The tuple's words as one integer of 64 * w bits."""
    wt = ir.IntType(64 * w)
    acc = None
    for i in range(w):
        word = builder.extract_value(tup, i)
        if w > 1:
            word = builder.zext(word, wt)
            if i:
                word = builder.shl(word, ir.Constant(wt, 64 * i))
        acc = word if acc is None else builder.or_(acc, word)
    return acc


def _split(context, builder, tuple_type, value, w):
    """The inverse of :func:`_wide`."""
    out = cgutils.get_null_value(context.get_value_type(tuple_type))
    for i in range(w):
        word = value
        if w > 1:
            if i:
                word = builder.lshr(word, ir.Constant(value.type, 64 * i))
            word = builder.trunc(word, ir.IntType(64))
        out = builder.insert_value(out, word, i)
    return out


def _count(builder, x, name, w):
    """An LLVM bit-counting intrinsic (ctpop, cttz, ctlz) of ``x``, as an i64."""
    extra = [] if name == "llvm.ctpop" else [ir.Constant(ir.IntType(1), 0)]
    types_ = [x.type] if name == "llvm.ctpop" else [x.type, ir.IntType(1)]
    fn = builder.module.declare_intrinsic(name, types_)
    c = builder.call(fn, [x, *extra])
    return builder.trunc(c, ir.IntType(64)) if w > 1 else c


def _binary(op):
    def make(typingctx, a, b):
        w = _check(a, b)

        def codegen(context, builder, sig, args):
            x, y = (_wide(builder, v, w) for v in args)
            return _split(context, builder, sig.return_type, op(builder, x, y), w)

        return a(a, b), codegen

    return intrinsic(make)


bb_and = _binary(lambda b, x, y: b.and_(x, y))
bb_and.__doc__ = "a & b"
bb_or = _binary(lambda b, x, y: b.or_(x, y))
bb_or.__doc__ = "a | b"
bb_xor = _binary(lambda b, x, y: b.xor(x, y))
bb_xor.__doc__ = "a ^ b"
bb_andnot = _binary(lambda b, x, y: b.and_(x, b.not_(y)))
bb_andnot.__doc__ = "a & ~b"


@intrinsic
def bb_shift(typingctx, a, k):
    """``a`` shifted towards higher bits by ``k`` (towards lower bits if ``k < 0``); bits
    shifted past either end are lost."""
    w = _check(a)
    if not isinstance(k, types.Integer):
        raise TypeError("shift amount must be an integer")

    def codegen(context, builder, sig, args):
        x = _wide(builder, args[0], w)
        wt = x.type
        amount = context.cast(builder, args[1], sig.args[1], types.int64)
        left = builder.icmp_signed(">=", amount, ir.Constant(ir.IntType(64), 0))
        mag = builder.select(left, amount, builder.neg(amount))
        in_range = builder.icmp_unsigned("<", mag, ir.Constant(ir.IntType(64), 64 * w))
        mag = builder.select(in_range, mag, ir.Constant(ir.IntType(64), 0))
        if w > 1:
            mag = builder.zext(mag, wt)
        shifted = builder.select(left, builder.shl(x, mag), builder.lshr(x, mag))
        shifted = builder.select(in_range, shifted, ir.Constant(wt, 0))
        return _split(context, builder, sig.return_type, shifted, w)

    return a(a, k), codegen


@intrinsic
def bb_popcount(typingctx, a):
    """The number of set bits."""
    w = _check(a)

    def codegen(context, builder, sig, args):
        return _count(builder, _wide(builder, args[0], w), "llvm.ctpop", w)

    return types.int64(a), codegen


@intrinsic
def bb_any(typingctx, a):
    """True if any bit is set."""
    w = _check(a)

    def codegen(context, builder, sig, args):
        x = _wide(builder, args[0], w)
        return builder.icmp_unsigned("!=", x, ir.Constant(x.type, 0))

    return types.boolean(a), codegen


@intrinsic
def bb_eq(typingctx, a, b):
    """True if the two bitboards are equal."""
    w = _check(a, b)

    def codegen(context, builder, sig, args):
        x, y = (_wide(builder, v, w) for v in args)
        return builder.icmp_unsigned("==", x, y)

    return types.boolean(a, b), codegen


@intrinsic
def bb_lowest(typingctx, a):
    """The index of the lowest set bit, or ``64 * w`` if there is none."""
    w = _check(a)

    def codegen(context, builder, sig, args):
        return _count(builder, _wide(builder, args[0], w), "llvm.cttz", w)

    return types.int64(a), codegen


@intrinsic
def bb_highest(typingctx, a):
    """The index of the highest set bit, or -1 if there is none."""
    w = _check(a)

    def codegen(context, builder, sig, args):
        leading = _count(builder, _wide(builder, args[0], w), "llvm.ctlz", w)
        return builder.sub(ir.Constant(ir.IntType(64), 64 * w - 1), leading)

    return types.int64(a), codegen


@intrinsic
def bb_clear_lowest(typingctx, a):
    """``a`` without its lowest set bit."""
    w = _check(a)

    def codegen(context, builder, sig, args):
        x = _wide(builder, args[0], w)
        y = builder.and_(x, builder.sub(x, ir.Constant(x.type, 1)))
        return _split(context, builder, sig.return_type, y, w)

    return a(a), codegen


@intrinsic
def bb_bit(typingctx, like, i):
    """A bitboard as wide as ``like`` with only bit ``i`` set (none if ``i`` is out of
    range)."""
    w = _check(like)

    def codegen(context, builder, sig, args):
        wt = ir.IntType(64 * w)
        i64 = context.cast(builder, args[1], sig.args[1], types.int64)
        in_range = builder.icmp_unsigned("<", i64, ir.Constant(ir.IntType(64), 64 * w))
        idx = builder.select(in_range, i64, ir.Constant(ir.IntType(64), 0))
        if w > 1:
            idx = builder.zext(idx, wt)
        v = builder.shl(ir.Constant(wt, 1), idx)
        v = builder.select(in_range, v, ir.Constant(wt, 0))
        return _split(context, builder, sig.return_type, v, w)

    return like(like, i), codegen


@intrinsic
def bb_test(typingctx, a, i):
    """True if bit ``i`` of ``a`` is set (False out of range)."""
    w = _check(a)

    def codegen(context, builder, sig, args):
        x = _wide(builder, args[0], w)
        wt = x.type
        i64 = context.cast(builder, args[1], sig.args[1], types.int64)
        in_range = builder.icmp_unsigned("<", i64, ir.Constant(ir.IntType(64), 64 * w))
        idx = builder.select(in_range, i64, ir.Constant(ir.IntType(64), 0))
        if w > 1:
            idx = builder.zext(idx, wt)
        bit = builder.and_(builder.lshr(x, idx), ir.Constant(wt, 1))
        set_ = builder.icmp_unsigned("!=", bit, ir.Constant(wt, 0))
        return builder.and_(set_, in_range)

    return types.boolean(a, i), codegen


@intrinsic
def bb_zero(typingctx, like):
    """The empty bitboard as wide as ``like``."""
    _check(like)

    def codegen(context, builder, sig, args):
        return cgutils.get_null_value(context.get_value_type(sig.return_type))

    return like(like), codegen


def _row_pointers(context, builder, arrty, arr, row, rowty, w):
    """Pointers to the ``w`` words of row ``row`` of a 2-d array."""
    ary = context.make_array(arrty)(context, builder, value=arr)
    r = context.cast(builder, row, rowty, types.intp)
    shape = cgutils.unpack_tuple(builder, ary.shape, 2)
    strides = cgutils.unpack_tuple(builder, ary.strides, 2)
    return [
        cgutils.get_item_pointer2(
            context, builder, ary.data, shape, strides, arrty.layout,
            [r, ir.Constant(r.type, i)], wraparound=False,
        )
        for i in range(w)
    ]


def _check_rows(arr):
    if not (isinstance(arr, types.Array) and arr.ndim == 2 and arr.dtype == types.uint64):
        raise TypeError("bitboard rows live in a 2-d uint64 array")


@intrinsic
def bb_load(typingctx, arr, row, like):
    """Row ``row`` of a 2-d uint64 array (``w`` words wide) as a bitboard."""
    w = _check(like)
    _check_rows(arr)

    def codegen(context, builder, sig, args):
        ptrs = _row_pointers(context, builder, sig.args[0], args[0], args[1], sig.args[1], w)
        out = cgutils.get_null_value(context.get_value_type(sig.return_type))
        for i, ptr in enumerate(ptrs):
            out = builder.insert_value(out, builder.load(ptr), i)
        return out

    return like(arr, row, like), codegen


@intrinsic
def bb_store(typingctx, arr, row, a):
    """Store bitboard ``a`` into row ``row`` of a 2-d uint64 array."""
    w = _check(a)
    _check_rows(arr)

    def codegen(context, builder, sig, args):
        ptrs = _row_pointers(context, builder, sig.args[0], args[0], args[1], sig.args[1], w)
        for i, ptr in enumerate(ptrs):
            builder.store(builder.extract_value(args[2], i), ptr)
        return context.get_dummy_value()

    return types.none(arr, row, a), codegen
