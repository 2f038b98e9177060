"""Run roofsim from Python and read its results: reports as objects, ops and sweeps as rows for a DataFrame.

    import roofsim
    result = roofsim.run(hw="H100-SXM5", workload="gemm", set={"power.cap": "450W"})
    result.report.total.sim_time_s      # report.json as attribute-accessible dicts
    result.ops[0]["bound_by"]           # one flat dict per op ("bytes.dram", "ceilings.classic", ...)
    result.to_dataframe()               # the same rows as a pandas DataFrame (pandas optional)
    roofsim.load("results")             # a result folder written earlier
    roofsim.load_sweep("results/gemm_batch_ridge").rows

Only the standard library is needed. The report is read as it is written (roofsim's report.json), without a fixed
list of keys, so new or renamed keys come through as they are.
"""
from roofsim.results import Record, Result, Sweep, flatten, load, load_sweep, read_csv
from roofsim.runner import RoofsimError, binary, command, diff, roofline, run, sweep

__all__ = ["Record", "Result", "Sweep", "RoofsimError", "binary", "command", "diff", "flatten", "load", "load_sweep",
           "read_csv", "roofline", "run", "sweep"]
