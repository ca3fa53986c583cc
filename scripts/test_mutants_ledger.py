#!/usr/bin/env python3
"""Tests of scripts/mutants-ledger.py, on a scratch git repository.

Usage: python3 scripts/test_mutants_ledger.py   (scripts/test.sh runs it)
"""
import contextlib
import importlib.util
import io
import json
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
        self.ledger = "scripts/mutants/pkg.txt"
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
        self.quiet(ledger_mod.seed, self.ledger, self.out, self.list)
        self.assertEqual(self.previously_caught(), [])
        self.run_piece({"caught": [A1, B1], "missed": [B2], "unviable": [A2]})
        printed = self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        self.assertIn("5 mutants; 2 caught, 1 missed, 1 unviable, 0 timeouts, 0 real loops, 1 not tested yet; caught 66.7%", printed)
        self.assertIn(f"  missed: {B2}", printed)
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        commit, entries = ledger_mod.read_ledger(self.ledger)
        self.assertEqual(commit, head)
        self.assertEqual(entries, {A1: "caught", A2: "unviable", B1: "caught", B2: "missed"})
        # The next piece: caught and unviable are skipped, the missed one is tested again.
        self.quiet(ledger_mod.seed, self.ledger, self.out, self.list)
        self.assertEqual(self.previously_caught(), [A1, A2, B1])
        self.assertFalse(os.path.exists(os.path.join(self.out, "mutants.out", "caught.txt")), "only the ledger's word")
        self.run_piece({"caught": [B2, B3]})
        printed = self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        self.assertIn("5 mutants; 4 caught, 0 missed, 1 unviable, 0 timeouts, 0 real loops, 0 not tested yet; caught 100.0%", printed)

    def test_outcomes_of_a_changed_file_and_of_mutants_gone_are_dropped(self):
        self.run_piece({"caught": [A1, B1, B2], "timeout": [A2]})
        self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        self.commit({"a/src/one.rs": "one, changed\n"})
        printed = self.quiet(ledger_mod.seed, self.ledger, self.out, self.list)
        self.assertIn("2 outcomes dropped (their functions changed since", printed)
        self.assertEqual(self.previously_caught(), [B1, B2])
        # B2 left the list (an exclusion, or its code went): dropped too.
        self.write_lines(self.list, [A1, A2, B1, B3])
        self.run_piece({})
        printed = self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        self.assertIn("4 mutants; 1 caught, 0 missed, 0 unviable, 0 timeouts, 0 real loops, 3 not tested yet", printed)
        self.assertEqual(ledger_mod.read_ledger(self.ledger)[1], {B1: "caught"})

    def test_a_commit_made_during_a_piece_drops_its_files_outcomes(self):
        self.quiet(ledger_mod.seed, self.ledger, self.out, self.list)
        self.commit({"a/src/two.rs": "two, changed while the piece ran\n"})
        self.run_piece({"caught": [A1, B1], "missed": [B2]})
        self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        self.assertEqual(ledger_mod.read_ledger(self.ledger)[1], {A1: "caught"})

    def test_an_outcome_follows_its_mutant_to_a_new_line_while_its_function_is_unchanged(self):
        # one.rs at HEAD: f on lines 1-3, g on lines 5-9, h on lines 11-13.
        source = ["fn f() {", "    1 + 1", "}", "", "fn g() {", "    2 + 2", "    3 + 3", "    4 + 4", "}", "", "fn h() {", "    5 + 5", "}"]
        self.commit({"a/src/one.rs": "\n".join(source) + "\n"})
        name = lambda line, what: f"a/src/one.rs:{line}:5: replace + with - in {what}"
        self.write_json_list({name(2, "f"): (1, 3), name(6, "g"): (5, 9), name(8, "g"): (5, 9), name(12, "h"): (11, 13)})
        self.run_piece({"caught": [name(2, "f"), name(6, "g"), name(12, "h")], "missed": [name(8, "g")]})
        self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        # Two lines inserted above f, and g's last line changed.
        source = ["// one", "// two"] + source
        source[9] = "    4 * 4"
        self.commit({"a/src/one.rs": "\n".join(source) + "\n"})
        self.write_json_list({name(4, "f"): (3, 5), name(8, "g"): (7, 11), name(14, "h"): (13, 15)})
        printed = self.quiet(ledger_mod.seed, self.ledger, self.out, self.list)
        self.assertIn("2 mutants settled", printed)
        # f's and h's outcomes moved two lines down; g changed, so its mutants are tested again.
        self.assertEqual(self.previously_caught(), [name(4, "f"), name(14, "h")])
        # A moved name that is not in the list is dropped too.
        self.write_json_list({name(4, "f"): (3, 5)})
        self.quiet(ledger_mod.seed, self.ledger, self.out, self.list)
        self.assertEqual(self.previously_caught(), [name(4, "f")])

    def write_json_list(self, spans):
        """A list file as `cargo mutants --list --json` writes it (the fields read)."""
        with open(self.list, "w") as f:
            json.dump([{"name": n, "function": {"span": {"start": {"line": a}, "end": {"line": b}}}} for n, (a, b) in spans.items()], f)

    def test_a_bad_line_is_named(self):
        self.write_lines(self.ledger, ["commit 0123", "caught\t" + A1, "caugth\t" + A2])
        with self.assertRaises(ledger_mod.LedgerError) as e:
            ledger_mod.read_ledger(self.ledger)
        self.assertIn(f"{self.ledger}, line 3: expected `<outcome><TAB><mutant name>`", str(e.exception))
        self.assertIn("'caugth\\t" + A2 + "'", str(e.exception))
        self.write_lines(self.ledger, ["caught\t" + A1])
        with self.assertRaisesRegex(ledger_mod.LedgerError, "outcomes without a `commit <sha>` line"):
            ledger_mod.read_ledger(self.ledger)

    def test_a_timeout_judged_a_loop_is_carried_and_a_plain_one_tested_again(self):
        self.run_piece({"caught": [A1], "timeout": [A2, B1], "missed": [B2]})
        self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        printed = self.quiet(ledger_mod.mark_loops, self.ledger, self.list, [A2])
        self.assertIn("5 mutants; 1 caught, 1 missed, 0 unviable, 1 timeouts, 1 real loops, 1 not tested yet; "
                      "caught 25.0% (50.0% with the real loops) of the viable tested", printed)
        self.assertIn(f"  loop: {A2}", printed)
        self.assertEqual(ledger_mod.read_ledger(self.ledger)[1], {A1: "caught", A2: "loop", B1: "timeout", B2: "missed"})
        # The loop is skipped by the next piece like a caught mutant; the plain timeout is tested again.
        self.quiet(ledger_mod.seed, self.ledger, self.out, self.list)
        self.assertEqual(self.previously_caught(), [A1, A2])
        # Only a timeout can be judged a loop.
        for name, found in [(B2, "missed"), (B3, "not in the ledger at HEAD")]:
            with self.assertRaises(ledger_mod.LedgerError) as e:
                ledger_mod.mark_loops(self.ledger, self.list, [name])
            self.assertIn(f"{name!r} is no timeout ({found})", str(e.exception))
        # A loop whose function changes is tested again, like any outcome.
        self.commit({"a/src/one.rs": "one, changed\n"})
        self.quiet(ledger_mod.seed, self.ledger, self.out, self.list)
        self.assertEqual(self.previously_caught(), [])

    def test_the_ledger_sorts_by_file_then_line_number(self):
        self.run_piece({"caught": [B3, A2, B1, A1]})
        self.quiet(ledger_mod.record, self.ledger, self.out, self.list)
        with open(self.ledger) as f:
            names = [line.split("\t", 1)[1].rstrip("\n") for line in f if "\t" in line]
        self.assertEqual(names, [A1, A2, B1, B3])


if __name__ == "__main__":
    unittest.main()
