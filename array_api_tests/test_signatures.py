"""Function and method signatures (standard: "Function and method signatures" and the stubs).

Each entry is written the way one writes a Python parameter list: ``/`` closes the
positional-only parameters, ``*`` opens the keyword-only ones, ``name=`` has a default and
``*name`` is variadic. Rules checked against ``inspect.signature``:

- positional-only and keyword-only parameters keep their kind, keyword parameters their name;
- a parameter has a default exactly when the standard gives it one;
- a keyword-only parameter may also be accepted by position after the positional ones;
- an implementation may add parameters only as keyword-only ones with defaults, and no
  ``*args``/``**kwargs`` catch-alls where the standard names the parameters.
"""

import inspect

import pytest

from ._support import API_VERSION, xp, asx

# name -> (parameter list, first version having it in this form)
FUNCTIONS = {
    # creation
    "arange": "start, /, stop=, step=, *, dtype=, device=",
    "asarray": "obj, /, *, dtype=, device=, copy=",
    "empty": "shape, *, dtype=, device=",
    "empty_like": "x, /, *, dtype=, device=",
    "eye": "n_rows, n_cols=, /, *, k=, dtype=, device=",
    "from_dlpack": "x, /, *, device=, copy=",
    "full": "shape, fill_value, *, dtype=, device=",
    "full_like": "x, /, fill_value, *, dtype=, device=",
    "linspace": "start, stop, /, num, *, dtype=, device=, endpoint=",
    "meshgrid": "*arrays, indexing=",
    "ones": "shape, *, dtype=, device=",
    "ones_like": "x, /, *, dtype=, device=",
    "tril": "x, /, *, k=",
    "triu": "x, /, *, k=",
    "zeros": "shape, *, dtype=, device=",
    "zeros_like": "x, /, *, dtype=, device=",
    # data type functions
    "astype": "x, dtype, /, *, copy=, device=",
    "can_cast": "from_, to, /",
    "finfo": "type, /",
    "iinfo": "type, /",
    "isdtype": "dtype, kind",
    "result_type": "*arrays_and_dtypes",
    # indexing functions
    "take": "x, indices, /, *, axis=",
    "take_along_axis": "x, indices, /, *, axis=",
    # linear algebra (main namespace)
    "matmul": "x1, x2, /",
    "matrix_transpose": "x, /",
    "tensordot": "x1, x2, /, *, axes=",
    "vecdot": "x1, x2, /, *, axis=",
    # manipulation
    "broadcast_arrays": "*arrays",
    "broadcast_to": "x, /, shape",
    "concat": "arrays, /, *, axis=",
    "expand_dims": "x, /, axis",
    "flip": "x, /, *, axis=",
    "moveaxis": "x, source, destination, /",
    "permute_dims": "x, /, axes",
    "repeat": "x, repeats, /, *, axis=",
    "reshape": "x, /, shape, *, copy=",
    "roll": "x, /, shift, *, axis=",
    "squeeze": "x, /, axis",
    "stack": "arrays, /, *, axis=",
    "tile": "x, repetitions, /",
    "unstack": "x, /, *, axis=",
    # searching
    "argmax": "x, /, *, axis=, keepdims=",
    "argmin": "x, /, *, axis=, keepdims=",
    "count_nonzero": "x, /, *, axis=, keepdims=",
    "nonzero": "x, /",
    "searchsorted": "x1, x2, /, *, side=, sorter=",
    "where": "condition, x1, x2, /",
    # sets
    "unique_all": "x, /",
    "unique_counts": "x, /",
    "unique_inverse": "x, /",
    "unique_values": "x, /",
    # sorting
    "argsort": "x, /, *, axis=, descending=, stable=",
    "sort": "x, /, *, axis=, descending=, stable=",
    # statistics
    "cumulative_sum": "x, /, *, axis=, dtype=, include_initial=",
    "cumulative_prod": "x, /, *, axis=, dtype=, include_initial=",
    "max": "x, /, *, axis=, keepdims=",
    "mean": "x, /, *, axis=, keepdims=",
    "min": "x, /, *, axis=, keepdims=",
    "prod": "x, /, *, axis=, dtype=, keepdims=",
    "std": "x, /, *, axis=, correction=, keepdims=",
    "sum": "x, /, *, axis=, dtype=, keepdims=",
    "var": "x, /, *, axis=, correction=, keepdims=",
    # utility
    "all": "x, /, *, axis=, keepdims=",
    "any": "x, /, *, axis=, keepdims=",
    "diff": "x, /, *, axis=, n=, prepend=, append=",
    # elementwise with special shapes of signature
    "clip": "x, /, min=, max=",
    "__array_namespace_info__": "",
}

FUNCTIONS_2025 = {
    "broadcast_shapes": "*shapes",
    "isin": "x1, x2, /, *, invert=",
}

UNARY = """abs acos acosh asin asinh atan atanh bitwise_invert ceil conj cos cosh exp expm1
floor imag isfinite isinf isnan log log1p log2 log10 logical_not negative positive real
reciprocal round sign signbit sin sinh square sqrt tan tanh trunc""".split()
BINARY = """add atan2 bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor
copysign divide equal floor_divide greater greater_equal hypot less less_equal logaddexp
logical_and logical_or logical_xor maximum minimum multiply nextafter not_equal pow remainder
subtract""".split()

