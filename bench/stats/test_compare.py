#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of compare.py: its intervals' coverage on simulated runs shaped like
the committed ones (paired, skewed, clustered; unpaired for compare-runs),
at the unit counts the profiles use, within 93.5-97 %; a check that this
bound catches an interval that misses 7 % of the time; and the arithmetic
on small cases worked by hand."""
import io
import math
import sys
import unittest
from contextlib import redirect_stderr, redirect_stdout

import numpy as np

import compare

LEVEL = 0.95
# Coverage within 93.5-97 %: an interval that misses 7 % of the time fails
# (the bootstrap this replaced: 8.3 % at 5 units); Fieller's intervals,
# counted where they are defined, are conservative by up to 1.7 points at
# 5 units of the lognormal runs.
LOW, HIGH = 0.935, 0.97
# and no more than 3.5 % missed on either side (2.5 % expected)
TAIL = 0.035
REPS = 4000


def paired_lognormal(rng, n):
    """B's paired units: a big unit effect, a small one per arm."""
    base = 5 * np.exp(rng.normal(0, 0.5, n))
    return base * np.exp(rng.normal(0, 0.15, n)), base * np.exp(rng.normal(0, 0.15, n))


def paired_stalls(rng, n):
    """C's seeds where stalls set the drops: a skewed seed effect, skewed noise."""
    base = rng.gamma(1.0, 5, n) + 0.5
    return base + rng.gamma(2, 0.5, n), base + rng.gamma(2, 0.5, n)


def paired_overload(rng, n):
    """C above capacity: a high level, a per cent of noise."""
    base = 9 + rng.normal(0, 0.3, n)
    return base * np.exp(rng.normal(0, 0.02, n)), base * np.exp(rng.normal(0, 0.02, n))


def paired_clustered(rng, n):
    """n boots of two rounds each, the rounds of a boot correlated (intra-boot
    correlation about 0.2, as in B's runs), analysed per boot."""
    boot = np.exp(rng.normal(0, 0.12, (n, 1)))
    rnd = np.exp(rng.normal(0, 0.5, (n, 2)))
    a = 5 * boot * rnd * np.exp(rng.normal(0, 0.15, (n, 2)))
    r = 5 * boot * rnd * np.exp(rng.normal(0, 0.15, (n, 2)))
    return a.mean(axis=1), r.mean(axis=1)


def pooled_lognormal(rng, n):
    """B's paired units with the reference measured twice (REF and its A/A
    copy), the arm against their mean (--pool-aa)."""
    base = 5 * np.exp(rng.normal(0, 0.5, n))
    a, r, aa = (base * np.exp(rng.normal(0, 0.15, n)) for _ in range(3))
    return a, (r + aa) / 2


def coverage(make, n, method, seed, truth=1.0, level=LEVEL):
    """Of the intervals drawn: the share that cover TRUTH, the shares that
    miss it below and above; and the share of runs that got none (the
    reference varied too much across units to bound the ratio, which makes
    no claim)."""
    rng = np.random.default_rng(seed)
    hit = below = above = undefined = 0
    for _ in range(REPS):
        a, r = make(rng, n)
        c = method(a, r, level)
        if not c.defined:
            undefined += 1
        elif c.hi < truth:
            below += 1
        elif c.lo > truth:
            above += 1
        else:
            hit += 1
    drawn = REPS - undefined
    return hit / drawn, below / drawn, above / drawn, undefined / REPS


def z_paired(a, r, level):
    """A paired interval with normal quantiles instead of t's: too narrow at
    small n (the kind of miss the bound must catch)."""
    saved = compare.t_quantile
    compare.t_quantile = lambda df, lv: 1.959963984540054
    try:
        return compare.paired_ratio(a, r, level)
    finally:
        compare.t_quantile = saved


def run(args, stdin):
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                rc = compare.main(args)
            except SystemExit as e:
                rc = e.code
    finally:
        sys.stdin = saved
    return rc, out.getvalue().splitlines(), err.getvalue()


SHAPES = (("lognormal", paired_lognormal), ("stalls", paired_stalls),
          ("overload", paired_overload), ("clustered", paired_clustered))


