"""DAQP's C solver called directly (wbcpy.qp.backends.daqp_direct, csrc/kernels/daqp_call.c).

Oracle: the daqp Python wrapper, ``daqp.solve``, on the same problem — the same C function, so answers,
multipliers, exit flags and iteration counts must be equal bit for bit, on random problems with bounds,
inequality rows, equality rows, infeasible ones and with non-default settings.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wbcpy import _kernels
from wbcpy.qp import QPProblem, QPSolver
from wbcpy.qp.backends import daqp_direct
from wbcpy.qp.backends.active_set import DaqpBackend
from wbcpy.qp.kkt import StdQP

daqp = pytest.importorskip("daqp")
pytestmark = pytest.mark.skipif(not daqp_direct.bound(), reason="this daqp release is not bound directly")


def _problem(rng: np.random.Generator, n: int, ms: int, mc: int, meq: int, infeasible: bool):
    M = rng.standard_normal((n + 2, n))
    H = M.T @ M + 1e-3 * np.eye(n)
    f = rng.standard_normal(n)
    A = rng.standard_normal((mc + meq, n))
    x0 = rng.standard_normal(n)
    mid = np.concatenate((x0[:ms], A @ x0))
    width = rng.uniform(0.0, 0.5, ms + mc + meq)
    bu, bl = mid + width, mid - width
    bl[rng.random(bl.size) < 0.2] = -1e30  # one-sided rows
    sense = np.zeros(ms + mc + meq, dtype=np.intc)
    sense[ms + mc :] = 5  # equalities
    bu[ms + mc :] = bl[ms + mc :] = mid[ms + mc :]
    if infeasible and mc >= 2:  # two equal rows with disjoint intervals
        A[0] = A[1]
        bl[ms + 0], bu[ms + 0] = 1.0, 2.0
        bl[ms + 1], bu[ms + 1] = -2.0, -1.0
    return H, f, A, bu, bl, sense


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 12), bounds=st.booleans(), mc=st.integers(0, 10), meq=st.integers(0, 3),
    infeasible=st.booleans(), tol=st.sampled_from([None, 1e-10]), prox=st.sampled_from([None, 1e-8]),
    seed=st.integers(0, 2**31),
)  # fmt: skip
def test_direct_call_equals_the_wrapper(n, bounds, mc, meq, infeasible, tol, prox, seed):
    rng = np.random.default_rng(seed)
    meq = min(meq, n)
    H, f, A, bu, bl, sense = _problem(rng, n, n if bounds else 0, mc, meq, infeasible)
    options = {k: v for k, v in (("primal_tol", tol), ("eps_prox", prox)) if v is not None}
    s = daqp_direct.settings_vector(options)
    inputs = [a.copy() for a in (H, f, A, bu, bl, sense, s)]
    x, lam, flag, iterations = _kernels.daqp_solve(H, f, A, bu, bl, sense, s)
    for before, after in zip(inputs, (H, f, A, bu, bl, sense, s), strict=True):
        np.testing.assert_array_equal(after, before)  # the backend reuses its sense array: never written
    x2, _, flag2, info = daqp.solve(H, f, A, bu, bl, sense.copy(), **options)
    assert (flag, iterations) == (flag2, info["iterations"])
    if flag > 0:
        np.testing.assert_array_equal(x, x2)
        np.testing.assert_array_equal(lam, info["lam"])


def test_settings_vector_is_the_defaults_with_the_options() -> None:
    defaults = daqp_direct.settings_vector({})
    names = daqp_direct.SETTINGS
    assert defaults is not None and defaults.shape == (len(names),)
    # the wrapper's own defaults (its signature) are DAQP's: the binding read the same values
    import inspect

    params = inspect.signature(daqp.solve).parameters
    for i, name in enumerate(names):
        assert defaults[i] == pytest.approx(float(params[name].default), rel=0, abs=0), name
    s = daqp_direct.settings_vector({"primal_tol": 1e-10, "iter_limit": 50})
    assert s[names.index("primal_tol")] == 1e-10 and s[names.index("iter_limit")] == 50
    # what only the wrapper takes keeps the wrapper
    for options in ({"is_avi": True}, {"presolve": True}, {"iter_limit": 2.5}, {"iter_limit": 2**40},
                    {"primal_tol": "1e-6"}):  # fmt: skip
        assert daqp_direct.settings_vector(options) is None, options


_FRESH_BIND = """
import threading, numpy as np, daqp
from wbcpy import _kernels
assert _kernels.daqp_bind(_kernels.__file__) is False  # wbcpy's own kernels: no DAQP symbols
try:
    _kernels.daqp_defaults()
    raise SystemExit("daqp_defaults without a binding")
except RuntimeError as exc:
    assert "not bound" in str(exc)
H, f = np.eye(2), np.array([1.0, -2.0])
A, bu, bl = np.zeros((0, 2)), np.array([1.0, 1.0]), np.array([-1.0, -1.0])
sense = np.zeros(2, dtype=np.intc)
settings = np.array([1e-6, 1e-12, 1e-11, 1e-8, 1e-14, 10, 10000, 1e30, -1e-6, -1.0, 1e-6, 0, 0, 3.7e-11, 1e-9,
                     0, 0, 0, 1])
answers, errors = [], []

def solve():
    got = 0
    for _ in range(200000):
        try:
            answers.append(_kernels.daqp_solve(H, f, A, bu, bl, sense, settings)[0].copy())
            got += 1
        except RuntimeError:
            errors.append(1)  # not bound yet: a clear error, never a crash
        if got == 500:
            break

