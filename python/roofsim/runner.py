"""Running the roofsim program: finding it, passing options, turning failures into exceptions."""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from roofsim.results import Sweep, load


class RoofsimError(RuntimeError):
    """roofsim exited with an error: exit_code 2 for bad input (the message names file:line, key and expectation)."""

    def __init__(self, args, exit_code, stderr):
        self.args_ = list(args)
        self.exit_code = exit_code
        self.stderr = stderr
        super().__init__(f"roofsim {' '.join(args)} exited with {exit_code}: {stderr.strip()}")


def binary():
    """The roofsim program: $ROOFSIM_BIN, else `roofsim` on PATH, else build/roofsim of the checkout this file is in."""
    if os.environ.get("ROOFSIM_BIN"):
        return os.environ["ROOFSIM_BIN"]
    found = shutil.which("roofsim")
    if found:
        return found
    built = Path(__file__).resolve().parents[2] / "build" / "roofsim"
    if built.is_file():
        return str(built)
    raise FileNotFoundError("no roofsim program: set ROOFSIM_BIN, put roofsim on PATH, or build the checkout")


def command(*args, check=True):
    """Runs `roofsim ARGS...` and returns the CompletedProcess (text stdout and stderr)."""
    args = [str(arg) for arg in args]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    completed = subprocess.run([binary(), *args], capture_output=True, text=True, env=env)
    if check and completed.returncode != 0:
        raise RoofsimError(args, completed.returncode, completed.stderr)
    return completed


def _overrides(values):
    """{"power.cap": "450W", "workload.params.batch": 8} -> ["--set", "power.cap=450W", "--set", ...]."""
    args = []
    for key, value in (values or {}).items():
        args += ["--set", f"{key}={value}"]
    return args


def _scenario(mode, hw, workload, overrides, out, extra):
    """Runs `roofsim MODE` into `out` (a temporary folder, removed after reading, when None) and loads the result."""
    temporary = out is None
    folder = Path(tempfile.mkdtemp(prefix="roofsim-")) if temporary else Path(out)
    try:
        completed = command(mode, "--hw", hw, "--workload", workload, *_overrides(overrides), "--out", folder,
                            *(extra or []))
        result = load(folder)
        result.stdout = completed.stdout
        if temporary:
            result.folder = None
        return result
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)


def run(hw, workload, set=None, out=None, extra=None):  # noqa: A002 (named as the CLI's --set)
    """`roofsim run`: simulates `workload` on `hw` (files, or bundled names such as "H100-SXM5" and "gemm") with the
    overrides in `set`; returns the Result. With `out`, the folder (report.json, ops.csv, charts, report.html) stays."""
    return _scenario("run", hw, workload, set, out, extra)


def roofline(hw, workload, set=None, out=None, extra=None):  # noqa: A002
    """`roofsim roofline`: the six analytic ceilings per op, from compulsory bytes; returns the Result."""
    return _scenario("roofline", hw, workload, set, out, extra)


def sweep(file, out, mode=None, jobs=None, extra=None):
    """`roofsim sweep FILE --out OUT`: runs every point (resuming the done ones) and returns the Sweep."""
    args = ["sweep", file, "--out", out]
    if mode:
        args += ["--mode", mode]
    if jobs:
        args += ["--jobs", jobs]
    completed = command(*args, *(extra or []))
    return Sweep(out, completed.stdout)


def diff(a, b, out=None):
    """`roofsim diff A B`: the comparison table as text (and diff.html in `out`)."""
    args = ["diff", a, b] + (["--out", out] if out else [])
    return command(*args).stdout