def scaled(make, k):
    """SHAPE with the arm's values times K: a true ratio of K."""
    def draw(rng, n):
        a, r = make(rng, n)
        return k * a, r
    return draw


class Coverage(unittest.TestCase):
    def check(self, what, got, miss_lo, miss_hi, und, n, tails=True):
        print("coverage %-28s n=%2d: %.4f (missed below %.4f, above %.4f; no interval %.3f)"
              % (what, n, got, miss_lo, miss_hi, und))
        self.assertTrue(LOW <= got <= HIGH, (what, n, got))
        if tails:
            self.assertLessEqual(max(miss_lo, miss_hi), TAIL, (what, n))
        if n >= 10:
            self.assertLessEqual(und, 0.01, (what, n))

    def test_paired(self):
        for name, make in SHAPES:
            for n in (3, 5, 6, 10, 20):
                self.check("paired " + name, *coverage(make, n, compare.paired_ratio, 1000 + n), n)

    def test_paired_with_a_pooled_reference(self):
        for n in (3, 5, 6, 10, 20, 30):
            self.check("paired, pooled reference", *coverage(pooled_lognormal, n, compare.paired_ratio, 5000 + n), n)

    def test_paired_with_a_difference(self):
        # each tail checked apart: a verdict's direction rests on one. (An
        # arm k times another gives k times the interval: 0.8 and 1.25
        # cover alike, so one of them is drawn.)
        for name, make in SHAPES:
            for k in (1.25,):
                for n in (5, 20):
                    self.check("paired %s x%g" % (name, k),
                               *coverage(scaled(make, k), n, compare.paired_ratio, 3000 + n, k), n)

    def test_unpaired(self):
        def two_runs(rng, n):
            return (5 * np.exp(rng.normal(0, 0.3, n)), 5 * np.exp(rng.normal(0, 0.3, n)))
        # (at 3 units a side: 97.2 %, conservative; no profile compares
        # runs of fewer than 5)
        for n in (5, 6, 10):
            self.check("unpaired", *coverage(two_runs, n, compare.unpaired_ratio, 2000 + n), n)

        # unequal counts and spreads: Welch's degrees of freedom at work;
        # coverage only: a skewed reference noisier than the arm misses
        # more above than below (4.5 % at 5 units here: a low reference
        # mean inflates the ratio), and one far noisier - lognormal SD 0.5
        # against 0.1 - covers 91-94 %: not covered by this layer.
        def unequal(rng, n):
            return (5 * np.exp(rng.normal(0, 0.1, n)), 5 * np.exp(rng.normal(0, 0.3, 2 * n)))
        truth = math.exp(0.1 ** 2 / 2) / math.exp(0.3 ** 2 / 2)
        for n in (5, 10):
            self.check("unpaired unequal (n, 2n)",
                       *coverage(unequal, n, compare.unpaired_ratio, 2500 + n, truth), n, tails=False)

    def test_the_bound_catches_a_7_percent_miss(self):
        # intervals that cover 93 %: 93 % ones where Fieller's are exact
        # (C above capacity: no interval is ever undefined there), pooled
        # over 5-20 units; the bound must call them too narrow
        got = np.mean([coverage(paired_overload, n, compare.paired_ratio, 4000 + n, level=0.93)[0]
                       for n in (5, 6, 10, 20)])
        print("coverage of 93 %% intervals (above capacity, 5-20 units): %.4f" % got)
        self.assertLess(got, LOW)
        got, _, _, _ = coverage(paired_lognormal, 5, z_paired, 1005)
        print("coverage with normal quantiles, n=5: %.4f" % got)
        self.assertLess(got, LOW)


