#!/usr/bin/python3
"""Reference centrality vectors for callgraph's tests.

Regenerate (from the repository root) with Debian's interpreter, which has networkx and
igraph installed:

    /usr/bin/python3 callgraph/testdata/gen_centrality.py

It writes callgraph/testdata/centrality/*.json, one file per graph:

    {"name", "n", "edges": [[u, v], ...],            # sorted, may contain self-loops
     "networkx": {...}, "igraph": {...}, "compat": {...}}

Nodes are 0..n-1. Self-loops are in the edge list (the Go side must drop them) but are
removed before any reference is computed, as docs/callgraph.md defines.

References:
  networkx  harmonic      = harmonic_centrality(G.reverse())[v] / (n-1)
            distance_discount_05 / _08 = sum of alpha**d over single_source_shortest_path_length
            pagerank      = pagerank(G) (alpha 0.85, tol 1e-6, max_iter 100)
            betweenness   = betweenness_centrality(G, normalized=False)
            betweenness_normalized = betweenness_centrality(G, normalized=True)
            in_degree, out_degree
  igraph    harmonic      = harmonic_centrality(mode="out", normalized=True)
            betweenness   = betweenness(directed=True)
  compat    Python implementations of our reading of the Breakpoint reference quirks
            (docs/breakpoint.md; see callgraph's package doc): single-parent BFS-tree
            betweenness / ((n-1)(n-2)) with successors in ascending order, and PageRank
            without dangling redistribution returning the iterate before convergence.
            These are independent re-implementations, not the released code.

Graphs: seeded random directed graphs of several sizes and densities (with dangling
nodes, self-loops and disconnected parts), small hand-shaped graphs, and two real call
graphs of networkx's own source: a name-resolved one of networkx/algorithms built here with
the ast module (real_callgraph), and the one our Python front end builds for the whole
package, obtained by running `go run ./examples/callgraph` (frontend_callgraph; needs the
go command). The stored edge lists, not the front end, are what the Go tests read, so
later front-end changes do not invalidate the vectors.
"""

import ast
import json
import os
import random
import subprocess

import igraph
import networkx as nx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "centrality")


def random_graph(seed, n, m, self_loops=0, dangling=0, parts=1):
    """n nodes split into `parts` disconnected blocks; m random edges inside blocks; the
    last `dangling` nodes of every block get no outgoing edges; self_loops extra loops."""
    rng = random.Random(seed)
    size = n // parts
    blocks = [list(range(b * size, n if b == parts - 1 else (b + 1) * size)) for b in range(parts)]
    edges = set()
    tries = 0
    while len(edges) < m and tries < 50 * m:
        tries += 1
        blk = blocks[rng.randrange(parts)]
        if len(blk) < 2:
            continue
        cut = max(1, len(blk) - dangling)
        u = blk[rng.randrange(cut)]
        v = blk[rng.randrange(len(blk))]
        if u != v:
            edges.add((u, v))
    nodes = list(range(n))
    for _ in range(self_loops):
        v = rng.choice(nodes)
        edges.add((v, v))
    return sorted(edges)


def shaped_graphs():
    yield "single", 1, []
    yield "pair", 2, [(0, 1)]
    yield "path5", 5, [(i, i + 1) for i in range(4)]
    yield "cycle6", 6, [(i, (i + 1) % 6) for i in range(6)]
    yield "star_out", 7, [(0, i) for i in range(1, 7)]
    yield "diamond", 4, [(0, 1), (0, 2), (1, 3), (2, 3)]
    # Two equally short routes with unequal path counts, plus a self-loop.
    yield "ladder", 8, sorted([(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (3, 5), (4, 6), (5, 6), (6, 7), (2, 2), (7, 0)])
    yield "isolated", 5, [(0, 1), (1, 0)]


def real_callgraph():
    """A real call graph: networkx's source, definitions = top-level functions and class
    methods (Class.method), an edge f -> g when f calls a bare name or attribute `.name`
    that is defined exactly once in the package (code2flow's unique-name rule), or a bare
    name defined at the top level of the same module. Restricted to networkx/algorithms
    to keep the fixture small."""
    root = "/usr/lib/python3/dist-packages/networkx"
    defs = []  # (id, name, module path, node)
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "algorithms")):
        dirnames[:] = sorted(d for d in dirnames if d not in ("tests", "__pycache__"))
        for fn in sorted(filenames):
            if not fn.endswith(".py"):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            with open(path, "rb") as f:
                tree = ast.parse(f.read())
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs.append((rel + "::" + node.name, node.name, rel, node))
                elif isinstance(node, ast.ClassDef):
                    for m in node.body:
                        if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                            defs.append((rel + "::" + node.name + "." + m.name, m.name, rel, m))
    defs.sort(key=lambda d: d[0])
    index = {d[0]: i for i, d in enumerate(defs)}
    by_name = {}
    for d in defs:
        by_name.setdefault(d[1], []).append(d[0])
    edges = set()
    for did, _, rel, node in defs:
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Call):
                continue
            f = sub.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name is None:
                continue
            local = rel + "::" + name
            if isinstance(f, ast.Name) and local in index:
                target = local
            elif len(by_name.get(name, ())) == 1:
                target = by_name[name][0]
            else:
                continue
            edges.add((index[did], index[target]))
    return len(defs), sorted(edges), [d[0] for d in defs]


