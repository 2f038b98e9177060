"""scripts/compare-dram without the peer simulators: the roofsim row alone, and the standard file's timings in
whole cycles as the peers' configurations get them (run by CTest as scripts:compare_dram; needs no peer)."""
import os
import subprocess
import sys
import unittest
from pathlib import Path

from script_module import load_script

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "compare-dram"


class CompareDramTest(unittest.TestCase):
    def test_without_peers_prints_the_roofsim_row(self):
        env = {k: v for k, v in os.environ.items()
               if k not in ("DRAMSIM3_MAIN", "RAMULATOR2_DRIVER", "RAMULATOR2_PYTHON")}
        done = subprocess.run([sys.executable, str(SCRIPT), "--hw", "HBM2-2000", "--pattern", "stream", "--requests",
                               "4096", "--roofsim", os.environ["ROOFSIM_BIN"]], capture_output=True, text=True,
                              env=env)
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = [line.split() for line in done.stdout.splitlines() if line.split()[:1] in (["roofsim"], ["DRAMsim3"])]
        self.assertEqual([row[0] for row in rows], ["roofsim"])
        bandwidth, hits = float(rows[0][1]), float(rows[0][2])
        # A stream of 64-byte requests over 1 KiB rows: one ACT per 16 requests, 15 of 16 hit.
        self.assertAlmostEqual(hits, 100 * 15 / 16, delta=0.5)
        self.assertLessEqual(bandwidth, 100.0)
        self.assertGreater(bandwidth, 80.0)

    def test_timings_become_whole_cycles_of_tck(self):
        compare = load_script("compare-dram")
        hbm2 = compare.load_standard("HBM2-2000")
        self.assertEqual(hbm2["tck_s"], 1e-9)
        self.assertEqual(hbm2["timing"]["tRCD"], 12)  # "12cycles"
        self.assertEqual(hbm2["timing"]["tREFI"], 3900)  # 3.9 us at 1 ns
        ddr4 = compare.load_standard("DDR4-3200")
        self.assertEqual(ddr4["timing"]["tRCD"], 22)  # 13.75 ns / 0.625 ns
        self.assertEqual(ddr4["timing"]["tFAW"], 34)  # 21 ns / 0.625 ns = 33.6, rounded up
        ini, line_bytes, tck_ns = compare.dramsim3_ini(hbm2, 64)
        self.assertEqual(line_bytes, 32)  # a 64-bit pseudo-channel x BL4
        self.assertIn("trans_queue_size = 64", ini)
        self.assertIn("tRCD = 12", ini)


if __name__ == "__main__":
    unittest.main()
