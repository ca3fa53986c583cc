#!/usr/bin/env python3
"""Tests of scripts/mutants-ledger.py, on a scratch git repository.

Usage: python3 scripts/test_mutants_ledger.py   (scripts/test.sh runs it)
"""
import contextlib
import importlib.util
import io
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("mutants_ledger", os.path.join(HERE, "mutants-ledger.py"))
ledger_mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ledger_mod)

A1 = "a/src/one.rs:3:5: replace f -> u8 with 0"
A2 = "a/src/one.rs:10:9: replace + with - in g"
B1 = "a/src/two.rs:4:5: replace h -> bool with true"
B2 = "a/src/two.rs:12:13: replace == with != in k"
B3 = "a/src/two.rs:20:1: delete ! in m"


class LedgerTest(unittest.TestCase):
    def setUp(self):
        self.old_cwd = os.getcwd()
        self.dir = tempfile.TemporaryDirectory()
        os.chdir(self.dir.name)
        for args in (["init", "-q"], ["config", "user.email", "t@t"], ["config", "user.name", "t"]):
            subprocess.run(["git", *args], check=True)
        os.makedirs("a/src")
        self.commit({"a/src/one.rs": "one\n", "a/src/two.rs": "two\n"})
        self.ledger = "docs/mutants/pkg.txt"
        self.out = "out"
        self.list = "list.txt"
        self.write_lines(self.list, [A1, A2, B1, B2, B3])

    def tearDown(self):
        os.chdir(self.old_cwd)
        self.dir.cleanup()

    def commit(self, files):
        for path, text in files.items():
            with open(path, "w") as f:
                f.write(text)
        subprocess.run(["git", "add", "-A"], check=True)
        subprocess.run(["git", "commit", "-qm", "c"], check=True)

    @staticmethod
    def write_lines(path, lines):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            f.writelines(line + "\n" for line in lines)

    def run_piece(self, outcomes):
        """A cargo-mutants run's output files: {outcome: [names]}."""
        for outcome in ledger_mod.OUTCOMES:
            self.write_lines(os.path.join(self.out, "mutants.out", f"{outcome}.txt"), outcomes.get(outcome, []))

    def quiet(self, f, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            f(*args)
        return out.getvalue()

    def previously_caught(self):
        with open(os.path.join(self.out, "mutants.out", "previously_caught.txt")) as f:
            return f.read().split("\n")[:-1]

    def test_a_piece_is_recorded_and_the_next_one_skips_what_it_settled(self):
        self.quiet(ledger_mod.seed, self.ledger, self.out)
        self.assertEqual(self.previously_caught(), [])
        self.run_piece({"caught": [A1, B1], "missed": [B2], "unviable": [A2]})
        printed = self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        self.assertIn("5 mutants; 2 caught, 1 missed, 1 unviable, 0 timeouts, 1 not tested yet; caught 66.7%", printed)
        self.assertIn(f"  missed: {B2}", printed)
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        commit, entries = ledger_mod.read_ledger(self.ledger)
        self.assertEqual(commit, head)
        self.assertEqual(entries, {A1: "caught", A2: "unviable", B1: "caught", B2: "missed"})
        # The next piece: caught and unviable are skipped, the missed one is tested again.
        self.quiet(ledger_mod.seed, self.ledger, self.out)
        self.assertEqual(self.previously_caught(), [A1, A2, B1])
        self.assertFalse(os.path.exists(os.path.join(self.out, "mutants.out", "caught.txt")), "only the ledger's word")
        self.run_piece({"caught": [B2, B3]})
        printed = self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        self.assertIn("5 mutants; 4 caught, 0 missed, 1 unviable, 0 timeouts, 0 not tested yet; caught 100.0%", printed)

    def test_outcomes_of_a_changed_file_and_of_mutants_gone_are_dropped(self):
        self.run_piece({"caught": [A1, B1, B2], "timeout": [A2]})
        self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        self.commit({"a/src/one.rs": "one, changed\n"})
        printed = self.quiet(ledger_mod.seed, self.ledger, self.out)
        self.assertIn("2 outcomes dropped, their files changed since", printed)
        self.assertEqual(self.previously_caught(), [B1, B2])
        # B2 left the list (an exclusion, or its code went): dropped too.
        self.write_lines(self.list, [A1, A2, B1, B3])
        self.run_piece({})
        printed = self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        self.assertIn("4 mutants; 1 caught, 0 missed, 0 unviable, 0 timeouts, 3 not tested yet", printed)
        self.assertEqual(ledger_mod.read_ledger(self.ledger)[1], {B1: "caught"})

    def test_a_commit_made_during_a_piece_drops_its_files_outcomes(self):
        self.quiet(ledger_mod.seed, self.ledger, self.out)
        self.commit({"a/src/two.rs": "two, changed while the piece ran\n"})
        self.run_piece({"caught": [A1, B1], "missed": [B2]})
        self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        self.assertEqual(ledger_mod.read_ledger(self.ledger)[1], {A1: "caught"})

    def test_a_bad_line_is_named(self):
        self.write_lines(self.ledger, ["commit 0123", "caught\t" + A1, "caugth\t" + A2])
        with self.assertRaises(ledger_mod.LedgerError) as e:
            ledger_mod.read_ledger(self.ledger)
        self.assertIn(f"{self.ledger}, line 3: expected `<outcome><TAB><mutant name>`", str(e.exception))
        self.assertIn("'caugth\\t" + A2 + "'", str(e.exception))
        self.write_lines(self.ledger, ["caught\t" + A1])
        with self.assertRaisesRegex(ledger_mod.LedgerError, "outcomes without a `commit <sha>` line"):
            ledger_mod.read_ledger(self.ledger)

    def test_the_ledger_sorts_by_file_then_line_number(self):
        self.run_piece({"caught": [B3, A2, B1, A1]})
        self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        with open(self.ledger) as f:
            names = [line.split("\t", 1)[1].rstrip("\n") for line in f if "\t" in line]
        self.assertEqual(names, [A1, A2, B1, B3])


if __name__ == "__main__":
    unittest.main()
