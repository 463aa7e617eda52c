"""No import circles, in sim/ or in web/: a reader can always tell which module comes first.

An import inside a function counts as much as one at the top (test_layers.imports walks the
whole file), so a circle cannot be hidden by moving an import down; it is broken by putting
what both sides need in a module below both. In web/ a JSDoc type import
(`@typedef {import("./x.js").T}`) counts too: it is a dependency a reader follows as well.
"""

import re

from conftest import ROOT
from test_layers import imports, module_name, modules


def sim_graph(root=ROOT):
    """{module: the sim modules it imports}, an import of a module's part (`from .lab import
    Lab`) counted as one of the module."""
    names = {module_name(p, root): p for p in modules(root)}

    def owner(target):
        while target not in names and "." in target:
            target = target.rsplit(".", 1)[0]
        return target

    return {name: sorted({owner(t) for t in imports(path, root)} - {name})
            for name, path in names.items()}


JS_IMPORT = re.compile(r"""(?:\bimport\b[^'";]*?\bfrom\s*|\bimport\s*\(\s*|\bexport\b[^'";]*?\bfrom\s*)["'](\.{1,2}/[^"']+)["']""")


def web_graph(root=ROOT):
    """{module: the web/ modules it imports}, paths relative to web/: static imports, dynamic
    ones of a literal path, re-exports and JSDoc type imports."""
    web = root / "web"
    graph = {}
    for path in sorted(web.rglob("*.js")):
        name = path.relative_to(web).as_posix()
        found = {(path.parent / target).resolve().relative_to(web.resolve()).as_posix()
                 for target in JS_IMPORT.findall(path.read_text())}
        graph[name] = sorted(found - {name})
    return graph


def circles(graph):
    """Each import circle of a graph, as its modules in import order with the first again at
    the end: one circle per strongly connected part (Tarjan's), found by a walk inside it."""
    index, low, stack, on, parts = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = set()
            while True:
                w = stack.pop()
                on.discard(w)
                part.add(w)
                if w == v:
                    break
            if len(part) > 1:
                parts.append(part)

    for v in sorted(graph):
        if v not in index:
            connect(v)
    out = []
    for part in parts:  # a shortest way back to the part's first module, breadth first
        start = min(part)
        came = {start: None}
        queue = [start]
        while queue:
            v = queue.pop(0)
            for w in graph[v]:
                if w == start:
                    path = [v]
                    while came[path[-1]] is not None:
                        path.append(came[path[-1]])
                    out.append(" -> ".join([*reversed(path), start]))
                    queue = []
                    break
                if w in part and w not in came:
                    came[w] = v
                    queue.append(w)
    return sorted(out)


def test_sim_has_no_import_circle():
    assert circles(sim_graph()) == []


def test_web_has_no_import_circle():
    graph = web_graph()
    assert "app.js" in graph and graph["app.js"], "web/'s imports were not found"
    assert circles(graph) == []


def test_a_circle_is_named(tmp_path):
    for name, text in {"__init__": "", "model/__init__": "",
                       "model/a": "from . import b\n", "model/b": "from .c import thing\n",
                       "model/c": "def f():\n    from .a import x\n", "model/d": "from . import a\n",
                       "show/__init__": "", "show/p": "from .q import y\n", "show/q": "from . import p\n"}.items():
        (tmp_path / "sim" / f"{name}.py").parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "sim" / f"{name}.py").write_text(text)
    assert circles(sim_graph(tmp_path)) == [
        "sim.model.a -> sim.model.b -> sim.model.c -> sim.model.a", "sim.show.p -> sim.show.q -> sim.show.p"]
    web = tmp_path / "web" / "part"
    web.mkdir(parents=True)
    (tmp_path / "web" / "root.js").write_text('import { a } from "./part/a.js";\n')
    (web / "a.js").write_text('import { b } from "./b.js";\nexport const a = 1;\n')
    (web / "b.js").write_text('/** @typedef {import("../root.js").T} T */\nconst c = await import("./a.js");\n')
    assert web_graph(tmp_path)["part/b.js"] == ["part/a.js", "root.js"]
    # one circle named per tangle: root.js -> a -> b -> root.js is in it too
    assert circles(web_graph(tmp_path)) == ["part/a.js -> part/b.js -> part/a.js"]
