#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""family: compare's verdicts corrected for their number. The family is
every comparison of one metric in a run (each setting against the
reference in each cell; the reference and the A/A arm are not in it);
Holm's method keeps the chance of any false verdict in the family at
ALPHA, Benjamini-Hochberg's the expected share of false verdicts among
those that hold. Both on statsmodels.

Input: compare's rows (metric,arm,...,verdict,p), each optionally after a
context and a TAB (the report layer's "CELL<TAB>row"); "#" lines and
headers skipped. A row belongs to metric M when its metric is M, M:boots (the
other kernel, by boot) or starts with "M " (M and its cell).

Output (TAB-separated, a header first): context, arm, verdict, p, p_holm,
p_bh, holm, bh; holm and bh are the verdict where it holds after that
correction, else "-". A verdict can hold only where compare gave one that
is trusted (better/worse/higher/lower with no "not trusted", not below
the noise floor nor within the margin); such a withheld verdict stays in the family (its number
counts) with p taken as 1, so that a p the run's own A/A arm discredits
moves no threshold. A row with no p (undefined) is not in the family.
"""
import argparse
import sys

try:
    from statsmodels.stats.multitest import multipletests
except ImportError:
    sys.stderr.write("family: needs python3-statsmodels (scripts/install-deps.sh installs it)\n")
    sys.exit(1)

DIRECTED = ("better", "worse", "higher", "lower")


class Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write("family: %s\n" % message)
        sys.exit(2)


def alpha_arg(s):
    try:
        x = float(s)
    except ValueError:
        x = -1.0
    if not 0 < x < 1 or s != s.strip():
        raise argparse.ArgumentTypeError("--alpha must be a number between 0 and 1, not '%s'" % s)
    return x


def parse(argv):
    p = Parser(prog="family", description=__doc__.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", help="compare's rows (default: standard input)")
    p.add_argument("--metric", required=True, help="the family's metric")
    p.add_argument("--ref", required=True, help="the reference arm (not in the family)")
    p.add_argument("--aa", default="", help="the A/A arm (not in the family)")
    p.add_argument("--alpha", type=alpha_arg, default=0.05,
                   help="family-wise error (Holm) and false discovery rate (BH), default 0.05")
    return p.parse_args(argv)


def in_metric(name, metric):
    """METRIC itself, the other kernel's METRIC:boots, or METRIC with its
    cell ("drop_pct r256 x0.9 none"): the rows the headline counts."""
    return name in (metric, metric + ":boots") or name.startswith(metric + " ")


def trusted(verdict):
    return verdict.startswith(DIRECTED) and "not trusted" not in verdict


def discredited(verdict):
    """A verdict compare withheld although p < 0.05: the A/A arm differed
    too, the effect lies within the A/A arm's noise floor, or within the
    margin."""
    return any(w in verdict for w in ("not trusted", "below the noise floor", "within the margin"))


def read_rows(f, name, opts):
    """(context, arm, verdict, p) of the family's rows."""
    rows = []
    for lineno, line in enumerate(f, 1):
        line = line.rstrip("\r\n")
        if not line or line.startswith("#"):
            continue
        ctx, _, row = line.rpartition("\t")
        f_ = row.split(",")
        if f_[0] == "metric":
            continue
        if len(f_) != 13:
            raise ValueError("%s:%d: expected compare's 13 columns (metric,...,verdict,p), got %d%s"
                             % (name, lineno, len(f_),
                                ": a verdicts.csv from before p was recorded?" if len(f_) == 12 else ""))
        metric, arm, verdict, p = f_[0], f_[1], f_[11], f_[12]
        if not in_metric(metric, opts.metric) or arm in (opts.ref, opts.aa) or p == "":
            continue
        try:
            pv = float(p)
        except ValueError:
            pv = -1.0
        if not 0 <= pv <= 1:
            raise ValueError("%s:%d: p '%s' is not a probability" % (name, lineno, p))
        rows.append((ctx or metric, arm, verdict, pv + 0.0))	# no "-0"
    return rows


def main(argv):
    opts = parse(argv)
    try:
        if opts.file:
            with open(opts.file) as f:
                rows = read_rows(f, opts.file, opts)
        else:
            rows = read_rows(sys.stdin, "<stdin>", opts)
    except OSError as e:
        sys.stderr.write("family: %s: %s\n" % (opts.file, e.strerror))
        return 1
    except ValueError as e:
        sys.stderr.write("family: %s\n" % e)
        return 1
    print("\t".join(("context", "arm", "verdict", "p", "p_holm", "p_bh", "holm", "bh")))
    if not rows:
        return 0
    ps = [1.0 if discredited(r[2]) else r[3] for r in rows]
    rej_h, p_h, _, _ = multipletests(ps, alpha=opts.alpha, method="holm")
    rej_b, p_b, _, _ = multipletests(ps, alpha=opts.alpha, method="fdr_bh")
    for (ctx, arm, verdict, p), rh, ph, rb, pb in zip(rows, rej_h, p_h, rej_b, p_b):
        word = verdict.split(" ")[0].rstrip(":")
        print("\t".join((ctx, arm, verdict, "%.4g" % p, "%.4g" % ph, "%.4g" % pb,
                         word if rh and trusted(verdict) else "-",
                         word if rb and trusted(verdict) else "-")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