LINALG = {
    "cholesky": "x, /, *, upper=",
    "cross": "x1, x2, /, *, axis=",
    "det": "x, /",
    "diagonal": "x, /, *, offset=",
    "eigh": "x, /",
    "eigvalsh": "x, /",
    "inv": "x, /",
    "matmul": "x1, x2, /",
    "matrix_norm": "x, /, *, keepdims=, ord=",
    "matrix_power": "x, n, /",
    "matrix_rank": "x, /, *, rtol=",
    "matrix_transpose": "x, /",
    "outer": "x1, x2, /",
    "pinv": "x, /, *, rtol=",
    "qr": "x, /, *, mode=",
    "slogdet": "x, /",
    "solve": "x1, x2, /",
    "svd": "x, /, *, full_matrices=",
    "svdvals": "x, /",
    "tensordot": "x1, x2, /, *, axes=",
    "trace": "x, /, *, offset=, dtype=",
    "vecdot": "x1, x2, /, *, axis=",
    "vector_norm": "x, /, *, axis=, keepdims=, ord=",
}

FFT = {
    **{f: "x, /, *, n=, axis=, norm=" for f in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")},
    **{f: "x, /, *, s=, axes=, norm=" for f in ("fftn", "ifftn", "rfftn", "irfftn")},
    "fftfreq": "n, /, *, d=, dtype=, device=",
    "rfftfreq": "n, /, *, d=, dtype=, device=",
    "fftshift": "x, /, *, axes=",
    "ifftshift": "x, /, *, axes=",
}

INFO = {
    "capabilities": "",
    "default_device": "",
    "default_dtypes": "*, device=",
    "devices": "",
    "dtypes": "*, device=, kind=",
}

# Array methods, without ``self`` (which is positional-only in the standard).
BINARY_METHODS = """__add__ __and__ __eq__ __floordiv__ __ge__ __gt__ __le__ __lshift__ __lt__
__matmul__ __mod__ __mul__ __ne__ __or__ __pow__ __rshift__ __sub__ __truediv__
__xor__""".split()
UNARY_METHODS = """__abs__ __bool__ __complex__ __dlpack_device__ __float__ __index__ __int__
__invert__ __neg__ __pos__""".split()
METHODS = {
    **{m: "other, /" for m in BINARY_METHODS},
    **{m: "" for m in UNARY_METHODS},
    "__array_namespace__": "*, api_version=",
    "__dlpack__": "*, stream=, max_version=, dl_device=, copy=",
    "__getitem__": "key, /",
    "__setitem__": "key, value, /",
    "to_device": "device, /, *, stream=",
}

P = inspect.Parameter


def parse(spec):
    """'x, /, *, axis=' -> [(name, kind, has_default)]"""
    items = [s.strip() for s in spec.split(",") if s.strip()]
    out = []
    kind = P.POSITIONAL_OR_KEYWORD
    pending = []
    for item in items:
        if item == "/":
            out.extend((n, P.POSITIONAL_ONLY, d) for n, _, d in pending)
            pending = []
        elif item == "*":
            out.extend(pending)
            pending = []
            kind = P.KEYWORD_ONLY
        elif item.startswith("*"):
            out.extend(pending)
            pending = [(item[1:], P.VAR_POSITIONAL, False)]
            out.extend(pending)
            pending = []
            kind = P.KEYWORD_ONLY
        else:
            name, has_default = item.rstrip("="), item.endswith("=")
            pending.append((name, kind, has_default))
    out.extend(pending)
    return out


def check(func, spec, *, drop_self=False):
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError) as e:
        pytest.fail(f"{func!r} has no introspectable signature: {e}")
    params = list(sig.parameters.values())
    if drop_self:
        assert params and params[0].kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD), (
            f"method without self: {sig}")
        params = params[1:]
    expected = parse(spec)
    assert not any(p.kind == P.VAR_KEYWORD for p in params), f"**kwargs in {sig}"
    if not any(k == P.VAR_POSITIONAL for _, k, _ in expected):
        assert not any(p.kind == P.VAR_POSITIONAL for p in params), f"*args in {sig}"

    positional = [e for e in expected if e[1] in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD,
                                                  P.VAR_POSITIONAL)]
    got_positional = [p for p in params if p.kind in (P.POSITIONAL_ONLY,
                                                      P.POSITIONAL_OR_KEYWORD,
                                                      P.VAR_POSITIONAL)]
    keyword = {e[0]: e for e in expected if e[1] == P.KEYWORD_ONLY}
    # A keyword-only parameter of the standard may also be accepted by position after the
    # standard's positional ones (every conforming call still binds the same way).
    while (len(got_positional) > len(positional)
           and got_positional[-1].kind == P.POSITIONAL_OR_KEYWORD
           and got_positional[-1].name in keyword
           and got_positional[-1].default is not P.empty):
        got_positional.pop()
    assert len(got_positional) == len(positional), (
        f"positional parameters: got {sig}, expected ({spec})")
    for (name, kind, has_default), p in zip(positional, got_positional):
        assert p.kind == kind, f"{p.name}: kind {p.kind.description}, expected {kind.description} in {sig}"
        if kind != P.POSITIONAL_ONLY and kind != P.VAR_POSITIONAL:
            assert p.name == name, f"parameter {p.name!r} should be named {name!r} in {sig}"
        if kind != P.VAR_POSITIONAL:
            assert (p.default is not P.empty) == has_default, (
                f"{p.name}: default {'expected' if has_default else 'not expected'} in {sig}")

    got_keyword = {p.name: p for p in params
                   if p.kind == P.KEYWORD_ONLY or (p.kind == P.POSITIONAL_OR_KEYWORD
                                                   and p.name in keyword)}
    for name, (_, _, has_default) in keyword.items():
        assert name in got_keyword, f"keyword-only {name!r} missing from {sig}"
        assert (got_keyword[name].default is not P.empty) == has_default, (
            f"{name}: default {'expected' if has_default else 'not expected'} in {sig}")
    for name, p in got_keyword.items():
        if name not in keyword:
            assert p.default is not P.empty, f"extra keyword {name!r} without default in {sig}"