class Arithmetic(unittest.TestCase):
    def test_fieller_by_hand(self):
        # arm = 2 x ref exactly: the ratio is 2 with no spread
        r = np.arange(1.0, 7)
        c = compare.paired_ratio(2 * r, r, LEVEL)
        self.assertEqual((c.lo, c.hi), (2.0, 2.0))
        # the same at 3 units: the reference's spread (mean 2, t * se 2.5)
        # bounds no interval; the t test of the differences (1, 2, 3) then
        # decides, and cannot tell them from 0 at 3 units
        c = compare.paired_ratio(2 * r[:3], r[:3], LEVEL)
        self.assertFalse(c.defined)
        self.assertEqual(c.verdict(), "none")
        # no interval, but differences the t test does tell apart
        c = compare.paired_ratio(np.array([6.0, 15.01, 24.99]), np.array([1.0, 10, 20]), LEVEL)
        self.assertFalse(c.defined)
        self.assertEqual(c.verdict(), "higher")
        # both negative: the verdict speaks of the ratio (1.48), as the
        # intervals' verdicts do
        c = compare.paired_ratio(-np.array([6.0, 15.01, 24.99]), -np.array([1.0, 10, 20]), LEVEL)
        self.assertEqual(c.verdict(), "higher")
        c = compare.paired_ratio(np.array([-4.0, 5.01, 14.99]), -np.array([1.0, 10, 20]), LEVEL)
        self.assertFalse(c.defined)
        # huge values: scaled, no overflow; a ratio past floating point: none
        r = np.arange(1.0, 7) * 1e200
        c = compare.paired_ratio(2 * r + np.array([0, 1, -1, 1, -1, 0]) * 1e198, r, LEVEL)
        self.assertTrue(c.defined and c.lo < 2 < c.hi and c.hi - c.lo < 0.05, (c.lo, c.hi))
        c = compare.paired_ratio(np.array([1e200, 1.1e200, 1.2e200]), np.array([1e3, 1.1e3, 1.2e3]), LEVEL)
        self.assertFalse(c.defined)
        self.assertEqual(c.verdict(), "undefined")
        # ref all 1: the interval is the arm's t interval of the mean
        a = np.array([1.0, 2, 3, 4])
        c = compare.paired_ratio(a, np.ones(4), LEVEL)
        half = 3.182446305284263 * np.std(a, ddof=1) / 2
        self.assertAlmostEqual(c.lo, 2.5 - half, places=9)
        self.assertAlmostEqual(c.hi, 2.5 + half, places=9)
        # drops: one seed of eight drops; Fieller's lower end is below 0,
        # which no ratio of two non-negative means can be: it reads 0
        a = np.array([0.0, 0, 0, 0, 0, 0, 0, 8])
        r = np.array([1.0, 2, 1, 2, 1, 2, 1, 2])
        c = compare.paired_ratio(a, r, LEVEL)
        self.assertTrue(c.defined and c.lo == 0.0 and c.hi > 1, (c.lo, c.hi))
        c = compare.unpaired_ratio(a, r, LEVEL)
        self.assertTrue(c.defined and c.lo == 0.0, (c.lo, c.hi))
        # a value below 0 (a difference, say): the lower end stays as it is
        a[0] = -0.5
        c = compare.paired_ratio(a, r, LEVEL)
        self.assertTrue(c.defined and c.lo < 0, (c.lo, c.hi))
        # a reference whose mean is not told apart from 0
        c = compare.paired_ratio(np.array([1.0, 1, 1]), np.array([-1.0, 0.1, 1]), LEVEL)
        self.assertFalse(c.defined)
        self.assertIn("varies too much across its units", c.why)

    def test_p_is_the_t_test_the_interval_inverts(self):
        # paired: scipy's paired t test; unpaired: Welch's t statistic at the
        # interval's degrees of freedom. Either way p < 0.05 exactly when
        # the 95 % interval excludes 1.
        from scipy import stats
        rng = np.random.default_rng(7)
        agree = 0
        for i in range(400):
            a, r = paired_lognormal(rng, 3 + i % 8)
            a = a * (1 + 0.1 * (i % 3))
            c = compare.paired_ratio(a, r, LEVEL)
            self.assertAlmostEqual(c.p, stats.ttest_rel(a, r).pvalue, places=10)
            u = compare.unpaired_ratio(a, r, LEVEL)
            for x in (c, u):
                if x.defined:
                    self.assertEqual(x.p < 1 - LEVEL, x.lo > 1 or x.hi < 1, (i, x.p, x.lo, x.hi))
                    agree += 1
        self.assertGreater(agree, 700)
        # differences with no spread: a difference has p 0, none has p 1; a
        # reference of 0 has none
        self.assertEqual(compare.paired_ratio(np.array([2.0, 3, 4]), np.array([1.0, 2, 3]), LEVEL).p, 0.0)
        self.assertEqual(compare.paired_ratio(np.array([1.0, 2, 3]), np.array([1.0, 2, 3]), LEVEL).p, 1.0)
        self.assertIsNone(compare.paired_ratio(np.array([1.0, 1, 1]), np.array([0.0, 0, 0]), LEVEL).p)
        # identical units in both arms (deterministic): the exact ratio, no
        # interval, no p, no verdict; paired or not
        for f in (compare.paired_ratio, compare.unpaired_ratio):
            c = f(np.array([2.0, 2, 2]), np.array([1.0, 1, 1]), LEVEL)
            self.assertEqual((c.ratio, c.defined, c.p, c.why, c.verdict()), (2.0, False, None, compare.DETERMINISTIC, "undefined"))
        # one arm that varies is not deterministic
        self.assertTrue(compare.paired_ratio(np.array([2.0, 2.1, 2]), np.array([1.0, 1, 1]), LEVEL).defined)
        # a ratio too large for an interval is undefined: no p either
        c = compare.paired_ratio(np.array([1e300, 2e300, 3e300]), np.array([1e-10, 2e-10, 1.5e-10]), LEVEL)
        self.assertEqual((c.verdict(), c.p), ("undefined", None))
        # differences of 1e-8 beside the values: the interval's terms lose
        # their digits; the test from the differences decides, and says so
        r = np.array([80695289.5, 80986138.2, 52017230.5, 29294336.6])
        c = compare.paired_ratio(r + np.array([0.4, 0.2, 0.1, 0.6]), r, LEVEL)
        self.assertEqual((c.defined, c.verdict()), (False, "none"))
        self.assertIn("lost to rounding", c.why)
        self.assertAlmostEqual(c.p, stats.ttest_rel(r + np.array([0.4, 0.2, 0.1, 0.6]), r).pvalue, places=2)
        # an overflowing spread: undefined, not a verdict with p 1
        c = compare.paired_ratio(np.array([1e9, 2e9, 3e9]), np.array([1e-300, -1e-300, 3e-300]), LEVEL)
        self.assertEqual((c.verdict(), c.p), ("undefined", None))
        # unpaired, an arm of zeros: Welch's test (the reference's df)
        u = compare.unpaired_ratio(np.array([0.0, 0, 0]), np.array([1.0, 2, 3.5]), LEVEL)
        self.assertAlmostEqual(u.p, stats.ttest_ind([0, 0, 0], [1, 2, 3.5], equal_var=False).pvalue, places=10)
        rc, lines, _ = run(["--ref", "a"], "1,a,1\n1,b,2\n2,a,2\n2,b,3\n3,a,4\n3,b,5.5\n")
        self.assertEqual(lines[1].split(",")[12], "")
        self.assertAlmostEqual(float(lines[2].split(",")[12]), stats.ttest_rel([2, 3, 5.5], [1, 2, 4]).pvalue, places=3)

    def test_comments_header_and_crlf_are_read_as_before(self):
        rc, lines, err = run(["--ref", "a"], "unit,arm,value\r\n# a comment\r\n\r\n1,a,1e3\r\n2,a,1100\r\n")
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(lines[1].startswith("value,a,2,1050,1050,"))

    def test_rows_and_verdicts(self):
        data = "".join("%d,a,%d\n%d,b,%d\n" % (u, 100 + u % 3, u, 120 + u % 2) for u in range(1, 7))
        rc, lines, _ = run(["--ref", "a", "--better", "lower"], data)
        self.assertEqual(rc, 0)
        self.assertEqual(lines[0], compare.COLS)
        self.assertTrue(lines[1].startswith("value,a,6,"))
        self.assertTrue(lines[1].endswith(",reference,"))
        f = lines[2].split(",")
        self.assertEqual(f[1:3], ["b", "6"])
        self.assertLess(float(f[6]), float(f[5]))
        self.assertLess(float(f[5]), float(f[7]))
        self.assertEqual(f[11], "worse")

    def test_pooled_reference(self):
        # a: the reference, c its A/A copy, b an arm; unit 4 has no A/A value
        data = ("1,a,10\n1,c,14\n1,b,13\n2,a,20\n2,c,16\n2,b,17\n"
                "3,a,30\n3,c,34\n3,b,33\n4,a,40\n4,b,41\n")
        rc, plain, _ = run(["--ref", "a", "--aa", "c"], data)
        self.assertEqual(rc, 0)
        rc, pooled, err = run(["--ref", "a", "--aa", "c", "--pool-aa"], data)
        self.assertEqual((rc, err), (0, ""))
        rows = {ln.split(",")[1]: ln.split(",") for ln in pooled[1:]}
        # the reference: per unit (a + c) / 2, a alone in unit 4: 12, 18, 32,
        # 40; its row's mean is a's own (25), its ref_mean the pooled one
        self.assertEqual(rows["a"][2:5], ["4", "25", "25.5"])
        # b against it: mean 26 / 25.5, over the same 4 units
        self.assertEqual(rows["b"][2], "4")
        self.assertAlmostEqual(float(rows["b"][5]), 26 / 25.5, places=4)
        self.assertEqual(rows["b"][4], "25.5")
        # the A/A row is c against a alone, as without pooling
        self.assertEqual(rows["c"], plain[2].split(","))
        self.assertEqual(plain[2].split(",")[1], "c")
        # without pooling b is against a alone: 26 / 25
        self.assertAlmostEqual(float(plain[3].split(",")[5]), 26 / 25, places=4)

    def test_bad_input(self):
        for args, stdin, rc, msg in (
                ([], "", 2, "--ref"),
                (["--ref", "a", "--better", "up"], "", 2, "--better"),
                (["--ref", "a", "--margin", "51"], "", 2, "--margin must be a number from 0 to 50"),
                (["--ref", "a", "--level", "1"], "", 2, "--level must be a number from 0.5 to 0.999"),
                (["--ref", "a"], "1,a,1,2\n", 1, "<stdin>:1: expected UNIT,ARM,VALUE"),
                (["--ref", "a"], "1, a,1\n", 1, "<stdin>:1: unit '1' or arm ' a' is not a name"),
                (["--ref", "a"], "1,a,1_0\n", 1, "value '1_0' is not a finite number"),
                (["--ref", "a"], "1,a, 1\n", 1, "value ' 1' is not a finite number"),
                (["--ref", "a"], "1,a,x\n", 1, "value 'x' is not a finite number"),
                (["--ref", "a"], "1,a,inf\n", 1, "value 'inf' is not a finite number"),
                (["--ref", "a"], "1,a,1\n1,a,2\n", 1, "unit '1' has arm 'a' twice"),
                (["--ref", "a"], "", 1, "no measurements"),
                (["--ref", "x"], "1,a,1\n", 1, "no arm 'x' (the reference)"),
                (["--ref", "a", "--aa", "a"], "1,a,1\n", 1, "no A/A arm 'a'"),
                (["--ref", "a", "--pool-aa"], "1,a,1\n", 2, "--pool-aa needs --aa"),
                (["--ref", "a", "--aa", "c", "--pool-aa", "--unpaired"], "1,a,1\n", 2,
                 "not with --unpaired")):
            got, _, err = run(args, stdin)
            self.assertEqual(got, rc, (args, stdin, err))
            self.assertIn(msg, err, (args, stdin))


