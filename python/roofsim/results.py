"""Result folders and sweep folders as Python objects (standard library only)."""
import csv
import json
import os
from pathlib import Path


class Record(dict):
    """A dict whose keys also read as attributes (report.total.sim_time_s); nested dicts and lists of dicts too."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @staticmethod
    def wrap(value):
        if isinstance(value, dict):
            return Record({key: Record.wrap(item) for key, item in value.items()})
        if isinstance(value, list):
            return [Record.wrap(item) for item in value]
        return value


def flatten(value, prefix=""):
    """Nested dicts as one flat dict with dotted keys ({"bytes": {"dram": 1}} -> {"bytes.dram": 1}); lists stay."""
    flat = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, dict):
            flat.update(flatten(item, name + "."))
        else:
            flat[name] = item
    return flat


def _number(text):
    """A CSV cell as int, float, None (empty) or the text itself."""
    if text == "":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read_csv(path):
    """A CSV file as a list of dicts, numbers converted, empty cells None."""
    with open(path, newline="", encoding="utf-8") as handle:
        return [{key: _number(cell) for key, cell in row.items()} for row in csv.DictReader(handle)]


def _dataframe(rows):
    try:
        import pandas
    except ImportError as error:
        raise ImportError("to_dataframe() needs pandas; the rows themselves are plain dicts") from error
    return pandas.DataFrame(rows)


class Result:
    """One `run` or `roofline` result: report.json as objects, its ops as flat rows, ops.csv as rows."""

    def __init__(self, report, ops_csv=None, folder=None, stdout=""):
        self.report = Record.wrap(report)
        self.ops_csv = ops_csv if ops_csv is not None else []
        self.folder = Path(folder) if folder is not None else None
        self.stdout = stdout

    @property
    def ops(self):
        """One flat dict per op of report.json, in report order: ready for pandas.DataFrame(result.ops)."""
        return [flatten(op) for op in self.report.get("ops", [])]

    def op(self, name):
        """The op of that name (report.json's object, as a Record)."""
        for entry in self.report.get("ops", []):
            if entry.get("name") == name:
                return entry
        raise KeyError(name)

    def to_dataframe(self):
        return _dataframe(self.ops)

    def __repr__(self):
        return f"Result({self.report.get('command')!r}, {len(self.report.get('ops', []))} ops, folder={self.folder})"


def load(folder):
    """A result folder written by `roofsim run` or `roofsim roofline` (report.json, and ops.csv when present)."""
    folder = Path(folder)
    with open(folder / "report.json", encoding="utf-8") as handle:
        report = json.load(handle)
    ops_csv = read_csv(folder / "ops.csv") if (folder / "ops.csv").is_file() else []
    return Result(report, ops_csv, folder)


class Sweep:
    """A sweep folder: sweep.csv as rows (one per point and op), sweep_totals.csv as totals (one per point), the
    manifest (sweep.json), and each finished point's result."""

    def __init__(self, folder, stdout=""):
        self.folder = Path(folder)
        self.stdout = stdout
        self.rows = read_csv(self.folder / "sweep.csv") if (self.folder / "sweep.csv").is_file() else []
        totals = self.folder / "sweep_totals.csv"
        self.totals = read_csv(totals) if totals.is_file() else []
        manifest = self.folder / "sweep.json"
        self.manifest = Record.wrap(json.loads(manifest.read_text(encoding="utf-8"))) if manifest.is_file() else {}

    @property
    def points(self):
        """The result of each point that finished, in point order (points/pNNNN/report.json)."""
        points_dir = self.folder / "points"
        if not points_dir.is_dir():
            return []
        names = sorted(entry for entry in os.listdir(points_dir) if (points_dir / entry / "report.json").is_file())
        return [load(points_dir / name) for name in names]

    def to_dataframe(self):
        """The op rows (sweep.csv) as a DataFrame; totals_dataframe() gives the per-point totals."""
        return _dataframe(self.rows)

    def totals_dataframe(self):
        return _dataframe(self.totals)

    def __repr__(self):
        return (f"Sweep({self.manifest.get('name')!r}, {len(self.rows)} rows, {len(self.totals)} points, "
                f"folder={self.folder})")


def load_sweep(folder):
    return Sweep(folder)
