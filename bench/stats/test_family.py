#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of family.py: Holm and Benjamini-Hochberg worked by hand on a
family of compare's rows (the reference, the A/A arm, other metrics and
undefined rows left out; verdicts that are not trusted never hold), bad
input refused, and on simulated runs with no difference anywhere: Holm
keeps the chance of any verdict in a family of 8 comparisons at 5 %, where
the uncorrected verdicts give one in about a quarter of the runs."""
import io
import sys
import unittest
from contextlib import redirect_stderr, redirect_stdout

import numpy as np

import compare
import family
from test_compare import paired_lognormal


def row(metric, arm, verdict, p, ctx=None):
    r = ",".join([metric, arm, "6", "1", "1", "1", "0.9", "1.1", "10", "", "", verdict, p])
    return r if ctx is None else ctx + "\t" + r


def run(args, stdin):
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                rc = family.main(args)
            except SystemExit as e:
                rc = e.code
    finally:
        sys.stdin = saved
    return rc, [ln.split("\t") for ln in out.getvalue().splitlines()], err.getvalue()


class ByHand(unittest.TestCase):
    def test_holm_and_bh(self):
        # p 0.01 0.02 0.03 0.5: Holm 0.04 0.06 0.06 0.5 (one holds), BH
        # 0.04 0.04 0.04 0.5 (three hold)
        rows = [compare.COLS,
                row("drop_pct r256 1000", "auto", "reference", "", "r256 1000"),
                row("drop_pct r256 1000", "auto_aa", "A/A: no difference (the noise floor)", "0.001", "r256 1000"),
                row("drop_pct r256 1000", "legacy", "better", "0.01", "r256 1000"),
                row("drop_pct r256 1000", "mn16", "worse", "0.02", "r256 1000"),
                row("drop_pct r512 1000", "legacy", "better", "0.03", "r512 1000"),
                row("drop_pct r512 1000", "mn16", "no difference detected", "0.5", "r512 1000"),
                row("drop_pct r512 1000", "mn8", "undefined: fewer than 3 paired units", "", "r512 1000"),
                row("refills_per_1000 r256 1000", "legacy", "lower", "0.0001", "r256 1000")]
        rc, out, err = run(["--metric", "drop_pct", "--ref", "auto", "--aa", "auto_aa"], "\n".join(rows) + "\n")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out[0], ["context", "arm", "verdict", "p", "p_holm", "p_bh", "holm", "bh"])
        got = [(r[0], r[1], float(r[4]), float(r[5]), r[6], r[7]) for r in out[1:]]
        want = [("r256 1000", "legacy", 0.04, 0.04, "better", "better"),
                ("r256 1000", "mn16", 0.06, 0.04, "-", "worse"),
                ("r512 1000", "legacy", 0.06, 0.04, "-", "better"),
                ("r512 1000", "mn16", 0.5, 0.5, "-", "-")]
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            self.assertEqual(g[:2] + g[4:], w[:2] + w[4:])
            self.assertAlmostEqual(g[2], w[2])
            self.assertAlmostEqual(g[3], w[3])

    def test_untrusted_and_margin_verdicts_never_hold(self):
        rows = [row("x", "a", "reference", ""),
                row("x", "b", "better (but A/A differs too: not trusted)", "0.0001"),
                row("x", "c", "no difference beyond 0.01 % (higher: within the margin)", "0"),
                row("x:boots", "d", "higher", "0.0001")]
        rc, out, _ = run(["--metric", "x", "--ref", "a"], "\n".join(rows) + "\n")
        self.assertEqual(rc, 0)
        self.assertEqual([(r[1], r[6], r[7]) for r in out[1:]],
                         [("b", "-", "-"), ("c", "-", "-"), ("d", "higher", "higher")])
        # no context: the metric names the row
        self.assertEqual(out[1][0], "x")
        # an untrusted p moves no threshold: with its 0.001 BH would let
        # t's 0.03 hold (0.03 x 2 / 2); taken as 1, t's is 0.06
        rows = [row("x", "u", "better (but A/A differs too: not trusted)", "0.001"),
                row("x", "t", "better", "0.03")]
        rc, out, _ = run(["--metric", "x", "--ref", "a"], "\n".join(rows) + "\n")
        self.assertEqual([(r[1], r[6], r[7]) for r in out[1:]], [("u", "-", "-"), ("t", "-", "-")])
        self.assertAlmostEqual(float(out[2][5]), 0.06)

    def test_an_empty_family(self):
        rc, out, _ = run(["--metric", "y", "--ref", "a"], row("x", "b", "better", "0.01") + "\n")
        self.assertEqual((rc, len(out)), (0, 1))

    def test_bad_input(self):
        for args, stdin, rc, msg in (
                ([], "", 2, "--metric"),
                (["--metric", "x"], "", 2, "--ref"),
                (["--metric", "x", "--ref", "a", "--alpha", "1"], "", 2, "--alpha must be a number between 0 and 1"),
                (["--metric", "x", "--ref", "a"], "x,b,1,1,1,1,,,,,,better\n", 1, "expected compare's 13 columns"),
                (["--metric", "x", "--ref", "a"], row("x", "b", "better", "1.5") + "\n", 1, "p '1.5' is not a probability"),
                (["--metric", "x", "--ref", "a", "/nonexistent/v.csv"], "", 1, "No such file")):
            got, _, err = run(args, stdin)
            self.assertEqual(got, rc, (args, err))
            self.assertIn(msg, err, args)


class NullFamilies(unittest.TestCase):
    def test_holm_keeps_the_family_wise_error(self):
        # 8 comparisons of 6 paired units each, nothing differs: the share
        # of families with at least one verdict, uncorrected and after Holm
        rng = np.random.default_rng(33)
        reps, m, any_raw, any_holm, any_bh = 1500, 8, 0, 0, 0
        for _ in range(reps):
            rows = []
            for k in range(m):
                a, r = paired_lognormal(rng, 6)
                c = compare.paired_ratio(a, r, 0.95)
                verdict = c.verdict() if c.defined else "undefined"
                rows.append(row("drop_pct c%d" % k, "b", verdict, "%.6g" % c.p))
            rc, out, _ = run(["--metric", "drop_pct", "--ref", "a"], "\n".join(rows) + "\n")
            self.assertEqual(rc, 0)
            any_raw += any(r[2] in ("higher", "lower") for r in out[1:])
            any_holm += any(r[6] != "-" for r in out[1:])
            any_bh += any(r[7] != "-" for r in out[1:])
        raw, holm, bh = any_raw / reps, any_holm / reps, any_bh / reps
        print("families of %d null comparisons with a verdict: uncorrected %.3f, Holm %.3f, BH %.3f"
              % (m, raw, holm, bh))
        self.assertGreater(raw, 0.2)
        # 5 % family-wise, with room for 1500 draws (SE 0.6 points)
        self.assertLessEqual(holm, 0.065)
        self.assertLessEqual(bh, 0.065)


if __name__ == "__main__":
    unittest.main(verbosity=2)