def bind():
    for _ in range(200):
        assert _kernels.daqp_bind(daqp.__file__) is True

threads = [threading.Thread(target=f) for f in (solve, solve, bind, bind)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert answers and all(np.array_equal(x, [-1.0, 1.0]) for x in answers), answers[:3]
# published once: another library cannot replace the binding
assert _kernels.daqp_bind(_kernels.__file__) is True
assert _kernels.daqp_solve(H, f, A, bu, bl, sense, settings)[2] == 1
print("ok", len(answers), len(errors))
"""


def test_binding_is_published_once_under_a_lock() -> None:
    """In a fresh process: a library without DAQP's symbols is not bound (daqp_defaults then raises);
    binding races solves in other threads (it used to segfault: the pointers were reset, then set, while
    a solve ran without the GIL); once bound, the binding never changes."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _FRESH_BIND], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("ok")


@pytest.mark.parametrize(
    "args",
    [
        (np.eye(2), np.zeros(3), np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0, np.intc)),  # f
        (np.ones((2, 3)), np.zeros(2), np.zeros((0, 3)), np.zeros(0), np.zeros(0), np.zeros(0, np.intc)),
        (np.eye(2), np.zeros(2), np.zeros((1, 2)), np.zeros(0), np.zeros(0), np.zeros(0, np.intc)),  # m<A
        (np.eye(2), np.zeros(2), np.zeros((0, 2)), np.zeros(3), np.zeros(3), np.zeros(3, np.intc)),  # ms > n
        (np.eye(2), np.zeros(2), np.zeros((0, 2)), np.zeros(2), np.zeros(2), np.zeros(2)),  # float sense
        (np.eye(4)[::2, ::2], np.zeros(2), np.zeros((0, 2)), np.zeros(0), np.zeros(0), np.zeros(0, np.intc)),
    ],
)
def test_bad_arguments_raise(args) -> None:
    with pytest.raises((TypeError, ValueError)):
        _kernels.daqp_solve(*args, daqp_direct.settings_vector({}))


def test_backend_answers_the_same_either_way(monkeypatch) -> None:
    """A QP through QPSolver("daqp"): the direct call (default) and the wrapper (its settings refused)
    give the same answer; a Hessian the kernel does not take (Fortran order) goes to the wrapper in the
    same call, with the same answer."""
    rng = np.random.default_rng(4)
    H, f, A, bu, bl, _ = _problem(rng, 6, 0, 4, 0, False)
    p = QPProblem(H=H, g=f, C=A, lbC=bl, ubC=bu, lb=-10 * np.ones(6), ub=10 * np.ones(6))
    direct = QPSolver("daqp").solve(p)
    q = StdQP(H, f, None, None, A, bl, bu, -10 * np.ones(6), 10 * np.ones(6))
    raw = DaqpBackend().solve(q, None)
    raw_f = DaqpBackend().solve(StdQP(np.asfortranarray(H), f, None, None, A, bl, bu, -10 * np.ones(6),
                                      10 * np.ones(6)), None)  # fmt: skip
    monkeypatch.setattr(DaqpBackend, "_direct_settings", lambda self: None)
    wrapper = QPSolver("daqp").solve(p)
    raw_w = DaqpBackend().solve(q, None)
    np.testing.assert_array_equal(direct, wrapper)
    for r in (raw, raw_f):
        assert r.ok and r.status == raw_w.status and r.iterations == raw_w.iterations
        np.testing.assert_array_equal(r.x, raw_w.x)
        np.testing.assert_array_equal(r.z, raw_w.z)


def test_disabled_by_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("WBCPY_DAQP_DIRECT", "0")
    monkeypatch.setattr(daqp_direct, "_state", {})
    with pytest.warns(RuntimeWarning, match="WBCPY_DAQP_DIRECT=0") as caught:
        assert not daqp_direct.bound() and daqp_direct.settings_vector({}) is None
        assert not daqp_direct.bound()
    assert len(caught) == 1  # one warning per process, not one per call
    monkeypatch.setattr(daqp_direct, "_state", {})
    monkeypatch.delenv("WBCPY_DAQP_DIRECT")
    assert daqp_direct.bound()


def test_another_release_keeps_the_wrapper(monkeypatch) -> None:
    """A daqp release whose C structs were not checked is never bound (the version gate comes before any
    dlopen), and the backend then solves through daqp.solve."""
    monkeypatch.setattr(daqp_direct.metadata, "version", lambda name: "0.12.0")
    monkeypatch.setattr(daqp_direct, "_state", {})
    with pytest.warns(RuntimeWarning, match=r"daqp 0\.12\.0 is installed"):
        assert not daqp_direct.bound()
    assert daqp_direct.settings_vector({"primal_tol": 1e-9}) is None
    rng = np.random.default_rng(8)
    H, f, A, bu, bl, _ = _problem(rng, 5, 0, 3, 0, False)
    q = StdQP(H, f, None, None, A, bl, bu, -10 * np.ones(5), 10 * np.ones(5))
    raw = DaqpBackend().solve(q, None)
    expected = daqp.solve(H, f, np.vstack([A]), np.concatenate((10 * np.ones(5), bu)),
                          np.concatenate((-10 * np.ones(5), bl)), primal_tol=1e-10)  # fmt: skip
    assert raw.ok
    np.testing.assert_array_equal(raw.x, expected[0])
