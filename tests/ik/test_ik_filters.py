"""Tests of wbcpy.ik building blocks: Filter, Integrator, min-jerk velocity controllers, MinJerkTrajectory.

Oracles: the spec's check values, ``scipy.signal.bilinear`` / ``lfilter`` / ``dlsim`` / ``cont2discrete``,
closed-form step responses of p³/(s+p)³, hand-written difference equations, ``scipy.integrate.solve_ivp``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, signal

from wbcpy.errors import ConfigError, ConfigKeyError, InvalidValueError
from wbcpy.ik import (
    Filter,
    Integrator,
    MinJerkTrajectory,
    MinJerkVelCtrlForIdealPlant,
    MinJerkVelCtrlForNonIdealPlant,
)

# Spec §1 constants, written out here so the tests do not depend on the module's copies.
ALPHA, BETA, KAPPA = 150.765868956161, 84.9812819469538, 15.9669610709384
PLANT = {"Kp": 1.5, "Tz": 0.05, "Tw": 0.08, "Zeta": 0.6}


def ideal_ct(T: float) -> tuple[list[float], list[float]]:
    """Continuous ideal-plant controller C(s) = p³/(s² + 3ps + 3p²) (descending powers of s)."""
    return [ALPHA / T**3], [1.0, KAPPA / T, BETA / T**2]


def nonideal_ct(T: float, Kp: float, Tz: float, Tw: float, Zeta: float) -> tuple[np.ndarray, np.ndarray]:
    """Continuous compensated controller C(s)(Tw²s² + 2ζTw s + 1)/(Kp(Tz s + 1))."""
    num, den = ideal_ct(T)
    return np.polymul(num, [Tw**2, 2 * Zeta * Tw, 1.0]), Kp * np.polymul([Tz, 1.0], den)


def bilinear_normalised(num, den, Ts):
    b, a = signal.bilinear(num, den, fs=1.0 / Ts)
    return b / a[0], a / a[0]


def step_ref(t: np.ndarray, T: float) -> np.ndarray:
    """Step response of p³/(s+p)³, p = κ/(3T)."""
    x = KAPPA / 3.0 / T * t
    return 1.0 - np.exp(-x) * (1.0 + x + 0.5 * x * x)


# ---------------------------------------------------------------------------------------------- coefficients
def test_ideal_coefficients_spec_check_values():
    ctrl = MinJerkVelCtrlForIdealPlant(0.01, 3)
    num, den = ctrl.get_coeffs()
    np.testing.assert_allclose(num, [0.003483630663, 0.006967261326, 0.003483630663], rtol=0, atol=1e-12)
    np.testing.assert_allclose(den, [1.0, -1.844571109939, 0.852425497715], rtol=0, atol=1e-12)
    assert ctrl.get_T() == 1.0


@pytest.mark.parametrize("Ts", [0.01, 0.002])
@pytest.mark.parametrize("T", [0.05, 0.3, 1.0, 2.5])
def test_ideal_coefficients_equal_scipy_bilinear(T, Ts):
    ctrl = MinJerkVelCtrlForIdealPlant(Ts, 2)
    ctrl.compute_cmd(T, np.zeros(2))
    num, den = ctrl.get_coeffs()
    b, a = bilinear_normalised(*ideal_ct(T), Ts)
    np.testing.assert_allclose(den, a, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(num, b, rtol=1e-10, atol=1e-15)
    # DC gain C(0) = α/(βT) ≈ 1.77411/T is preserved by Tustin.
    assert num.sum() / den.sum() == pytest.approx(ALPHA / (BETA * T), rel=1e-9)
    assert abs(ALPHA / BETA - 1.77411) < 1e-5


@pytest.mark.parametrize("T", [0.2, 1.0, 3.0])
def test_nonideal_coefficients_equal_scipy_bilinear(T):
    Ts = 0.01
    ctrl = MinJerkVelCtrlForNonIdealPlant(Ts, 3)
    other = {"Kp": 0.7, "Tz": 0.2, "Tw": 0.03, "Zeta": 1.2}
    ctrl.set_plant_parameters({"dimension_0": PLANT, "dimension_2": other})
    ctrl.compute_cmd(T, np.zeros(3))
    num, den = ctrl.get_coeffs()
    assert num.shape == den.shape == (3, 4)
    for row, par in ((0, PLANT), (2, other)):
        b, a = bilinear_normalised(*nonideal_ct(T, **par), Ts)
        np.testing.assert_allclose(den[row] / den[row, 0], a, rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(num[row] / den[row, 0], b, rtol=1e-10, atol=1e-15)
    # Row 1 has the defaults: the ideal filter times (1 + z⁻¹) (pole/zero cancellation at z = −1).
    b, a = bilinear_normalised(*ideal_ct(T), Ts)
    np.testing.assert_allclose(num[1] / den[1, 0], np.polymul(b, [1.0, 1.0]), rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(den[1] / den[1, 0], np.polymul(a, [1.0, 1.0]), rtol=1e-11, atol=1e-13)


# ------------------------------------------------------------------------------------ ideal closed loop
def closed_loop(T: float, Ts: float = 0.01, n_steps: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """1-D loop of spec §5: e = qd − q, u = C(e), q = Integrator(u); q0 = 0, qd = 1."""
    n_steps = n_steps or round(3 * T / Ts)
    ctrl = MinJerkVelCtrlForIdealPlant(Ts, 1)
    integ = Integrator(Ts, [0.0])
    q = np.zeros(1)
    qs = [0.0]
    for _ in range(n_steps):
        q = integ.integrate(ctrl.compute_cmd(T, 1.0 - q))
        qs.append(q[0])
    return np.arange(n_steps + 1) * Ts, np.array(qs)


def discrete_loop_oracle(T: float, Ts: float, n_steps: int) -> np.ndarray:
    """Same loop by transfer-function algebra: Q/R = G/(1+G), G = C(z)·Ts(z+1)/(2z(z−1))."""
    b, a = bilinear_normalised(*ideal_ct(T), Ts)  # C(z) = B(z)/A(z), both degree 2 in z
    num = Ts * np.polymul(b, [1.0, 1.0])
    den = np.polyadd(2.0 * np.polymul(a, [1.0, -1.0, 0.0]), num)
    _, y = signal.dlsim((num, den, Ts), np.ones(n_steps + 1))
    return y[:, 0]


@pytest.mark.parametrize("T", [1.0, 2.0])
def test_ideal_closed_loop_follows_triple_pole(T):
    Ts = 0.01
    t, q = closed_loop(T, Ts)
    np.testing.assert_allclose(q, discrete_loop_oracle(T, Ts, len(t) - 1), rtol=0, atol=1e-10)
    assert np.max(np.abs(q - step_ref(t, T))) < 0.008
    t90 = t[np.argmax(q >= 0.9)]
    t99 = t[np.argmax(q >= 0.99)]
    assert abs(t90 - 0.99 * T) <= 0.02 * T
    if T == 1.0:
        assert abs(t99 - 1.49 * T) <= 0.03 * T
    else:
        # The 99 % time depends on Ts/T: 1.49 T at Ts/T = 0.01, 1.535 T at 0.005, and the continuous
        # p³/(s+p)³ value 1.579 T as Ts/T → 0 (the response is flat there, so tiny errors move it).
        x99 = 8.405947  # e^{-x}(1 + x + x²/2) = 0.01
        assert 1.49 * T < t99 <= x99 / (KAPPA / 3.0) * T
    assert 0.0 < q.max() - 1.0 < 1e-3  # overshoot of order 1e-4


def test_short_exec_time_is_not_clamped_and_overshoots():
    _, q = closed_loop(0.05, 0.01, n_steps=400)
    assert q.max() - 1.0 == pytest.approx(0.18, abs=0.01)
    np.testing.assert_allclose(q, discrete_loop_oracle(0.05, 0.01, 400), atol=1e-10)
    assert abs(q[-1] - 1.0) < 1e-9


# ------------------------------------------------------------------------- state kept across retuning
def direct_form(b, a, e_hist, u_hist):
    """Hand-written y = (Σ b_i e_{k−i} − Σ_{i≥1} a_i u_{k−i}) / a_0, histories newest first."""
    y = sum(b[i] * e_hist[i] for i in range(len(b)))
    y -= sum(a[i] * u_hist[i - 1] for i in range(1, len(a)))
    return y / a[0]


def test_ideal_T_change_keeps_filter_state():
    Ts, rng = 0.01, np.random.default_rng(0)
    ctrl = MinJerkVelCtrlForIdealPlant(Ts, 2)
    es, us = [], []
    b1, a1 = bilinear_normalised(*ideal_ct(1.0), Ts)
    for _ in range(6):
        e = rng.normal(size=2)
        u = ctrl.compute_cmd(1.0, e)
        es.insert(0, e)
        expect = direct_form(b1, a1, es + [np.zeros(2)] * 3, us + [np.zeros(2)] * 3)
        np.testing.assert_allclose(u, expect, rtol=1e-9, atol=1e-14)
        us.insert(0, u)
    b2, a2 = bilinear_normalised(*ideal_ct(0.7), Ts)
    for _ in range(3):
        e = rng.normal(size=2)
        u = ctrl.compute_cmd(0.7, e)
        es.insert(0, e)
        np.testing.assert_allclose(u, direct_form(b2, a2, es, us), rtol=1e-9, atol=1e-14)
        us.insert(0, u)
    assert ctrl.get_T() == 0.7


def test_nonideal_T_change_and_parameter_change_keep_state():
    Ts, rng = 0.01, np.random.default_rng(1)
    ctrl = MinJerkVelCtrlForNonIdealPlant(Ts, 2)
    ctrl.set_plant_parameters([PLANT, {}])
    es, us = [np.zeros(2)] * 4, [np.zeros(2)] * 4

    defaults = {"Kp": 1.0, "Tz": 0.0, "Tw": 0.0, "Zeta": 0.0}

    def coeffs(T, params):
        rows = []
        for par in params:
            if par == defaults:  # scipy would drop the cancelled factor (1 + z⁻¹): build it back
                b, a = bilinear_normalised(*ideal_ct(T), Ts)
                rows.append((np.polymul(b, [1.0, 1.0]), np.polymul(a, [1.0, 1.0])))
            else:
                rows.append(bilinear_normalised(*nonideal_ct(T, **par), Ts))
        return rows

    phases = [
        (1.0, [PLANT, defaults], None),
        (0.6, [PLANT, defaults], None),  # T change
        (0.6, [defaults, {**defaults, "Kp": 2.0, "Tz": 0.1}], [{}, {"Kp": 2.0, "Tz": 0.1}]),  # params
    ]
    for T, params, new_params in phases:
        if new_params is not None:
            ctrl.set_plant_parameters(new_params)
        rows = coeffs(T, params)
        for _ in range(4):
            e = rng.normal(size=2)
            u = ctrl.compute_cmd(T, e)
            es.insert(0, e)
            for j, (b, a) in enumerate(rows):
                expect = direct_form(b, a, [x[j] for x in es], [x[j] for x in us])
                assert u[j] == pytest.approx(expect, rel=1e-9, abs=1e-14)
            us.insert(0, u)


# ----------------------------------------------------------------------------------- non-ideal plant
def plant_loop(ctrl, params, T=1.0, Ts=0.01, n_steps=300) -> tuple[np.ndarray, np.ndarray]:
    """Sampled loop around P(s) = (Kp/s)(1 + Tz s)/(1 + 2ζTw s + Tw² s²), exact ZOH of the command."""
    num = [params["Kp"] * params["Tz"], params["Kp"]]
    den = np.polymul([1.0, 0.0], [params["Tw"] ** 2, 2 * params["Zeta"] * params["Tw"], 1.0])
    A, B, C, D = signal.tf2ss(num, den)
    Ad, Bd, Cd, _, _ = signal.cont2discrete((A, B, C, D), Ts, method="zoh")
    x = np.zeros((A.shape[0], 1))
    ys = [0.0]
    for _ in range(n_steps):
        y = (Cd @ x).item()  # sampled output y_k
        u = ctrl.compute_cmd(T, [1.0 - y])  # e_k = qd − y_k
        x = Ad @ x + Bd * u[0]  # u held over [kTs, (k+1)Ts)
        ys.append((Cd @ x).item())
    return np.arange(n_steps + 1) * Ts, np.array(ys)


def test_nonideal_plant_compensated_vs_ideal_controller():
    comp = MinJerkVelCtrlForNonIdealPlant(0.01, 1)
    comp.set_plant_parameters({"dimension_0": PLANT})
    t, y = plant_loop(comp, PLANT)
    assert np.max(np.abs(y - step_ref(t, 1.0))) < 0.01
    assert y.max() - 1.0 < 1e-3
    _, y_ideal = plant_loop(MinJerkVelCtrlForIdealPlant(0.01, 1), PLANT)
    assert y_ideal.max() - 1.0 > 0.05  # ~15 % overshoot on the uncompensated plant
    assert np.max(np.abs(y_ideal - step_ref(t, 1.0))) > 0.1


# --------------------------------------------------------------------------------------------- Filter
def test_filter_matches_lfilter_with_unnormalised_and_per_component_coefficients():
    rng = np.random.default_rng(2)
    u = rng.normal(size=(50, 2))
    num = np.array([[2.0, 0.4, -0.3], [0.5, 0.0, 0.1]])
    den = np.array([[2.0, -0.6, 0.1], [1.0, 0.3, 0.0]])  # a_0 = 2 in row 0
    filt = Filter(num, den, np.zeros(2))
    out = np.array([filt.filt(x) for x in u])
    for j in range(2):
        np.testing.assert_allclose(out[:, j], signal.lfilter(num[j], den[j], u[:, j]), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(filt.get_output(), out[-1])
    np.testing.assert_array_equal(filt.getOutput(), out[-1])
    b, a = filt.get_coeffs()
    np.testing.assert_array_equal(b, num)
    np.testing.assert_array_equal(a, den)
    shared = Filter([1.0, 1.0], [3.0], np.zeros(2))  # FIR, a_0 = 3
    np.testing.assert_allclose(shared.filt([3.0, 6.0]), [1.0, 2.0])
    np.testing.assert_allclose(shared.filt([0.0, 0.0]), [1.0, 2.0])


def test_filter_init_steady_state_and_dc_zero():
    num, den = [0.2, 0.3, -0.1], [1.5, -0.9, 0.2]  # Σb = 0.4, Σa = 0.8, DC gain 0.5
    y0 = np.array([1.0, -2.0, 0.5])
    filt = Filter(num, den, y0)
    np.testing.assert_array_equal(filt.get_output(), y0)
    for _ in range(5):  # the steady-state input 2·y0 keeps the output at y0
        np.testing.assert_allclose(filt.filt(2.0 * y0), y0, rtol=1e-14)
    # Σb = 0 (zero at DC): past inputs := 0, past outputs := y0. y = (0 − (−0.5)·y0)/1 for a zero input.
    hp = Filter([1.0, -1.0], [1.0, -0.5], y0)
    np.testing.assert_allclose(hp.filt(np.zeros(3)), 0.5 * y0)
    hp.init(y0, u0=np.ones(3))  # explicit past inputs
    np.testing.assert_allclose(hp.filt(np.full(3, 2.0)), 2.0 - 1.0 + 0.5 * y0)


def test_filter_adjust_coeffs_keeps_past_values():
    filt = Filter([0.5, 0.5], [1.0, -0.2], np.zeros(1))
    y1 = filt.filt([1.0])[0]  # 0.5
    y2 = filt.filt([3.0])[0]  # 0.5·3 + 0.5·1 + 0.2·0.5 = 2.1
    assert (y1, y2) == pytest.approx((0.5, 2.1))
    filt.adjustCoeffs([1.0, -2.0], [2.0, 1.0])
    assert filt.filt([4.0])[0] == pytest.approx((1.0 * 4.0 - 2.0 * 3.0 - 1.0 * y2) / 2.0)


def test_filter_bad_inputs_leave_it_unchanged():
    filt = Filter([0.3, 0.2], [1.0, -0.5], [1.0, 2.0])
    twin = Filter([0.3, 0.2], [1.0, -0.5], [1.0, 2.0])
    bad_calls = [
        lambda: filt.filt([1.0, np.nan]),
        lambda: filt.filt([1.0]),
        lambda: filt.init([np.inf, 0.0]),
        lambda: filt.adjust_coeffs([1.0, 2.0, 3.0], [1.0, 0.1]),  # tap count changes
        lambda: filt.adjust_coeffs([1.0, 2.0], [0.0, 1.0]),  # a_0 = 0
        lambda: filt.adjust_coeffs([[1.0, 2.0]] * 3, [1.0, 0.1]),  # 3 rows for 2 components
    ]
    for call in bad_calls:
        with pytest.raises(InvalidValueError):
            call()
    np.testing.assert_array_equal(filt.get_coeffs()[0], [0.3, 0.2])
    for x in ([1.0, 0.0], [0.5, -1.0]):
        np.testing.assert_array_equal(filt.filt(x), twin.filt(x))
    for args in (([], [1.0], [0.0]), ([1.0], [0.0], [0.0]), ([1.0], [1.0], []), ([1.0], [1.0], [[0.0]])):
        with pytest.raises(InvalidValueError):
            Filter(*args)


# ----------------------------------------------------------------------------------------- Integrator
def test_integrator_trapezoid_is_exact_for_ramps():
    Ts = 0.02
    integ = Integrator(Ts, [1.0, 0.0])
    for k in range(40):
        t = k * Ts
        y = integ.integrate([t, 3.0])
    np.testing.assert_allclose(y, [1.0 + 0.5 * t**2, 3.0 * t + 1.5 * Ts], rtol=1e-13)
    np.testing.assert_array_equal(integ.get(), y)


def test_integrator_saturation_no_windup_and_reset_clipping():
    Ts = 0.01
    integ = Integrator(Ts, [0.5], limits=[[-1.0, 1.0]])
    for _ in range(200):
        y = integ.integrate([10.0])
        assert y[0] <= 1.0
    assert y[0] == 1.0
    y = integ.integrate([-10.0])  # leaves the limit at once: 1 + Ts/2·(−10 + 10)
    assert y[0] == pytest.approx(1.0)
    assert integ.integrate([-10.0])[0] == pytest.approx(1.0 - Ts * 10.0)
    integ.reset([5.0])
    assert integ.get()[0] == 1.0
    assert integ.integrate([-2.0])[0] == pytest.approx(1.0 - Ts / 2 * 2.0)  # x_prev = 0 after reset
    integ.set_lim([[-0.5, 0.5]])  # not applied until the next integrate
    assert integ.get()[0] == pytest.approx(0.99)
    assert integ.integrate([0.0])[0] == 0.5
    np.testing.assert_array_equal(integ.getLim(), [[-0.5, 0.5]])
    integ.setLim(None)
    assert integ.get_lim() is None
    integ.setTs(0.1)
    assert integ.get_ts() == 0.1


def test_integrator_bad_inputs():
    for args in ((0.0, [0.0]), (-1.0, [0.0]), (np.nan, [0.0]), (0.01, []), (0.01, [np.nan])):
        with pytest.raises(InvalidValueError):
            Integrator(*args)
    for lim in ([[1.0, -1.0]], [[0.0, 1.0], [0.0, 1.0]], [[np.nan, 1.0]]):
        with pytest.raises(InvalidValueError):
            Integrator(0.01, [0.0], lim)
    integ = Integrator(0.01, [0.2, 0.3], [[-1, 1], [-np.inf, np.inf]])
    for call in (
        lambda: integ.integrate([np.nan, 0.0]),
        lambda: integ.integrate([1.0]),
        lambda: integ.reset([0.0, np.inf]),
        lambda: integ.set_ts(0.0),
        lambda: integ.set_lim([[0.0, -1.0], [0.0, 1.0]]),
    ):
        with pytest.raises(InvalidValueError):
            call()
    np.testing.assert_array_equal(integ.get(), [0.2, 0.3])
    assert integ.get_ts() == 0.01
    np.testing.assert_allclose(integ.integrate([1.0, 1.0]), [0.205, 0.305], rtol=1e-14)


# -------------------------------------------------------------------------- velocity controllers misc.
def test_reset_is_steady_state_of_the_command():
    T, u0 = 0.8, np.array([0.3, -1.2])
    ctrl = MinJerkVelCtrlForIdealPlant(0.01, 2)
    ctrl.compute_cmd(T, [0.1, 0.2])
    ctrl.reset(u0)
    e_ss = u0 * BETA * T / ALPHA  # DC gain C(0) = α/(βT)
    for _ in range(3):
        np.testing.assert_allclose(ctrl.compute_cmd(T, e_ss), u0, rtol=1e-12)


def test_set_plant_parameters_semantics():
    ctrl = MinJerkVelCtrlForNonIdealPlant(0.01, 3)
    defaults = {"Kp": 1.0, "Tz": 0.0, "Tw": 0.0, "Zeta": 0.0}
    assert ctrl.get_plant_parameters() == {f"dimension_{i}": defaults for i in range(3)}
    ctrl.set_plant_parameters({"dimension_2": {"Kp": 2.0, "Tw": 0.1}})
    got = ctrl.getPlantParameters()
    assert got["dimension_2"] == {"Kp": 2.0, "Tz": 0.0, "Tw": 0.1, "Zeta": 0.0}
    assert got["dimension_0"] == got["dimension_1"] == defaults
    # Each call starts from the defaults.
    ctrl.set_plant_parameters({"dimension_0": {"Tz": 0.05}})
    got = ctrl.get_plant_parameters()
    assert got["dimension_2"] == defaults
    assert got["dimension_0"]["Tz"] == 0.05
    # Dict and list forms agree; get() output round-trips.
    other = MinJerkVelCtrlForNonIdealPlant(0.01, 3)
    other.setPlantParameters([{"Tz": 0.05}, {}, {}])
    np.testing.assert_array_equal(other.get_coeffs()[0], ctrl.get_coeffs()[0])
    other.set_plant_parameters(ctrl.get_plant_parameters())
    np.testing.assert_array_equal(other.get_coeffs()[1], ctrl.get_coeffs()[1])


def test_set_plant_parameters_errors_leave_controller_unchanged():
    ctrl = MinJerkVelCtrlForNonIdealPlant(0.01, 2)
    ctrl.set_plant_parameters({"dimension_1": PLANT})
    twin = MinJerkVelCtrlForNonIdealPlant(0.01, 2)
    twin.set_plant_parameters({"dimension_1": PLANT})
    for c in (ctrl, twin):
        c.compute_cmd(1.0, [0.3, -0.4])
    before = ctrl.get_plant_parameters()
    with pytest.raises(ConfigError) as info:
        ctrl.set_plant_parameters({"dimension_0": {"Tz": -0.01}})
    assert "Tz" in info.value.field
    with pytest.raises(ConfigKeyError) as kinfo:
        ctrl.set_plant_parameters({"dimension_0": {"zeta": 0.5}})
    assert "Zeta" in kinfo.value.suggestions
    assert isinstance(kinfo.value, KeyError)
    bad = [
        {"dimension_5": {"Kp": 1.0}},
        [{"Kp": 1.0}],  # wrong list length
        {"dimension_0": {"Kp": 0.0}},
        {"dimension_0": {"Tw": np.nan}},
        {"dimension_0": {"Tw": "x"}},
        {"dimension_0": 3.0},
        "dimension_0",
    ]
    for params in bad:
        with pytest.raises(ConfigError):
            ctrl.set_plant_parameters(params)
    assert ctrl.get_plant_parameters() == before
    np.testing.assert_array_equal(ctrl.compute_cmd(1.0, [0.1, 0.2]), twin.compute_cmd(1.0, [0.1, 0.2]))


@pytest.mark.parametrize("cls", [MinJerkVelCtrlForIdealPlant, MinJerkVelCtrlForNonIdealPlant])
def test_controller_bad_inputs(cls):
    for Ts, dim in ((0.0, 1), (-0.01, 1), (np.inf, 1), (0.01, 0), (0.01, 1.5), (0.01, True)):
        with pytest.raises(InvalidValueError):
            cls(Ts, dim)
    ctrl, twin = cls(0.01, 2), cls(0.01, 2)
    for c in (ctrl, twin):
        c.compute_cmd(0.5, [0.2, 0.1])
    for T, e in ((0.0, [0, 0]), (-1.0, [0, 0]), (np.nan, [0, 0]), (0.9, [0.0]), (0.9, [0.0, np.nan])):
        with pytest.raises(InvalidValueError):
            ctrl.computeCmd(T, e)
    with pytest.raises(InvalidValueError):
        ctrl.reset([0.0, 0.0, 0.0])
    assert ctrl.getT() == 0.5
    np.testing.assert_array_equal(ctrl.compute_cmd(0.5, [0.3, 0.0]), twin.compute_cmd(0.5, [0.3, 0.0]))


# ---------------------------------------------------------------------------------- MinJerkTrajectory
def test_trajectory_step_response_closed_form_and_finite_differences():
    Ts, T = 0.01, 0.8
    gen = MinJerkTrajectory(Ts, [0.0, 2.0], T=T)
    target = np.array([1.0, -1.0])  # steps of +1 and −3
    res = np.array([np.stack(gen.step(target)) for _ in range(int(5 * T / Ts))])  # (k, 3, 2)
    t = np.arange(1, res.shape[0] + 1) * Ts
    p = KAPPA / 3.0 / T
    x = p * t
    shape = np.array([1.0, -3.0])
    pos = np.array([0.0, 2.0]) + np.outer(step_ref(t, T), shape)
    vel = np.outer(p * np.exp(-x) * x**2 / 2.0, shape)
    acc = np.outer(p**2 * np.exp(-x) * (x - x**2 / 2.0), shape)
    np.testing.assert_allclose(res[:, 0], pos, atol=1e-11)
    np.testing.assert_allclose(res[:, 1], vel, atol=1e-10)
    np.testing.assert_allclose(res[:, 2], acc, atol=1e-9)
    # Central differences of the samples themselves.
    fd_vel = (res[2:, 0] - res[:-2, 0]) / (2 * Ts)
    fd_acc = (res[2:, 1] - res[:-2, 1]) / (2 * Ts)
    scale_v, scale_a = np.abs(res[:, 1]).max(), np.abs(res[:, 2]).max()
    assert np.abs(fd_vel - res[1:-1, 1]).max() < 1e-2 * scale_v
    assert np.abs(fd_acc - res[1:-1, 2]).max() < 1e-2 * scale_a
    # 90 % at T, converged after 5 T.
    k_T = round(T / Ts) - 1
    np.testing.assert_allclose((res[k_T, 0] - [0.0, 2.0]) / shape, 0.9, atol=1e-6)
    np.testing.assert_allclose(gen.get_pos(), target, atol=2e-3)
    np.testing.assert_allclose(gen.getVel(), 0.0, atol=1e-2)


def test_trajectory_retime_and_reset_continue_the_ode():
    Ts = 0.01
    gen = MinJerkTrajectory(Ts, [0.0], T=1.0)
    for _ in range(30):
        gen.step([1.0])
    state = np.array([gen.get_pos()[0], gen.get_vel()[0], gen.get_acc()[0]])
    gen.set_exec_time(0.5)
    assert gen.getT() == 0.5
    np.testing.assert_array_equal(gen.get_pos(), [state[0]])  # retiming keeps the state
    gen.reset([0.2], velocity=0.5, acceleration=-1.0)
    state = np.array([0.2, 0.5, -1.0])
    target = 1.5
    p = KAPPA / 3.0 / 0.5

    def rhs(_t, xi):
        return [xi[1], xi[2], p**3 * (target - xi[0]) - 3 * p**2 * xi[1] - 3 * p * xi[2]]

    sol = integrate.solve_ivp(rhs, (0, 20 * Ts), state, t_eval=Ts * np.arange(1, 21), rtol=1e-11, atol=1e-12)
    out = np.array([np.concatenate(gen.step([target])) for _ in range(20)])
    np.testing.assert_allclose(out, sol.y.T, rtol=1e-7, atol=1e-8)


def test_trajectory_bad_inputs():
    for args in ((0.0, [0.0]), (0.01, [0.0], 0.0), (0.01, [0.0], -1.0), (0.01, []), (0.01, [np.nan])):
        with pytest.raises(InvalidValueError):
            MinJerkTrajectory(*args)
    gen = MinJerkTrajectory(0.01, [0.0, 1.0])
    gen.step([1.0, 1.0])
    pos = gen.get_pos()
    for call in (
        lambda: gen.step([np.nan, 0.0]),
        lambda: gen.step([1.0]),
        lambda: gen.reset([0.0, 0.0], velocity=[1.0]),
        lambda: gen.reset([0.0, 0.0], acceleration=np.inf),
        lambda: gen.set_exec_time(0.0),
    ):
        with pytest.raises(InvalidValueError):
            call()
    np.testing.assert_array_equal(gen.get_pos(), pos)
    assert gen.get_T() == 1.0
