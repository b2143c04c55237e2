# SPDX-License-Identifier: GPL-2.0-only
"""Host tests of scripts/srpt-wait-ports against a fake
/sys/class/infiniband and fake saved configurations: the names it
parses as ib_srpt does, a port there at once, a port that appears while
it waits, a wait that times out naming the missing port, other fabrics
ignored, nothing to wait for. The build tier runs them:

    python3 -m unittest discover -s tests/srpt-wait-ports -v
"""

import importlib.machinery
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "scripts", "srpt-wait-ports")


def _load():
    loader = importlib.machinery.SourceFileLoader("srpt_wait_ports", TOOL)
    spec = importlib.util.spec_from_loader("srpt_wait_ports", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


W = _load()

# rxe's GID 0 of a MAC 52:54:00:12:34:56 (RoCE, link-local), and an
# InfiniBand port's (subnet prefix, port GUID).
ROCE = "fe80000000000000505400fffe123456"
IB = "fe800000000000000002c90300a1b2c3"


def sysfs_gid(digits):
    return ":".join(digits[i:i + 4] for i in range(0, 32, 4))


class Fixture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.sysfs = os.path.join(self.tmp.name, "infiniband")
        os.makedirs(self.sysfs)
        self.save = os.path.join(self.tmp.name, "saveconfig.json")
        # No udev unless a test makes its data directory.
        self.udev = os.path.join(self.tmp.name, "udev")

    def add_port(self, dev, port, gid):
        d = os.path.join(self.sysfs, dev, "ports", str(port), "gids")
        os.makedirs(d, exist_ok=True)
        # Written whole and renamed, as a GID file appears whole in sysfs.
        tmp = os.path.join(d, ".0")
        with open(tmp, "w") as f:
            f.write(sysfs_gid(gid) + "\n")
        os.rename(tmp, os.path.join(d, "0"))

    def write_config(self, targets, storage=()):
        with open(self.save, "w") as f:
            json.dump({"fabric_modules": [], "storage_objects": list(storage),
                       "targets": targets}, f)

    def run_tool(self, *args, env=None):
        """The program on the fake sysfs; the fixture's saved
        configuration unless ARGS name one."""
        if not any(a.endswith(".json") for a in args):
            args += (self.save,)
        e = dict(os.environ)
        e.pop("SRPT_WAIT_PORTS_TIMEOUT", None)
        e.update(env or {})
        t0 = time.monotonic()
        p = subprocess.run([sys.executable, TOOL, "--sysfs", self.sysfs, "--udev", self.udev, *args],
                           capture_output=True, text=True, env=e, timeout=60)
        return p, time.monotonic() - t0


def srpt(wwn):
    return {"fabric": "srpt", "wwn": wwn, "tpgs": [{"tag": 1, "enable": True}]}


class Names(unittest.TestCase):
    def test_forms_ib_srpt_takes(self):
        self.assertEqual(W.parse_port_name("ib." + ROCE), ("gid", ROCE))
        self.assertEqual(W.parse_port_name("0x" + ROCE.upper()), ("gid", ROCE))
        self.assertEqual(W.parse_port_name("5054:00ff:fe12:3456"), ("guid", ROCE[16:]))

    def test_forms_it_does_not(self):
        for n in ("ib." + ROCE[:-1], "iqn.2003-01.org.example:t", "0x" + ROCE + "0",
                  "5054-00ff-fe12-3456", "fe80:0000:0000:0000:5054:00ff:fe12:3456", ""):
            self.assertIsNone(W.parse_port_name(n), n)

    def test_match_as_the_module(self):
        ports = {"mlx5_0 port 1": IB, "rxe0 port 1": ROCE}
        self.assertEqual(W.find(("gid", ROCE), ports), "rxe0 port 1")
        self.assertEqual(W.find(("guid", IB[16:]), ports), "mlx5_0 port 1")
        # A GID name must match all 16 bytes: another subnet prefix is another port.
        self.assertIsNone(W.find(("gid", "fe80000000000001" + ROCE[16:]), ports))

    def test_only_srpt_targets(self):
        cfg = {"targets": [srpt("ib." + ROCE), {"fabric": "iscsi", "wwn": "iqn.2003-01.org.x:t"},
                           {"fabric": "loopback", "wwn": "naa.5001405abcdef012"},
                           srpt("ib." + ROCE), srpt("ib." + IB)]}
        self.assertEqual(W.wanted_ports(cfg), ["ib." + ROCE, "ib." + IB])
        self.assertEqual(W.wanted_ports({}), [])
        self.assertEqual(W.wanted_ports([]), [])


class Program(Fixture):
    def test_there_at_once(self):
        self.add_port("rxe0", 1, ROCE)
        self.add_port("mlx5_0", 1, "fe800000000000000002c903000000ff")
        self.add_port("mlx5_0", 2, IB)
        self.write_config([srpt("ib." + ROCE), srpt("0x" + IB)])
        p, secs = self.run_tool("-t", "30")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertLess(secs, 10)
        self.assertRegex(p.stdout, r"(?m)^srpt-wait-ports: ib\.%s: rxe0 port 1 is there$" % ROCE)
        self.assertRegex(p.stdout, r"(?m)^srpt-wait-ports: 0x%s: mlx5_0 port 2 is there$" % IB)
        self.assertIn("every srpt target port's RDMA port is there", p.stdout)
        self.assertNotIn("waiting", p.stdout)

    def test_waits_until_the_gid_appears(self):
        self.add_port("rxe0", 1, ROCE)
        self.write_config([srpt("ib." + ROCE), srpt("ib." + IB)])
        timer = threading.Timer(2.0, self.add_port, ("mlx5_0", 1, IB))
        timer.start()
        self.addCleanup(timer.cancel)
        p, secs = self.run_tool("--timeout", "30")
        self.assertEqual(p.returncode, 0, p.stderr)
        # It waited for the device, and no longer than it took to appear.
        self.assertGreaterEqual(secs, 2.0)
        self.assertLess(secs, 15)
        self.assertRegex(p.stdout, r"(?m)^srpt-wait-ports: ib\.%s: waiting up to 30s for the RDMA port "
                         r"with GID %s$" % (IB, re.escape(sysfs_gid(IB))))
        m = re.search(r"(?m)^srpt-wait-ports: ib\.%s: mlx5_0 port 1 appeared after ([0-9.]+)s$" % IB,
                      p.stdout)
        self.assertIsNotNone(m, p.stdout)
        self.assertGreaterEqual(float(m.group(1)), 1.9)
        self.assertIn("rxe0 port 1 is there", p.stdout)
        self.assertNotIn("timed out", p.stdout)

    def test_with_udev_a_device_counts_once_udev_added_it(self):
        # The GID is in sysfs before ib_srpt has the device; udev's
        # record of the "add" comes after.
        data = os.path.join(self.udev, "data")
        os.makedirs(data)
        self.add_port("mlx5_0", 1, IB)
        self.write_config([srpt("ib." + IB)])
        timer = threading.Timer(2.0, lambda: open(os.path.join(data, "+infiniband:mlx5_0"), "w").close())
        timer.start()
        self.addCleanup(timer.cancel)
        p, secs = self.run_tool("--timeout", "30")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreaterEqual(secs, 2.0)
        self.assertLess(secs, W.UDEV_GRACE)
        self.assertRegex(p.stdout, r"(?m)^srpt-wait-ports: ib\.%s: mlx5_0 port 1 appeared after" % IB)

    def test_with_udev_rules_that_record_nothing_the_files_count_later(self):
        os.makedirs(os.path.join(self.udev, "data"))
        self.add_port("mlx5_0", 1, IB)
        self.write_config([srpt("ib." + IB)])
        p, secs = self.run_tool("--timeout", "30")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreaterEqual(secs, W.UDEV_GRACE)
        self.assertLess(secs, W.UDEV_GRACE + 5)
        self.assertIn("mlx5_0 port 1 appeared after", p.stdout)

    def test_times_out_naming_the_missing_port(self):
        self.add_port("rxe0", 1, ROCE)
        self.write_config([srpt("ib." + ROCE), srpt("ib." + IB)],
                          storage=[{"plugin": "ramdisk", "name": "rd0", "size": 1048576}])
        p, secs = self.run_tool("-t", "1.5")
        # Exit 0: the restore goes on with what is there.
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreaterEqual(secs, 1.5)
        self.assertLess(secs, 10)
        last = p.stdout.strip().splitlines()[-1]
        self.assertRegex(last, r"^srpt-wait-ports: timed out after 1\.5s; no RDMA port for ib\.%s "
                         r"\(GID %s\): targetctl restore will skip it$" % (IB, re.escape(sysfs_gid(IB))))
        self.assertNotIn(ROCE + " (", last)

    def test_environment_sets_the_timeout_and_option_wins(self):
        self.write_config([srpt("ib." + IB)])
        p, secs = self.run_tool(env={"SRPT_WAIT_PORTS_TIMEOUT": "1"})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("timed out after 1s", p.stdout)
        self.assertLess(secs, 10)
        p, secs = self.run_tool("-t", "0", env={"SRPT_WAIT_PORTS_TIMEOUT": "600"})
        self.assertIn("timed out after 0s", p.stdout)
        self.assertLess(secs, 10)

    def test_ignores_other_fabrics(self):
        self.write_config([{"fabric": "iscsi", "wwn": "iqn.2003-01.org.example:t1", "tpgs": []},
                           {"fabric": "loopback", "wwn": "naa.5001405abcdef012", "tpgs": []}])
        p, secs = self.run_tool("-t", "30")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertLess(secs, 10)
        self.assertEqual(p.stdout, "srpt-wait-ports: %s names no srpt target port: nothing to wait for\n"
                         % self.save)

    def test_no_saved_configuration(self):
        p, secs = self.run_tool("-t", "30")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertLess(secs, 10)
        self.assertIn("no saved configuration %s: nothing to wait for" % self.save, p.stdout)

    def test_no_rdma_devices_directory(self):
        os.rmdir(self.sysfs)
        self.write_config([srpt("ib." + ROCE)])
        p, _ = self.run_tool("-t", "0.5", self.save)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("timed out after 0.5s; no RDMA port for ib." + ROCE, p.stdout)

    def test_broken_configuration_does_not_block(self):
        with open(self.save, "w") as f:
            f.write("{ not json")
        p, secs = self.run_tool("-t", "30", self.save)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertLess(secs, 10)
        self.assertIn("cannot read %s" % self.save, p.stdout)

    def test_unknown_name_is_not_waited_for(self):
        self.write_config([srpt("ib.xyz")])
        p, secs = self.run_tool("-t", "30", self.save)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertLess(secs, 10)
        self.assertIn("ib.xyz: not a name ib_srpt takes; not waiting for it", p.stdout)

    def test_usage_errors(self):
        for args in (["-t", "soon"], ["-t", "-1"], ["--bogus"], ["x", "a.json", "b.json"], ["-t"]):
            p, _ = self.run_tool(*args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn("see --help", p.stderr)
        p, _ = self.run_tool(env={"SRPT_WAIT_PORTS_TIMEOUT": "nan"})
        self.assertEqual(p.returncode, 2)

    def test_version_is_the_module_version(self):
        with open(os.path.join(ROOT, "include", "srpt", "version.h")) as f:
            want = re.search(r'#define SRPT_VERSION "(.*)"', f.read()).group(1)
        p, _ = self.run_tool("--version")
        self.assertEqual(p.stdout, "srpt-wait-ports %s\n" % want)


if __name__ == "__main__":
    unittest.main()