def frontend_callgraph():
    """The call graph our Python front end builds for networkx's own source (test files
    left out), through the CLI: function nodes only (module pseudo-nodes and their edges
    dropped, as centrality does by default); self-loops kept in the list."""
    root = os.path.dirname(os.path.dirname(HERE))
    out = subprocess.run(
        ["go", "run", "./examples/callgraph", "-lang", "python", "-skip-tests",
         "/usr/lib/python3/dist-packages/networkx"],
        cwd=root, check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    ids = [n["id"] for n in doc["nodes"] if n["kind"] != "module"]
    index = {i: k for k, i in enumerate(ids)}
    edges = sorted({(index[e["caller"]], index[e["callee"]]) for e in doc["edges"]
                    if e["caller"] in index and e["callee"] in index})
    return len(ids), edges, ids


def compat_betweenness(n, adj):
    bc = [0.0] * n
    for s in range(n):
        parent = {s: None}
        order = [s]
        h = 0
        while h < len(order):
            v = order[h]
            h += 1
            for w in adj[v]:
                if w not in parent:
                    parent[w] = v
                    order.append(w)
        for t in order[1:]:
            v = parent[t]
            while v != s:
                bc[v] += 1
                v = parent[v]
    if n > 2:
        bc = [b / ((n - 1) * (n - 2)) for b in bc]
    return bc


def compat_pagerank(n, adj, d=0.85, tol=1e-6, max_iter=100):
    if n == 0:
        return []
    x = [1.0 / n] * n
    for _ in range(max_iter):
        nxt = [(1 - d) / n] * n
        for u in range(n):
            if adj[u]:
                share = d * x[u] / len(adj[u])
                for w in adj[u]:
                    nxt[w] += share
        err = sum(abs(a - b) for a, b in zip(nxt, x))
        if err < n * tol:
            return x
        x = nxt
    return x


def references(n, edges):
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from((u, v) for u, v in edges if u != v)
    nodes = list(range(n))
    norm = 1.0 / (n - 1) if n > 1 else 0.0
    hr = nx.harmonic_centrality(G.reverse())
    dd = {}
    for a in (0.5, 0.8):
        vals = []
        for v in nodes:
            lengths = nx.single_source_shortest_path_length(G, v)
            vals.append(sum(a ** d for w, d in lengths.items() if w != v))
        dd[a] = vals
    pr = nx.pagerank(G) if n else {}
    bc = nx.betweenness_centrality(G, normalized=False)
    bcn = nx.betweenness_centrality(G, normalized=True)
    ref = {
        "networkx": {
            "harmonic": [hr[v] * norm for v in nodes],
            "distance_discount_05": dd[0.5],
            "distance_discount_08": dd[0.8],
            "pagerank": [pr[v] for v in nodes],
            "betweenness": [bc[v] for v in nodes],
            "betweenness_normalized": [bcn[v] for v in nodes],
            "in_degree": [G.in_degree(v) for v in nodes],
            "out_degree": [G.out_degree(v) for v in nodes],
        }
    }
    ig = igraph.Graph(n=n, edges=[(u, v) for u, v in edges if u != v], directed=True)
    ref["igraph"] = {
        "harmonic": [float(x) for x in ig.harmonic_centrality(mode="out", normalized=True)] if n > 1 else [0.0] * n,
        "betweenness": [float(x) for x in ig.betweenness(directed=True)],
    }
    adj = [sorted(G.successors(v)) for v in nodes]
    ref["compat"] = {
        "betweenness": compat_betweenness(n, adj),
        "pagerank": compat_pagerank(n, adj),
    }
    return ref


def write(name, n, edges, ids=None):
    doc = {"name": name, "n": n, "edges": [list(e) for e in edges]}
    if ids is not None:
        doc["ids"] = ids
    doc.update(references(n, edges))
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, n, edges in shaped_graphs():
        write(name, n, edges)
    cases = [
        # name, seed, n, m, self_loops, dangling, parts
        ("rand_10_sparse", 1, 10, 12, 1, 2, 1),
        ("rand_30_dense", 2, 30, 300, 3, 1, 1),
        ("rand_100_parts", 3, 100, 250, 5, 3, 3),
        ("rand_300_sparse", 4, 300, 450, 4, 10, 2),
        ("rand_500_medium", 5, 500, 2500, 6, 5, 1),
        ("rand_1000_dangling", 6, 1000, 3000, 10, 40, 4),
    ]
    for name, seed, n, m, loops, dangling, parts in cases:
        write(name, n, random_graph(seed, n, m, loops, dangling, parts))
    n, edges, ids = real_callgraph()
    write("networkx_algorithms", n, edges, ids)
    n, edges, ids = frontend_callgraph()
    write("networkx_pyfrontend", n, edges, ids)


if __name__ == "__main__":
    main()
