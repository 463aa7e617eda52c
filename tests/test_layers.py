"""The simulator's layers: what the toy is, apart from what shows it and what checks it.

sim/ is in layers, and each imports only from those below it: the settings, then the workload
(where requests come from), the model, what shows it, and the checker of a deployed copy; the
command line sits on top. Modules stay short, nothing but the checker may need a browser, and
the oracle that the engine is tested against shares nothing with it.
"""

import ast
import subprocess
import sys

from conftest import ROOT

SIM = ROOT / "sim"
# (package or module, layer): a module may import from lower layers and from its own package.
LAYERS = {
    "sim.settings": 0,
    "sim.workload": 1,
    "sim.model": 2,
    "sim": 3,  # the package itself: its public face (compare, rate, ratio, Lab, Settings, __version__)
    "sim.show": 3,
    "sim.check": 4,
    "sim.cli": 5,
    "sim.__main__": 6,  # python -m sim: runs the command line
    "sim.manual": 6,  # docs/cli.md, written from the command line's parser
}
LONGEST = 400  # lines; the GPU loop's hot function is one loop on purpose and fits


def module_name(path, root=ROOT):
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def home(name):
    """The layer entry a module belongs to: its longest prefix in LAYERS."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        prefix = ".".join(parts[:k])
        if prefix in LAYERS:
            return prefix
    raise AssertionError(f"{name} is in no layer: add its folder to LAYERS and the README's map")


def imports(path, root=ROOT):
    """The sim modules a file imports, relative imports resolved."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "sim"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "sim":
                continue
            # `from . import costs` names a module; `from .lab import Lab` a module's part
            for alias in node.names:
                candidate = root / f"{target}.{alias.name}".replace(".", "/")
                named = candidate.with_suffix(".py").is_file() or candidate.is_dir()
                found.append(f"{target}.{alias.name}" if named else target)
    return found


def modules(root=ROOT):
    return sorted(p for p in (root / "sim").rglob("*.py") if "__pycache__" not in p.parts)


def wrong_imports(root=ROOT):
    """Each import that goes up a layer, or across to another package of the same layer."""
    wrong = []
    for path in modules(root):
        name = module_name(path, root)
        mine = home(name)
        for target in imports(path, root):
            theirs = home(target)
            if theirs != mine and LAYERS[theirs] >= LAYERS[mine]:
                wrong.append(f"{name} imports {target} ({theirs}, layer {LAYERS[theirs]}; "
                             f"{mine} is layer {LAYERS[mine]})")
    return wrong


def test_every_import_goes_down_a_layer_or_stays_in_its_own_package():
    assert wrong_imports() == []


def test_an_import_up_a_layer_is_named(tmp_path):
    for name, text in {"__init__": "from .model.lab import Lab\n", "settings": "",
                       "model/__init__": "", "model/lab": "from ..show import report\nfrom . import gpu\n",
                       "model/gpu": "", "show/__init__": "", "show/report": "from ..settings import X\n"}.items():
        (tmp_path / "sim" / f"{name}.py").parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "sim" / f"{name}.py").write_text(text)
    assert wrong_imports(tmp_path) == ["sim.model.lab imports sim.show.report (sim.show, layer 3; "
                                       "sim.model is layer 2)"]


def test_each_layer_has_a_folder_and_every_module_a_layer():
    for path in modules():
        home(module_name(path))
    for package in ("workload", "model", "show", "check"):
        assert (SIM / package / "__init__.py").is_file()
        assert ast.get_docstring(ast.parse((SIM / package / "__init__.py").read_text())), package


def test_modules_are_short():
    long = [f"{p.relative_to(ROOT)}: {len(p.read_text().splitlines())} lines" for p in modules()
            if len(p.read_text().splitlines()) > LONGEST]
    assert long == []


def test_only_the_checker_needs_a_browser_and_nothing_imports_one_or_plotly_at_import_time():
    # every module imported, the checker's too: Playwright is imported only when a check runs
    code = ("import importlib, pkgutil, sys, sim\n"
            "for m in pkgutil.walk_packages(sim.__path__, 'sim.'):\n"
            "    if m.name != 'sim.__main__': importlib.import_module(m.name)\n"
            "print(sorted(n for n in sys.modules if n.split('.')[0] in ('playwright', 'plotly', 'kaleido')))\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    for path in modules():
        if home(module_name(path)) == "sim.check":
            continue
        tree = ast.parse(path.read_text())
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [n for n in names if n.split(".")[0] in ("playwright", "plotly")], path


def test_the_oracle_shares_no_code_with_the_engine():
    tree = ast.parse((ROOT / "tests" / "oracle.py").read_text())
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert all(n.split(".")[0] not in ("sim", "conftest") for n in names), names
    assert "sim/" not in (ROOT / "tests" / "oracle.py").read_text().split('"""', 2)[2]