def _version_table():
    table = dict(FUNCTIONS)
    table.update({f: "x, /" for f in UNARY})
    table.update({f: "x1, x2, /" for f in BINARY})
    if API_VERSION >= "2025.12":
        table.update(FUNCTIONS_2025)
    return table


@pytest.mark.parametrize("name,spec", sorted(_version_table().items()))
def test_function_signature(name, spec):
    assert hasattr(xp, name), f"{name} missing from the namespace"
    check(getattr(xp, name), spec)


@pytest.mark.parametrize("name,spec", sorted(LINALG.items()))
def test_linalg_signature(name, spec):
    if not hasattr(xp, "linalg"):
        pytest.skip("no linalg extension")
    assert hasattr(xp.linalg, name), f"linalg.{name} missing"
    check(getattr(xp.linalg, name), spec)


@pytest.mark.parametrize("name,spec", sorted(FFT.items()))
def test_fft_signature(name, spec):
    if not hasattr(xp, "fft"):
        pytest.skip("no fft extension")
    assert hasattr(xp.fft, name), f"fft.{name} missing"
    check(getattr(xp.fft, name), spec)


@pytest.mark.parametrize("name,spec", sorted(INFO.items()))
def test_info_signature(name, spec):
    info = xp.__array_namespace_info__()
    assert hasattr(info, name), f"__array_namespace_info__().{name} missing"
    check(getattr(info, name), spec)


@pytest.mark.parametrize("name,spec", sorted(METHODS.items()))
def test_array_method_signature(name, spec):
    cls = type(asx([1.0, 2.0]))
    assert hasattr(cls, name), f"array.{name} missing"
    check(getattr(cls, name), spec, drop_self=True)


# Operators the standard requires beyond those in the stubs: reflected and in-place forms.
REFLECTED = """__radd__ __rsub__ __rmul__ __rtruediv__ __rfloordiv__ __rpow__ __rmod__
__rmatmul__ __rand__ __ror__ __rxor__ __rlshift__ __rrshift__""".split()
IN_PLACE = """__iadd__ __isub__ __imul__ __itruediv__ __ifloordiv__ __ipow__ __imod__
__imatmul__ __iand__ __ior__ __ixor__ __ilshift__ __irshift__""".split()


@pytest.mark.parametrize("name", REFLECTED + IN_PLACE)
def test_array_has_operator(name):
    assert callable(getattr(type(asx([1.0])), name, None)), f"array.{name} missing"


def test_array_attributes():
    x = asx([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]])
    assert x.shape == (1, 2, 3) and type(x.shape) is tuple
    assert all(type(n) is int for n in x.shape)
    assert x.ndim == 3 and type(x.ndim) is int
    assert x.size == 6 and type(x.size) is int
    assert x.mT.shape == (1, 3, 2)
    assert x[0, ...].T.shape == (3, 2)
    assert hasattr(x, "device") and hasattr(x, "dtype")


@pytest.mark.parametrize("name", ["e", "inf", "nan", "pi", "newaxis", "__array_api_version__",
                                  "__array_namespace_info__"])
def test_namespace_has_name(name):
    assert hasattr(xp, name), f"{name} missing from the namespace"


def test_parse_notation():
    # the notation above means what it says
    assert parse("x, /, *, axis=") == [("x", P.POSITIONAL_ONLY, False),
                                        ("axis", P.KEYWORD_ONLY, True)]
    assert parse("start, /, stop=, step=, *, dtype=") == [
        ("start", P.POSITIONAL_ONLY, False), ("stop", P.POSITIONAL_OR_KEYWORD, True),
        ("step", P.POSITIONAL_OR_KEYWORD, True), ("dtype", P.KEYWORD_ONLY, True)]
    assert parse("*arrays, indexing=") == [("arrays", P.VAR_POSITIONAL, False),
                                           ("indexing", P.KEYWORD_ONLY, True)]
