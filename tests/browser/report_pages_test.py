#!/usr/bin/env python3
"""The HTML pages roofsim writes, loaded in a real browser (headless Chromium).

Writes a run's and a roofline's report.html, a sweep's report.html and a diff.html, opens each with the fragment
#selftest (the page then hovers an op, filters a kind, toggles a ceiling, sorts the table and zooms, and writes what
it saw into <pre id="selftest-result">), and fails when a check fails, when the page reported an error, or when the
browser logged any console message (the pages log nothing, so a message is a script error or a blocked request).
Exits 77 (CTest's skip) when no Chromium is installed: scripts/install-deps chromium installs Debian's.
"""
import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def find_browser():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def roofsim(binary, *args, cwd):
    result = subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"))
    if result.returncode != 0:
        sys.exit(f"roofsim {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")


def load(browser, page, profile):
    """The page's self-test result and the console lines the browser logged."""
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
               f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000",
               "--dump-dom", "file://" + os.path.abspath(page) + "#selftest"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180)
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    # The element the page appends last to its body (the page's own text may mention it earlier).
    matches = re.findall(r'<pre id="selftest-result">(\{.*?\})</pre>', result.stdout, re.S)
    if not matches:
        return None, console, result
    return json.loads(html.unescape(matches[-1])), console, result


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bin", required=True, help="the roofsim binary")
    args = parser.parse_args()
    args.bin = os.path.abspath(args.bin)
    browser = find_browser()
    if browser is None:
        print("SKIPPED: no chromium on PATH; install Debian's with scripts/install-deps chromium")
        return SKIP

    failures = 0
    with tempfile.TemporaryDirectory(prefix="roofsim-browser-") as scratch:
        roofsim(args.bin, "run", "--hw", "H100-SXM5", "--workload", "transformer_prefill_small", "--out", "run",
                cwd=scratch)
        roofsim(args.bin, "run", "--hw", "A100-SXM4-80GB", "--workload", "transformer_prefill_small", "--out",
                "run_a100", cwd=scratch)
        roofsim(args.bin, "roofline", "--hw", "H100-SXM5", "--workload", "gemm", "--out", "roofline", cwd=scratch)
        roofsim(args.bin, "sweep", "gemm_batch_ridge", "--mode", "roofline", "--jobs", "2", "--out", "sweep",
                cwd=scratch)
        roofsim(args.bin, "diff", "run", "run_a100", "--out", "diff", cwd=scratch)
        # The control: a page with a script error must be caught, or a passing run proves nothing.
        control = os.path.join(scratch, "control.html")
        with open(control, "w", encoding="utf-8") as out:
            out.write("<!DOCTYPE html><html><body><script>undefinedFunction();</script></body></html>\n")
        _, console, _ = load(browser, control, os.path.join(scratch, "profile"))
        if not any("undefinedFunction" in line for line in console):
            print("FAIL control: the browser's console log did not show a page's script error")
            failures += 1
        pages = {"run": "run/report.html", "roofline": "roofline/report.html", "sweep": "sweep/report.html",
                 "diff": "diff/diff.html"}
        # Each page must run every check its kind has.
        expected = {"run": ["hover shows the op", "hover shows gap causes", "filter hides the kind\u2019s points",
                            "ceiling toggle", "a row marks its op", "wheel zooms, reset restores"],
                    "roofline": ["hover shows the op", "filter hides the kind\u2019s rows", "ceiling toggle"],
                    "sweep": ["charts embedded", "chart sweep.svg decodes", "totals rows", "filter hides the op\u2019s rows"],
                    "diff": ["table rows", "filter hides bound changed", "sort by time B/A"]}
        for name, page in pages.items():
            result, console, run = load(browser, os.path.join(scratch, page), os.path.join(scratch, "profile"))
            if result is None:
                print(f"FAIL {name}: no self-test result in the DOM (browser exit {run.returncode})")
                print("\n".join(run.stderr.splitlines()[-20:]))
                failures += 1
                continue
            names = [check["name"] for check in result["checks"]]
            for check in result["checks"]:
                print(f"{'ok  ' if check['pass'] else 'FAIL'} {name}: {check['name']} ({check['detail']})")
            missing = [check for check in expected[name] if check not in names]
            problems = []
            if not result["passed"]:
                problems.append("a check failed")
            if result["errors"]:
                problems.append("page errors: " + "; ".join(result["errors"]))
            if console:
                problems.append("console: " + " | ".join(console))
            if missing:
                problems.append("checks not run: " + ", ".join(missing))
            if problems:
                print(f"FAIL {name}: " + "; ".join(problems))
                failures += 1
    print(f"{len(pages) - failures} of {len(pages)} pages passed in {browser}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
