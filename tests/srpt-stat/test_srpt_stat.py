# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of scripts/srpt-stat: the percentile arithmetic, the port
names, the deltas, what a report shows, and the program against a fake
configfs tree. The build tier runs them:

    python3 -m unittest discover -s tests/srpt-stat -v
"""

import importlib.machinery
import importlib.util
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "scripts", "srpt-stat")


def _load():
    loader = importlib.machinery.SourceFileLoader("srpt_stat", TOOL)
    spec = importlib.util.spec_from_loader("srpt_stat", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


S = _load()

GID = "0xfe800000000000005054001234567890"
GUID = "5054:0012:3456:7890"


def stats_text(**c):
    """A statistics file as ib_srpt writes it, counters from c (0 else)."""
    names = ["channels", "commands", "reads", "writes", "bytes_read", "bytes_written"]
    names += [b for b, _ in S.BUCKETS] + ["credits", "queue_depth"]
    return "".join("%s %d\n" % (n, c.get(n, 0)) for n in names)


class FakeConfigfs:
    """A directory laid out like /sys/kernel/config/target/srpt."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.srpt = os.path.join(self.root, "target", "srpt")
        os.makedirs(os.path.join(self.srpt, "discovery_auth"))

    def tpg(self, tport, tpg="tpgt_1", **counters):
        d = os.path.join(self.srpt, tport, tpg)
        os.makedirs(os.path.join(d, "acls"), exist_ok=True)
        self.write(os.path.join(d, "statistics"), **counters)
        return d

    def acl(self, tport, name, tpg="tpgt_1", **counters):
        d = os.path.join(self.srpt, tport, tpg, "acls", name)
        os.makedirs(d, exist_ok=True)
        self.write(os.path.join(d, "statistics"), **counters)

    @staticmethod
    def write(path, **counters):
        with open(path, "w", encoding="ascii") as f:
            f.write(stats_text(**counters))

    def close(self):
        self.tmp.cleanup()


def counts(**by_bucket):
    """A histogram: latency counter name without "latency_" -> count."""
    return [by_bucket.get(b[len("latency_"):], 0) for b, _ in S.BUCKETS]


class Percentile(unittest.TestCase):
    def test_no_commands(self):
        self.assertIsNone(S.percentile(counts(), 50))
        self.assertEqual(S.format_ms(None), "-")

    def test_interpolated_within_the_bucket(self):
        # 100 commands in [1 ms, 10 ms): the pth lies p % of the way in.
        h = counts(lt_10ms=100)
        self.assertAlmostEqual(S.percentile(h, 50), 1000 + 9000 * 0.50)
        self.assertAlmostEqual(S.percentile(h, 99), 1000 + 9000 * 0.99)
        self.assertAlmostEqual(S.percentile(h, 100), 10000)
        # The first bucket starts at 0.
        self.assertAlmostEqual(S.percentile(counts(lt_100us=4), 25), 25)

    def test_across_buckets(self):
        # 100 under 1 ms, 200 in [1, 10) ms: rank 150 is the 50th of 200.
        h = counts(lt_1ms=100, lt_10ms=200)
        self.assertAlmostEqual(S.percentile(h, 50), 1000 + 9000 * 50 / 200)
        self.assertAlmostEqual(S.percentile(h, 99), 1000 + 9000 * 197 / 200)
        self.assertEqual(S.format_ms(S.percentile(h, 50)), "3.25")
        self.assertEqual(S.format_ms(S.percentile(h, 99)), "9.87")

    def test_rank_on_a_bucket_boundary(self):
        # Exactly half below 1 ms: the median is that bucket's top, not
        # the next bucket's start interpolated from 0 commands.
        h = counts(lt_100us=50, lt_1ms=50, lt_100ms=100)
        self.assertAlmostEqual(S.percentile(h, 50), 1000)
        # Empty buckets in between are skipped.
        self.assertAlmostEqual(S.percentile(h, 75), 10000 + 90000 * 0.5)

    def test_exact_with_odd_totals(self):
        # 99 % of 7 is 6.93: found in the bucket holding the 7th.
        h = counts(lt_100us=6, lt_1ms=1)
        self.assertAlmostEqual(S.percentile(h, 99), 100 + 900 * 0.93)
        self.assertAlmostEqual(S.percentile(h, 50), 100 * 3.5 / 6)

    def test_open_bucket(self):
        h = counts(lt_1s=1, ge_1s=1)
        self.assertAlmostEqual(S.percentile(h, 50), 1000000)
        self.assertTrue(math.isinf(S.percentile(h, 99)))
        self.assertEqual(S.format_ms(S.percentile(h, 99)), ">1000")

    def test_ordered(self):
        rng = random.Random(14)
        for _ in range(2000):
            h = [rng.choice((0, 0, 1, 2, 7, 1000)) for _ in S.BUCKETS]
            if not sum(h):
                continue
            ps = [S.percentile(h, p) for p in (0.1, 1, 25, 50, 90, 99, 99.9, 100)]
            self.assertEqual(ps, sorted(ps), h)
            # Inside the bucket the cumulative count names.
            for p, v in zip((0.1, 1, 25, 50, 90, 99, 99.9, 100), ps):
                below = 0
                for (_, upper), n in zip(S.BUCKETS, h):
                    below += n
                    if below * 100 >= sum(h) * p:
                        self.assertTrue(v <= (upper if upper is not None else math.inf), (h, p, v))
                        break


