"""Loads one of scripts/ (executables without a .py suffix) as a module, for the tests of its functions."""
import importlib.machinery
import importlib.util
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def load_script(name):
    """scripts/`name` as a module (its main() does not run: its __name__ is not "__main__")."""
    module_name = name.replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(module_name, str(SCRIPTS / name))
    spec = importlib.util.spec_from_loader(module_name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
