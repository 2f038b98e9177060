"""The Python package against the real program: results read back as objects and rows, checked with closed forms."""
import os
import shutil
import tempfile
import unittest

import roofsim


def have_binary():
    try:
        return os.path.isfile(roofsim.binary())
    except FileNotFoundError:
        return False


@unittest.skipUnless(have_binary(), "no roofsim program (set ROOFSIM_BIN)")
class PackageTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="roofsim-python-")

    def tearDown(self):
        shutil.rmtree(self.scratch, ignore_errors=True)

    def cube_workload(self):
        """A workload of one fp16 GEMM n x n x n, n from its parameter `size`."""
        path = os.path.join(self.scratch, "cube.toml")
        with open(path, "w", encoding="utf-8") as out:
            out.write('[workload]\nname = "cube"\ndescription = "one square fp16 GEMM"\n\n[params]\nsize = 4096\n\n'
                      '[[op]]\nname = "cube"\nkind = "gemm"\ndtype = "fp16"\nm = "size"\nn = "size"\nk = "size"\n')
        return path

    def test_roofline_ops_have_the_closed_form_gemm_intensity(self):
        workload = self.cube_workload()
        for size in (4096, 2048):
            result = roofsim.roofline(hw="H100-SXM5", workload=workload, set={"workload.params.size": size})
            self.assertIsNone(result.folder)  # a temporary folder, read and removed
            self.assertEqual([op["name"] for op in result.ops], ["cube"])
            cube = result.ops[0]
            # 2 n^3 FLOPs over 3 n^2 fp16 elements read or written once: OI = n / 3 FLOP/B.
            self.assertEqual(cube["useful_flops"], 2 * size ** 3)
            self.assertAlmostEqual(cube["oi.dram"], size / 3, places=6)
            self.assertEqual(result.report.command, "roofline")
            self.assertEqual(len(result.ops_csv), 1)

    def test_run_keeps_its_folder_and_loads_back(self):
        out = os.path.join(self.scratch, "run")
        result = roofsim.run(hw="H100-SXM5", workload="transformer_prefill_small", out=out)
        self.assertTrue(os.path.isfile(os.path.join(out, "report.html")))
        for op in result.ops:
            if op.get("achieved_flops_per_s"):
                # achieved = useful FLOPs / simulated time, by definition.
                self.assertAlmostEqual(op["achieved_flops_per_s"] * op["sim_time_s"] / op["useful_flops"], 1.0,
                                       places=9)
        again = roofsim.load(out)
        self.assertEqual(again.report, result.report)
        self.assertEqual(result.op("block.qkv").kind, "gemm")
        self.assertGreater(result.report.total.sim_time_s, 0)

    def test_an_override_reaches_the_program(self):
        base = roofsim.roofline(hw="H100-SXM5", workload="transformer_prefill_small")
        bigger = roofsim.roofline(hw="H100-SXM5", workload="transformer_prefill_small",
                                  set={"workload.params.batch": 2})
        flops = lambda result: sum(op["useful_flops"] for op in result.ops)  # noqa: E731
        # Every op of the block is linear in the tokens (batch x seq): twice the batch, twice the FLOPs.
        self.assertEqual(flops(bigger), 2 * flops(base))

    def test_bad_input_raises_with_exit_code_2(self):
        with self.assertRaises(roofsim.RoofsimError) as caught:
            roofsim.roofline(hw="H100-SXM5", workload="gemm", set={"no.such.key": "1"})
        self.assertEqual(caught.exception.exit_code, 2)
        self.assertIn("no.such.key", str(caught.exception))

    def test_sweep_rows_and_points(self):
        out = os.path.join(self.scratch, "sweep")
        result = roofsim.sweep("gemm_batch_ridge", out=out, mode="roofline", jobs=2)
        self.assertEqual(len(result.points), len(result.manifest.axes[0]["values"]))
        # The batch ridge workload is one op: a row per point in sweep.csv and in sweep_totals.csv, the same figures.
        self.assertEqual(len(result.rows), len(result.points))
        self.assertEqual(len(result.totals), len(result.points))
        self.assertTrue(all(row["op"] != "total" for row in result.rows))
        self.assertEqual([row["useful_flops"] for row in result.totals], [row["useful_flops"] for row in result.rows])
        loaded = roofsim.load_sweep(out)
        self.assertEqual((loaded.rows, loaded.totals), (result.rows, result.totals))

    def test_diff_text(self):
        a = os.path.join(self.scratch, "a")
        roofsim.roofline(hw="H100-SXM5", workload=self.cube_workload(), out=a)
        text = roofsim.diff(a, a)
        self.assertIn("1 ops in both, 0 with another bound, 0 added, 0 removed", text)

    def test_dataframe_when_pandas_is_there(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas not installed (optional)")
        frame = roofsim.roofline(hw="H100-SXM5", workload=self.cube_workload()).to_dataframe()
        self.assertEqual(list(frame["name"]), ["cube"])


class OfflineTest(unittest.TestCase):
    def test_flatten_and_records(self):
        self.assertEqual(roofsim.flatten({"a": 1, "b": {"c": 2, "d": {"e": 3}}, "f": [1]}),
                         {"a": 1, "b.c": 2, "b.d.e": 3, "f": [1]})
        record = roofsim.Record.wrap({"total": {"sim_time_s": 1.5}, "ops": [{"name": "x"}]})
        self.assertEqual(record.total.sim_time_s, 1.5)
        self.assertEqual(record.ops[0].name, "x")
        with self.assertRaises(AttributeError):
            _ = record.missing


if __name__ == "__main__":
    unittest.main()
