#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare: every arm of a benchmark against a reference arm, paired by
unit, as a ratio of means with a confidence interval and a verdict; the A/A
arm (the reference measured a second time) gives the noise floor. The
statistics layer every workload's tables use (lib/stats.sh).

The interval is Fieller's: the ratios R for which a t test does not reject
mean(arm - R * ref) = 0 (paired: over the units measured in both; unpaired:
Welch's test of mean(arm) - R * mean(ref)); its coverage holds at the unit
counts the profiles use (test_compare.py checks it on simulated runs); the
t quantiles come from scipy. When the reference varies so much across its
units that no interval bounds the ratio, the row has none and its verdict
is the t test of arm - ref alone.

With --pool-aa the reference is both of its copies: in each unit the mean
of REF and the A/A arm (REF alone in a unit without the A/A arm), so the
reference's own noise weighs half as much; the A/A row stays the A/A arm
against REF, the noise floor (which then overstates the noise of a
comparison with the pooled reference: conservative).

Each row also carries p, the two-sided p value of that t test at R = 1
(the same test, degrees of freedom and quantile the interval inverts: p
< 1 - level exactly when the interval excludes 1), for a correction over
the run's family of comparisons (family.py).
"""
import argparse
import math
import re
import sys

import numpy as np
from scipy import special

COLS = ("metric,arm,units,mean,ref_mean,ratio,ci_lo,ci_hi,detectable_pct,"
        "aa_ci_lo,aa_ci_hi,verdict,p")
MIN_UNITS = 3


class InputError(Exception):
    pass


def t_quantile(df, level):
    """The two-sided t quantile for LEVEL at DF degrees of freedom."""
    return float(special.stdtrit(df, 0.5 + level / 2))


def fieller(ma, mr, vaa, vrr, var, t):
    """The interval of ratios R with (ma - R mr)^2 <= t^2 (vaa - 2 R var +
    R^2 vrr): (lo, hi), or None when the set is not a bounded interval (the
    reference varies too much across units to bound the ratio). Means and
    variances come scaled by |mr| (ratios do not change), so the squares
    neither overflow nor cancel."""
    ma, mr, vaa, vrr, var = (float(x) for x in (ma, mr, vaa, vrr, var))
    a = mr * mr - t * t * vrr
    b = ma * mr - t * t * var
    if a <= 0:
        return None
    # b^2 - ac, written so that the large terms do not cancel
    try:
        disc = t * t * (mr * mr * vaa - 2 * ma * mr * var + ma * ma * vrr -
                        t * t * (vaa * vrr - var * var))
    except OverflowError:
        disc = math.inf
    if not math.isfinite(disc) or not math.isfinite(b):
        raise OverflowError
    s = math.sqrt(max(disc, 0.0))
    return (b - s) / a, (b + s) / a


def p_value(diff_mean, diff_var, df):
    """The two-sided p value of a t test of a mean difference against 0 at
    DF degrees of freedom: 0 when the difference has no spread but is not 0,
    1 when it is 0."""
    if diff_var <= 0 or not math.isfinite(diff_var):
        return 0.0 if diff_mean != 0 and diff_var <= 0 else 1.0
    return float(2 * special.stdtr(df, -abs(diff_mean) / math.sqrt(diff_var)))


def t_test(diff_mean, diff_var, t):
    """higher, lower or none: a t test of a mean difference against 0."""
    if diff_mean * diff_mean <= t * t * diff_var:
        return "none"
    return "higher" if diff_mean > 0 else "lower"


class Ratio:
    """One arm against the reference: units, means, ratio and interval."""

    def __init__(self, units, ma, mr, counts=None):
        self.units, self.ma, self.mr = units, ma, mr
        self.counts = counts or (units, units)	# each arm's units
        # fewer units than an interval needs: no ratio either
        self.ratio = ma / mr if units >= MIN_UNITS and mr != 0 else math.nan
        self.lo = self.hi = None
        self.test = None	# without an interval: the t test at R = 1
        self.p = None	# that test's p value (with an interval too)
        self.why = ""

    @property
    def defined(self):
        return self.lo is not None

    def verdict(self):
        """higher, lower, none or undefined."""
        if not self.defined:
            return self.test or "undefined"
        if self.lo > 1:
            return "higher"
        if self.hi < 1:
            return "lower"
        return "none"


UNBOUNDED = "the reference varies too much across its units to bound the ratio"
OUT_OF_RANGE = "the ratio is too large for an interval in floating point"
ROUNDING = "the interval is lost to rounding: the differences are too small beside the values"
DETERMINISTIC = "deterministic"


def bound(res, k, vaa, vrr, var, df, level, vdiff):
    """RES's interval from the scaled (by K = |ref mean|) variances at DF
    degrees of freedom, or, where none is bounded, the t test of arm - ref
    (Welch's when VAR = 0 and the arms are independent); the p value of
    that test at R = 1 either way, from VDIFF, the variance of the mean
    difference computed from the differences themselves (vaa + vrr - 2 var
    loses its digits where the differences are tiny beside the values);
    RES returned. Variances that overflowed: undefined, no p."""
    if not all(math.isfinite(x) for x in (vaa, vrr, var, vdiff, res.ma / k, res.mr / k)):
        res.why = OUT_OF_RANGE
        return res
    t = t_quantile(df, level)
    try:
        ci = fieller(res.ma / k, res.mr / k, vaa, vrr, var, t)
    except OverflowError:
        res.why = OUT_OF_RANGE
        return res
    res.p = p_value((res.ma - res.mr) / k, vdiff, df)
    # the interval and the test at R = 1 are one statement; where rounding
    # in the interval's terms makes them disagree, the test (computed from
    # the differences) stands alone
    if ci is not None and (ci[0] > 1 or ci[1] < 1) != (t_test((res.ma - res.mr) / k, vdiff, t) != "none"):
        ci = None
        res.why = ROUNDING
    elif ci is None:
        res.why = UNBOUNDED
    if ci is None:
        res.test = t_test((res.ma - res.mr) / k, vdiff, t)
        if res.mr < 0 and res.test != "none":
            res.test = "lower" if res.test == "higher" else "higher"
        return res
    res.lo, res.hi = ci
    return res


def nonnegative(res, a, r):
    """RES with its interval's lower end at 0 at least where no value of
    either arm is negative (drops, counts): the true ratio cannot be below
    0, so the clipped interval covers it whenever Fieller's does."""
    if res.lo is not None and res.lo < 0 and (a >= 0).all() and (r >= 0).all():
        res.lo = 0.0
    return res


def opening(a, r, what):
    """The means of A and R as a Ratio; its why is set when no interval
    can follow (too few WHAT, or a reference of 0)."""
    na, nr = len(a), len(r)
    # exact sums: equal values give equal means whatever their count
    res = Ratio(min(na, nr), math.fsum(a) / na if na else math.nan,
                math.fsum(r) / nr if nr else math.nan, (na, nr))
    if min(na, nr) < MIN_UNITS:
        res.why = "fewer than %d %s" % (MIN_UNITS, what)
    elif res.mr == 0:
        res.why = "the reference is 0"
    elif (a == a[0]).all() and (r == r[0]).all():
        # identical repeats (virtual time): the ratio is exact, but the
        # units say nothing of the noise a verdict needs
        res.why = DETERMINISTIC
    return res


def paired_ratio(a, r, level):
    res = opening(a, r, "paired units")
    if res.why:
        return res
    n = res.units
    k = abs(res.mr)
    with np.errstate(over="ignore", invalid="ignore"):
        cov = np.cov(np.vstack([a / k, r / k]), ddof=1) / n
        vdiff = float(np.var(a / k - r / k, ddof=1)) / n
    return nonnegative(bound(res, k, cov[0, 0], cov[1, 1], cov[0, 1], n - 1, level, vdiff), a, r)


def unpaired_ratio(a, r, level):
    res = opening(a, r, "units")
    if res.why:
        return res
    na, nr = len(a), len(r)
    k = abs(res.mr)
    with np.errstate(over="ignore", invalid="ignore"):
        vaa = float(np.var(a / k, ddof=1)) / na
        vrr = float(np.var(r / k, ddof=1)) / nr
    q = res.ratio
    try:
        num = (vaa + q * q * vrr) ** 2
        den = vaa * vaa / (na - 1) + (q * q * vrr) ** 2 / (nr - 1)
    except OverflowError:
        num = den = math.inf
    if not (math.isfinite(num) and math.isfinite(den) and math.isfinite(vaa)):
        res.why = OUT_OF_RANGE
        return res
    # Welch-Satterthwaite at the estimate; where that leaves no term (an
    # arm of zeros: ratio 0; or no spread at all), the smaller side's df
    df = num / den if den > 0 else float(min(na, nr) - 1)
    return nonnegative(bound(res, k, vaa, vrr, 0.0, df, level, vaa + vrr), a, r)


NAME = re.compile(r"[A-Za-z0-9_.:+-]{1,63}$")


def read_table(f, name):
    """UNIT,ARM,VALUE lines ("#" lines, blank lines and a unit,arm,value
    header skipped): (units in order, arms in order, {(unit, arm): value})."""
    units, arms, values = [], [], {}
    seen_u, seen_a = set(), set()
    for lineno, line in enumerate(f, 1):
        line = line.rstrip("\n").rstrip("\r")
        where = "%s:%d" % (name, lineno)
        if not line or line.startswith("#") or line == "unit,arm,value":
            continue
        parts = line.split(",")
        if len(parts) != 3:
            raise InputError("%s: expected UNIT,ARM,VALUE, got '%s'" % (where, line))
        unit, arm, val = parts
        if not NAME.match(unit) or not NAME.match(arm):
            raise InputError("%s: unit '%s' or arm '%s' is not a name (1-63 of A-Z a-z 0-9 _ . : + -)"
                             % (where, unit, arm))
        x = float(val) if NUMBER.match(val) else math.nan
        if not math.isfinite(x):
            raise InputError("%s: value '%s' is not a finite number" % (where, val))
        if (unit, arm) in values:
            raise InputError("%s: unit '%s' has arm '%s' twice" % (where, unit, arm))
        if unit not in seen_u:
            seen_u.add(unit)
            units.append(unit)
        if arm not in seen_a:
            seen_a.add(arm)
            arms.append(arm)
        values[(unit, arm)] = x
    if not values:
        raise InputError("%s: no measurements" % name)
    return units, arms, values


NUMBER = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")


POOL = "(pooled)"   # the pooled reference: not a NAME an input arm can have


def pool_reference(units, values, ref, aa):
    """values with POOL added: in each unit with REF, the mean of REF and
    AA where the unit has both, REF alone where it has no AA."""
    out = dict(values)
    for u in units:
        if (u, ref) in values:
            out[(u, POOL)] = (values[(u, ref)] + values[(u, aa)]) / 2 if (u, aa) in values \
                else values[(u, ref)]
    return out


def ratio_of(opts, units, values, arm, ref):
    if opts.unpaired:
        a = np.array([values[(u, arm)] for u in units if (u, arm) in values])
        r = np.array([values[(u, ref)] for u in units if (u, ref) in values])
        return unpaired_ratio(a, r, opts.level)
    both = [u for u in units if (u, arm) in values and (u, ref) in values]
    return paired_ratio(np.array([values[(u, arm)] for u in both]),
                        np.array([values[(u, ref)] for u in both]), opts.level)


def within_margin(opts, c, v):
    """An interval that excludes 1 but lies within the margin."""
    return (v in ("higher", "lower") and c.defined and opts.margin > 0 and
            c.lo >= 1 / (1 + opts.margin) and c.hi <= 1 + opts.margin)


def floor_of(aa):
    """The A/A arm's noise floor: F >= 1 such that effects within 1/F to F
    are not claimed (the A/A interval mirrored about 1; a deterministic A/A
    arm's exact ratio mirrored), inf where the interval reaches 0; None
    without either."""
    if aa is None:
        return None
    if aa.why == DETERMINISTIC:
        return max(aa.ratio, 1 / aa.ratio) if aa.ratio > 0 else math.inf
    if not aa.defined:
        return None
    if aa.lo <= 0:
        return math.inf
    return max(aa.hi, 1 / aa.lo, 1.0)


def floor_text(f):
    """1/F-F with the digits that tell both ends from 1 (no commas: the
    text is a CSV field)."""
    if not math.isfinite(f):
        return "0-inf"
    for d in range(4, 12):
        lo, hi = "%.*g" % (d, 1 / f), "%.*g" % (d, f)
        if lo != "1" and hi != "1":
            break
    return lo + "-" + hi


def direction(v, better):
    if v == "higher":
        return "better" if better > 0 else "worse" if better < 0 else "higher"
    return "better" if better < 0 else "worse" if better > 0 else "lower"


def fmt_g(x):
    return "%.6g" % x


def directed(opts, c, v, aa, va):
    """The verdict of C, whose test says V (higher or lower), against the
    noise floor of the A/A arm AA (whose verdict is VA). Two-sided: an
    effect within the A/A interval mirrored about 1 is not claimed, whether
    or not that interval held 1; one beyond it holds even where the A/A arm
    differed by chance. Without an A/A interval (none, or its t test
    alone) a differing A/A arm leaves the verdict untrusted."""
    f = floor_of(aa)
    if f is None:
        trusted = aa is None or va in ("none", "undefined")
        return direction(v, opts.better) + ("" if trusted else " (but A/A differs too: not trusted)")
    if math.isinf(f) or 1 / f <= c.ratio <= f:
        return "below the noise floor (%s; within the A/A arm's %s)" % (direction(v, opts.better), floor_text(f))
    return direction(v, opts.better) + ("" if va == "none" or f == 1 else " (beyond the A/A arm's own difference)")


def verdict_text(opts, c, aa, is_aa):
    v = c.verdict()
    va = aa.verdict() if aa is not None else "undefined"
    small = within_margin(opts, c, v)
    if aa is not None and within_margin(opts, aa, va):
        va = "none"
    pct = "%g" % (100 * opts.margin)
    if c.why == DETERMINISTIC:
        na, nr = c.counts
        n = "%d identical units in each arm" % na if na == nr else "identical units in each arm (%d and %d)" % (na, nr)
        f = floor_of(c) if is_aa else None
        return ("A/A: " if is_aa else "") + "deterministic: " + n + (
            " (no noise estimate: no interval and no verdict%s)" %
            ("" if f is None or f == 1 else "; effects within its exact %s are not claimed" % floor_text(f)))
    if v == "undefined":
        return "undefined: " + c.why
    if not c.defined:
        # no interval, but the t test at R = 1 decided
        note = " (no interval: %s; the t test of arm - reference)" % c.why
        if is_aa:
            return ("A/A: no difference (the noise floor)" if v == "none" else
                    "A/A DIFFERS: the run cannot separate settings") + note
        if v == "none":
            return "no difference detected" + note
        return directed(opts, c, v, aa, va) + note
    if is_aa and small:
        return "A/A: no difference beyond %s %% (the noise floor)" % pct
    if is_aa:
        return ("A/A: no difference (the noise floor)" if v == "none" else
                "A/A DIFFERS: effects within %s are not claimed (the noise floor)" % floor_text(floor_of(c)))
    if v == "none":
        return "no difference detected"
    if small:
        return "no difference beyond %s %% (%s: within the margin)" % (pct, v)
    return directed(opts, c, v, aa, va)


def row(opts, arm, c, aa, is_aa):
    out = [opts.metric, arm]
    if c.units:
        out += [str(c.units), fmt_g(c.ma), fmt_g(c.mr)]
    else:
        out += ["0", "", ""]
    if math.isnan(c.ratio):
        out += ["", "", "", ""]
    elif c.why == DETERMINISTIC:
        # exact: as many digits as tell it from 1
        out += [fmt_g(c.ratio), "", "", ""]
    elif not c.defined:
        out += ["%.4f" % c.ratio, "", "", ""]
    else:
        out += ["%.4f" % c.ratio, "%.4f" % c.lo, "%.4f" % c.hi, "%.2f" % (100 * (c.hi - c.lo) / 2)]
    out += ["%.4f" % aa.lo, "%.4f" % aa.hi] if aa is not None and aa.defined else ["", ""]
    out.append(verdict_text(opts, c, aa, is_aa))
    # enough digits that the rounded p falls on the verdict's side of 0.05
    out.append("" if c.p is None else "%.6g" % c.p)
    return ",".join(out)


def number(lo, hi, what):
    def parse(s):
        try:
            x = float(s)
        except ValueError:
            x = math.nan
        if not lo <= x <= hi or s != s.strip():
            raise argparse.ArgumentTypeError("%s must be a number from %g to %g, not '%s'" %
                                             (what, lo, hi, s))
        return x
    return parse


class Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write("compare: %s\n" % message)
        sys.exit(2)


def parse(argv):
    p = Parser(prog="compare", description=__doc__.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter,
               epilog="Output (CSV): " + COLS + "\n  detectable_pct: the interval's "
               "half-width in %: a smaller true difference would most likely go\n"
               "  undetected by this run.\n  p: the two-sided p value of the t test "
               "at ratio 1 that the interval inverts\n  (empty for the reference and "
               "where no ratio is defined).")
    p.add_argument("file", nargs="?", help="UNIT,ARM,VALUE lines (default: standard input)")
    p.add_argument("--ref", help="the reference arm (required)")
    p.add_argument("--aa", help="the A/A arm (default: none)")
    p.add_argument("--pool-aa", action="store_true",
                   help="the reference is the mean of REF and the A/A arm in each unit "
                   "(REF alone where a unit has no A/A value); the A/A row stays the "
                   "A/A arm against REF (needs --aa)")
    p.add_argument("--better", choices=("lower", "higher"),
                   help="which way is better (verdicts then say better/worse)")
    p.add_argument("--metric", default="value", help="the first column of every row")
    p.add_argument("--unpaired", action="store_true",
                   help="the arms' units are independent (e.g. two runs): Welch's "
                   "variance of each arm's mean, over all its units")
    p.add_argument("--margin", type=number(0, 50, "--margin"), default=0.01,
                   help="a tolerance, 0-50 %% (default 0.01): an interval that excludes 1 "
                   "but lies within 1/(1+PCT/100) to 1+PCT/100 says no difference beyond "
                   "it (deterministic runs: repeats agree to the last digit); 0: a "
                   "verdict on any difference")
    p.add_argument("--level", type=number(0.5, 0.999, "--level"), default=0.95,
                   help="confidence level, 0.5-0.999 (default 0.95)")
    o = p.parse_args(argv)
    if o.ref is None:
        p.print_usage(sys.stderr)
        p.error("--ref is required")
    if o.pool_aa and o.aa is None:
        p.print_usage(sys.stderr)
        p.error("--pool-aa needs --aa")
    if o.pool_aa and o.unpaired:
        p.print_usage(sys.stderr)
        p.error("--pool-aa pools by unit: not with --unpaired")
    o.margin /= 100
    o.better = {"lower": -1, "higher": 1, None: 0}[o.better]
    return o


def main(argv):
    opts = parse(argv)
    try:
        if opts.file:
            try:
                f = open(opts.file)
            except OSError as e:
                sys.stderr.write("compare: %s: %s\n" % (opts.file, e.strerror))
                return 1
            with f:
                units, arms, values = read_table(f, opts.file)
        else:
            units, arms, values = read_table(sys.stdin, "<stdin>")
    except InputError as e:
        sys.stderr.write("compare: %s\n" % e)
        return 1
    if opts.ref not in arms:
        sys.stderr.write("compare: no arm '%s' (the reference) in the input\n" % opts.ref)
        return 1
    if opts.aa is not None and (opts.aa not in arms or opts.aa == opts.ref):
        sys.stderr.write("compare: no A/A arm '%s' in the input, or it is the reference\n" % opts.aa)
        return 1
    aa = ratio_of(opts, units, values, opts.aa, opts.ref) if opts.aa else None
    ref = opts.ref
    if opts.pool_aa:
        values = pool_reference(units, values, opts.ref, opts.aa)
        ref = POOL
    print(COLS)
    for arm in arms:
        if arm == opts.ref:
            # mean: the reference's own; ref_mean: what the comparisons
            # divide by (pooled with the A/A arm under --pool-aa)
            ref_vals = [values[(u, ref)] for u in units if (u, ref) in values]
            own = fmt_g(float(np.mean([values[(u, arm)] for u in units if (u, arm) in values])))
            m = fmt_g(float(np.mean(ref_vals)))
            tail = ["%.4f" % aa.lo, "%.4f" % aa.hi] if aa is not None and aa.defined else ["", ""]
            print(",".join([opts.metric, arm, str(len(ref_vals)), own, m, "1", "", "", ""] + tail +
                           ["reference", ""]))
            continue
        # the A/A arm against REF alone: the noise floor
        c = aa if arm == opts.aa else ratio_of(opts, units, values, arm, ref)
        print(row(opts, arm, c, aa, arm == opts.aa))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
