"""scripts/memo-compare's item-by-item comparisons on report folders written here, whose differences are known in
closed form (run by CTest as scripts:memo_compare; runs no simulation)."""
import json
import tempfile
import unittest
from pathlib import Path

from script_module import load_script


def write_run(folder, total_s, gemm_s, gemm_dram_bytes, energy_j):
    """A report.json of two ops, a GEMM and a network op --exact does not simulate (left out of the op times)."""
    folder.mkdir(parents=True)
    report = {"total": {"sim_time_s": total_s}, "power": {"energy_j": energy_j},
              "ops": [{"name": "gemm", "simulated": True, "sim_time_s": gemm_s,
                       "bytes": {"l2": 4e9, "dram": gemm_dram_bytes}, "power": {"energy_j": energy_j}},
                      {"name": "send", "simulated": False, "sim_time_s": 1e-6, "bytes": {"dram": 1e6}}]}
    (folder / "report.json").write_text(json.dumps(report))
    return str(folder)


class MemoCompareTest(unittest.TestCase):
    def setUp(self):
        self.mc = load_script("memo-compare")
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_one_run_against_another(self):
        memo = write_run(self.root / "memo", 1.01, 0.5, 2.2e9, 10.0)
        exact = write_run(self.root / "exact", 1.0, 0.5, 2.0e9, 10.0)
        d = self.mc.compare(memo, exact)
        self.assertAlmostEqual(d["total"], 1.0)
        self.assertAlmostEqual(d["op_time"], 0.0)
        self.assertAlmostEqual(d["op_bytes"], 10.0)
        # Over the run the DRAM moved 2.201 GB against 2.001 GB: the network op's bytes count there.
        self.assertAlmostEqual(d["level_bytes"], 100 * 0.2e9 / 2.001e9)
        self.assertAlmostEqual(d["energy"], 0.0)

    def test_the_means_of_nudged_runs_cancel_what_each_draws(self):
        # Each run draws the GEMM's DRAM bytes 5 % either side of the same mean: any one pair is 10 % apart, the means
        # agree. A bias shows in the means whole.
        memos = [write_run(self.root / f"memo{i}", 1.0, 0.5, b, 10.0) for i, b in enumerate((2.1e9, 1.9e9))]
        exacts = [write_run(self.root / f"exact{i}", 1.0, 0.5, b, 10.0) for i, b in enumerate((1.9e9, 2.1e9))]
        self.assertGreater(self.mc.compare(memos[0], exacts[0])["op_bytes"], 10.0)
        means = self.mc.relative(self.mc.mean_values(memos), self.mc.mean_values(exacts))
        self.assertAlmostEqual(max(means["op_bytes"].values()), 0.0)
        biased = [write_run(self.root / f"biased{i}", 1.0, 0.5, b, 10.0) for i, b in enumerate((2.14e9, 1.94e9))]
        means = self.mc.relative(self.mc.mean_values(biased), self.mc.mean_values(exacts))
        self.assertAlmostEqual(means["op_bytes"][("gemm", "dram")], 2.0)
        self.assertNotIn("send", means["op_time"])


if __name__ == "__main__":
    unittest.main()