def ratio(r, lo=None, hi=None, why="", test=None, units=6):
    """A Ratio as compare makes one: RATIO with an interval LO-HI, or none
    (WHY, and the t test's TEST)."""
    c = compare.Ratio(units, r, 1.0)
    c.lo, c.hi, c.why, c.test = lo, hi, why, test
    return c


class NoiseFloor(unittest.TestCase):
    """The A/A arm's two-sided floor: each path of verdict_text, and on
    simulated runs (B's paired lognormal units, 6 of them, the A/A arm a
    third copy of the reference) what it costs: fewer verdicts by chance
    and less power, never more of either."""

    OPTS = compare.parse(["--ref", "r", "--aa", "aa", "--better", "lower"])

    def text(self, c, aa):
        return compare.verdict_text(self.OPTS, c, aa, False)

    def test_paths(self):
        # within the A/A interval mirrored about 1, on either side of it
        self.assertTrue(self.text(ratio(1.08, 1.02, 1.14), ratio(0.95, 0.90, 1.01)).startswith("below the noise floor (worse; within the A/A arm's 0.9-1.111)"))
        # beyond it: holds; beyond an A/A arm that differed by chance: marked
        self.assertEqual(self.text(ratio(1.3, 1.2, 1.4), ratio(0.99, 0.95, 1.04)), "worse")
        self.assertEqual(self.text(ratio(0.35, 0.3, 0.4), ratio(1.03, 1.01, 1.05)), "better (beyond the A/A arm's own difference)")
        # an A/A interval that reaches 0: nothing is claimed, a negative ratio neither
        self.assertTrue(self.text(ratio(-2.0, -3.0, -1.0), ratio(0.5, 0.0, 1.2)).startswith("below the noise floor (better; within the A/A arm's 0-inf)"))
        # an A/A arm with no interval whose t test differs: not trusted
        self.assertEqual(self.text(ratio(1.5, 1.3, 1.7), ratio(1.2, why=compare.UNBOUNDED, test="higher")), "worse (but A/A differs too: not trusted)")
        # a deterministic A/A arm: its exact ratio sets the floor
        aa = ratio(1.0002, why=compare.DETERMINISTIC)
        self.assertTrue(self.text(ratio(1.0001, 1.00005, 1.00015), aa).startswith("below the noise floor"))
        self.assertEqual(self.text(ratio(1.01, 1.005, 1.015), aa), "worse (beyond the A/A arm's own difference)")
        self.assertIn("effects within its exact 0.9998-1.0002 are not claimed",
                      compare.verdict_text(self.OPTS, aa, aa, True))
        # an exactly equal deterministic A/A arm gates nothing
        self.assertEqual(self.text(ratio(1.01, 1.005, 1.015), ratio(1.0, why=compare.DETERMINISTIC)), "worse")

    def rates(self, effect, reps, seed):
        rng = np.random.default_rng(seed)
        plain = gated = 0
        for _ in range(reps):
            base = 5 * np.exp(rng.normal(0, 0.5, 6))
            r, aa, a = (base * np.exp(rng.normal(0, 0.15, 6)) for _ in range(3))
            c = compare.paired_ratio(a * effect, r, LEVEL)
            if c.verdict() in ("higher", "lower"):
                plain += 1
                gated += self.text(c, compare.paired_ratio(aa, r, LEVEL)).startswith(("better", "worse"))
        return plain / reps, gated / reps

    def test_what_the_floor_costs(self):
        null_plain, null_gated = self.rates(1.0, 3000, 11)
        pow_plain, pow_gated = self.rates(1.25, 1500, 12)
        big_plain, big_gated = self.rates(1.6, 1500, 13)
        print("noise floor at 6 paired units: verdicts where nothing differs %.3f without it, %.3f with it; "
              "at a true ratio of 1.25 %.3f without, %.3f with; at 1.6 %.3f without, %.3f with"
              % (null_plain, null_gated, pow_plain, pow_gated, big_plain, big_gated), file=sys.stderr)
        self.assertLessEqual(null_gated, null_plain)
        self.assertLess(null_plain, 0.065)
        self.assertLess(null_gated, 0.03)
        self.assertLessEqual(pow_gated, pow_plain)
        self.assertLessEqual(big_gated, big_plain)
        # a large effect is still found most of the time
        self.assertGreater(big_gated, 0.6)


if __name__ == "__main__":
    unittest.main(verbosity=2)