class Names(unittest.TestCase):
    def test_both_forms_one_port(self):
        self.assertEqual(S.port_key(GID), S.port_key(GUID))
        self.assertEqual(S.port_key(GID.upper().replace("0X", "0x")), S.port_key(GUID.upper()))
        self.assertEqual(S.port_key(GID[2:]), S.port_key(GUID))
        self.assertEqual(S.port_key("0xfe800000000000000002c90300a1b2c0"), S.port_key("0002:c903:00a1:b2c0"))

    def test_other_ports_differ(self):
        self.assertNotEqual(S.port_key(GID), S.port_key("5054:0012:3456:7891"))
        self.assertEqual(S.port_key("something"), "something")


class Delta(unittest.TestCase):
    def test_growth(self):
        self.assertEqual(S.delta({"reads": 10}, {"reads": 4}, "reads"), 6)
        self.assertEqual(S.delta({"reads": 10}, {}, "reads"), 10)
        self.assertEqual(S.delta({}, {}, "reads"), 0)

    def test_restart(self):
        # The initiator's sessions went and a new one counted 3 since.
        self.assertEqual(S.delta({"reads": 3}, {"reads": 500}, "reads"), 3)


class Sample(unittest.TestCase):
    def setUp(self):
        self.fs = FakeConfigfs()

    def tearDown(self):
        self.fs.close()

    def test_port_named_in_both_forms_once(self):
        self.fs.tpg(GID, commands=5)
        self.fs.tpg(GUID, commands=5)
        self.fs.acl(GID, GID, commands=3)
        self.fs.acl(GUID, "10.200.0.2", commands=2)
        e = S.sample(self.fs.root)
        self.assertEqual([x.label() for x in e],
                         ["port " + GID, "  initiator " + GID,
                          "  initiator 10.200.0.2 (%s/tpgt_1)" % GUID])

    def test_gid_name_wins_whatever_the_order(self):
        # "0002:..." sorts before "0xfe80...": the GID form names it still.
        gid, guid = "0xfe800000000000000002c90300a1b2c0", "0002:c903:00a1:b2c0"
        self.fs.tpg(guid)
        self.fs.tpg(gid)
        self.assertEqual([x.label() for x in S.sample(self.fs.root)], ["port " + gid])

    def test_guid_form_alone(self):
        self.fs.tpg(GUID)
        self.assertEqual([x.label() for x in S.sample(self.fs.root)], ["port " + GUID])

    def test_two_ports_in_name_order(self):
        other = "0xfe800000000000005054001234567891"
        self.fs.tpg(other)
        self.fs.tpg(GID)
        self.assertEqual([x.name for x in S.sample(self.fs.root)], [GID, other])

    def test_counters_parsed(self):
        self.fs.tpg(GID, reads=7, bytes_read=28672, credits=127)
        (e,) = S.sample(self.fs.root)
        self.assertEqual((e.stats["reads"], e.stats["bytes_read"], e.stats["credits"]), (7, 28672, 127))

    def test_no_statistics_no_port(self):
        os.makedirs(os.path.join(self.fs.srpt, GID, "tpgt_1"))
        self.assertEqual(S.sample(self.fs.root), [])


class CheckConfigfs(unittest.TestCase):
    def test_missing(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(S.Fatal, "configfs is not mounted"):
                S.check_configfs(os.path.join(d, "nothing"))
            with self.assertRaisesRegex(S.Fatal, "LIO target core is not loaded.*target_core_mod"):
                S.check_configfs(d)
            os.makedirs(os.path.join(d, "target", "iscsi"))
            with self.assertRaisesRegex(S.Fatal, "the srpt fabric is not there: no .*/target/srpt"):
                S.check_configfs(d)

    def test_no_statistics(self):
        fs = FakeConfigfs()
        try:
            S.check_configfs(fs.root)  # no target port yet: fine
            os.makedirs(os.path.join(fs.srpt, GID, "tpgt_1"))
            with self.assertRaisesRegex(S.Fatal, "keeps no statistics"):
                S.check_configfs(fs.root)
        finally:
            fs.close()


class Report(unittest.TestCase):
    def setUp(self):
        self.fs = FakeConfigfs()

    def tearDown(self):
        self.fs.close()

    def two(self, before, after):
        for tport, acls, c in before:
            self.fs.tpg(tport, **c)
            for a, ac in acls:
                self.fs.acl(tport, a, **ac)
        prev = S.sample(self.fs.root)
        for tport, acls, c in after:
            self.fs.tpg(tport, **c)
            for a, ac in acls:
                self.fs.acl(tport, a, **ac)
        return prev, S.sample(self.fs.root)

    @staticmethod
    def fields(line):
        """A line's values (after the time) and its name."""
        f = line.split()
        i = next(i for i, w in enumerate(f) if w in ("port", "initiator"))
        return f[1:i], " ".join(f[i:])

    def test_rates(self):
        prev, cur = self.two(
            [(GID, [(GID, dict(channels=1))], dict(channels=1))],
            [(GID, [(GID, dict(channels=1, commands=300, reads=200, writes=100, bytes_read=819200,
                               bytes_written=6553600, latency_lt_1ms=100, latency_lt_10ms=200,
                               credits=126, queue_depth=2))],
              dict(channels=1, commands=300, reads=200, writes=100))])
        lines = S.Reporter([50, 99]).report("12:00:00", cur, prev, 2.0)
        self.assertEqual(len(lines), 2)
        v, name = self.fields(lines[1])
        self.assertEqual(name, "initiator " + GID)
        self.assertEqual(v, ["100.00", "50.00", "0.39", "3.12", "126", "2", "3.25", "9.87"])
        self.assertEqual(self.fields(lines[0])[0][:2], ["100.00", "50.00"])
        self.assertTrue(lines[0].startswith("12:00:00 "))

    def test_counts(self):
        prev, cur = self.two(
            [(GID, [(GID, dict(channels=1, reads=5, bytes_read=5 * 512))], dict(channels=1))],
            [(GID, [(GID, dict(channels=1, reads=8, writes=1, bytes_read=8 * 512, bytes_written=8192))],
              dict(channels=1))])
        rep = S.Reporter([50, 99], counts=True)
        self.assertIn(" reads ", rep.header())
        v, _ = self.fields(rep.report("t", cur, prev, 1.0)[1])
        self.assertEqual(v[:4], ["3", "1", "1.5", "8"])

    def test_idle_hidden_unless_all(self):
        prev, cur = self.two([(GID, [(GID, {})], {})], [(GID, [(GID, {})], {})])
        self.assertEqual(S.Reporter([50]).report("t", cur, prev, 1.0), [])
        lines = S.Reporter([50], show_all=True).report("t", cur, prev, 1.0)
        self.assertEqual(len(lines), 2)
        self.assertEqual(self.fields(lines[0])[0], ["0.00", "0.00", "0.00", "0.00", "0", "0", "-"])

    def test_logged_in_but_quiet_shows_zeros(self):
        c = dict(channels=1, reads=9, credits=128)
        prev, cur = self.two([(GID, [(GID, c)], c)], [(GID, [(GID, c)], c)])
        lines = S.Reporter([50, 99]).report("t", cur, prev, 1.0)
        self.assertEqual([self.fields(l)[0] for l in lines],
                         [["0.00", "0.00", "0.00", "0.00", "128", "0", "-", "-"]] * 2)

    def test_port_shown_for_its_initiator(self):
        # Only the initiator's counters say so (a port whose channels
        # went): the port line comes first anyway.
        prev, cur = self.two([(GID, [("a", {}), ("b", {})], {})],
                             [(GID, [("a", {}), ("b", dict(commands=1, reads=1))], {})])
        lines = S.Reporter([50]).report("t", cur, prev, 1.0)
        self.assertEqual([self.fields(l)[1] for l in lines], ["port " + GID, "initiator b"])

    def test_new_initiator_counts_from_zero_new_port_waits(self):
        prev, cur = self.two([(GID, [], dict(channels=1))],
                             [(GID, [(GID, dict(channels=1, reads=4))], dict(channels=1, reads=4)),
                              (GUID.replace("7890", "7891"), [], dict(channels=1, reads=99))])
        lines = S.Reporter([50], counts=True).report("t", cur, prev, 1.0)
        self.assertEqual([(self.fields(l)[0][0], self.fields(l)[1]) for l in lines],
                         [("4", "port " + GID), ("4", "initiator " + GID)])


class Json(unittest.TestCase):
    def setUp(self):
        self.fs = FakeConfigfs()

    def tearDown(self):
        self.fs.close()

    def test_entries_say_what_the_lines_say(self):
        self.fs.tpg(GID, channels=1)
        self.fs.acl(GID, GID, channels=1)
        prev = S.sample(self.fs.root)
        self.fs.tpg(GID, channels=1, reads=200, commands=200)
        self.fs.acl(GID, GID, channels=1, commands=300, reads=200, writes=100, bytes_read=819200,
                    bytes_written=6553600, latency_lt_1ms=100, latency_lt_10ms=200, credits=126,
                    queue_depth=2)
        cur = S.sample(self.fs.root)
        rep = S.Reporter([50, 99])
        entries = rep.report("t", cur, prev, 2.0, render=lambda e, p: rep.json_entry(e, p, 2.0))
        self.assertEqual([(e["kind"], e["name"]) for e in entries], [("port", GID), ("initiator", GID)])
        ini = entries[1]
        self.assertEqual((ini["target_port"], ini["tpg"]), (GID, "tpgt_1"))
        self.assertEqual((ini["reads"], ini["writes"], ini["bytes_read"], ini["bytes_written"]),
                         (100.0, 50.0, 409600.0, 3276800.0))
        self.assertEqual((ini["credits"], ini["queue_depth"]), (126, 2))
        self.assertEqual(ini["latency_ms"], {"p50": 3.25, "p99": 9.865})
        self.assertNotIn("tpg", entries[0])

    def test_no_command_and_open_bucket(self):
        self.assertIsNone(S._json_ms(None))
        self.assertEqual(S._json_ms(math.inf), ">1000")


class Prometheus(unittest.TestCase):
    def test_every_counter_labelled(self):
        fs = FakeConfigfs()
        try:
            fs.tpg(GID, channels=2, commands=7, credits=250)
            fs.acl(GID, 'a"b', channels=1, commands=5, credits=120)
            text = S.prometheus_text(S.sample(fs.root))
        finally:
            fs.close()
        lines = text.splitlines()
        self.assertIn("# TYPE srpt_port_commands_total counter", lines)
        self.assertIn('srpt_port_commands_total{target_port="%s"} 7' % GID, lines)
        self.assertIn("# TYPE srpt_port_credits gauge", lines)
        self.assertIn('srpt_port_channels{target_port="%s"} 2' % GID, lines)
        # A quote in a name is escaped, as the text format wants.
        self.assertIn('srpt_initiator_credits{target_port="%s",tpg="tpgt_1",initiator="a\\"b"} 120' % GID,
                      lines)
        self.assertIn('srpt_initiator_latency_lt_1ms_total{target_port="%s",tpg="tpgt_1",initiator="a\\"b"} 0'
                      % GID, lines)
        # Each family once, its TYPE line first.
        types = [l for l in lines if l.startswith("# TYPE ")]
        self.assertEqual(len(types), len(set(types)))
        for i, l in enumerate(lines):
            if not l.startswith("#"):
                name = l.split("{")[0]
                prior = [t for t in lines[:i] if t.startswith("# TYPE ")]
                self.assertEqual(prior[-1].split()[2], name)


class Program(unittest.TestCase):
    def setUp(self):
        self.fs = FakeConfigfs()
        self.fs.tpg(GID, channels=1, credits=128)
        self.fs.tpg(GUID, channels=1, credits=128)
        self.fs.acl(GID, GID, channels=1, credits=128)

    def tearDown(self):
        self.fs.close()

    def tool(self, *args, **kw):
        return subprocess.run([sys.executable, TOOL, "--configfs", self.fs.root] + list(args),
                              capture_output=True, text=True, timeout=30, **kw)

    def test_count_reports(self):
        r = self.tool("-i", "0.05", "-c", "3")
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        lines = r.stdout.splitlines()
        self.assertEqual(sum(l.startswith("time ") for l in lines), 3)
        self.assertEqual(sum(l.endswith("port " + GID) for l in lines), 3)
        self.assertFalse(any(GUID in l for l in lines))
        self.assertEqual(sum(l.endswith("initiator " + GID) for l in lines), 3)

    def test_interrupt_ends_cleanly(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            p = subprocess.Popen([sys.executable, TOOL, "--configfs", self.fs.root, "-i", "0.05"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                # Until the first report is out: the handlers are in place.
                self.assertTrue(p.stdout.readline().startswith("time "))
                time.sleep(0.1)
                p.send_signal(sig)
                out, err = p.communicate(timeout=10)
            finally:
                p.kill()
            self.assertEqual((p.returncode, err), (0, ""), sig)

    def test_usage(self):
        for bad in (["-i", "0"], ["-i", "x"], ["-c", "0"], ["-p", "0"], ["-p", "101"], ["-p", "50,"],
                    ["extra"]):
            r = self.tool(*bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("usage: srpt-stat", r.stderr)
        r = self.tool("-h")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Usage: srpt-stat", r.stdout)

    def test_positional_interval_and_count(self):
        r = self.tool("0.05", "2")
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertEqual(sum(l.startswith("time ") for l in r.stdout.splitlines()), 2)
        for twice in (["-i", "1", "0.05"], ["-c", "1", "0.05", "1"]):
            r = self.tool(*twice)
            self.assertEqual(r.returncode, 2, twice)
            self.assertIn("given twice", r.stderr)

    def test_version_is_the_modules(self):
        with open(os.path.join(ROOT, "include", "srpt", "version.h"), encoding="ascii") as f:
            want = next(l.split('"')[1] for l in f if l.startswith("#define SRPT_VERSION "))
        for opt in ("-V", "--version"):
            r = self.tool(opt)
            self.assertEqual((r.returncode, r.stdout), (0, "srpt-stat %s\n" % want))

    def test_timestamp(self):
        r = self.tool("-t", "-i", "0.05", "-c", "2")
        self.assertEqual(r.returncode, 0)
        lines = r.stdout.splitlines()
        heads = [i for i, l in enumerate(lines) if l.startswith("time ")]
        self.assertEqual(len(heads), 2)
        for i in heads:
            self.assertRegex(lines[i - 1], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$")

    def test_json_lines(self):
        import json
        r = self.tool("--json", "-i", "0.05", "-c", "2")
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        reports = [json.loads(l) for l in r.stdout.splitlines()]
        self.assertEqual(len(reports), 2)
        for rep in reports:
            self.assertGreater(rep["seconds"], 0)
            self.assertEqual([(e["kind"], e["name"], e["credits"]) for e in rep["entries"]],
                             [("port", GID, 128), ("initiator", GID, 128)])

    def test_prometheus_file(self):
        path = os.path.join(self.fs.root, "srpt.prom")
        r = self.tool("--prometheus", path, "-i", "0.05", "-c", "2")
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertIn('srpt_initiator_credits{target_port="%s",tpg="tpgt_1",initiator="%s"} 128'
                      % (GID, GID), text)
        self.assertEqual([n for n in os.listdir(self.fs.root) if n.endswith(".tmp")], [])
        r = self.tool("--prometheus", path, "--json", "-c", "1")
        self.assertEqual(r.returncode, 2)
        r = self.tool("--prometheus", os.path.join(self.fs.root, "no", "such", "dir.prom"), "-c", "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot write", r.stderr)

    def test_missing_fabric(self):
        r = subprocess.run([sys.executable, TOOL, "--configfs", os.path.join(self.fs.root, "target"), "-c", "1"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertRegex(r.stderr, "^srpt-stat: no .*: the LIO target core is not loaded")


if __name__ == "__main__":
    unittest.main()
