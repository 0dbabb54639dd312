#!/usr/bin/python3
"""Reference vectors for task's instance formats (task/instance.go), made with CPython's json.

Regenerate from this directory with Debian's interpreter:

    /usr/bin/python3 gen.py

Inputs are built from real code shipped by Debian (python3-simplejson, python3-pyflakes,
python3-bs4, python3-networkx):

swe_input.jsonl / swe_canonical.jsonl
    SWE-bench / FeatureBench instances in the forms the datasets use: FAIL_TO_PASS and
    PASS_TO_PASS as JSON-encoded strings (SWE-bench) or lists (FeatureBench), version as a
    string or a number, repo_settings as a JSON string or an object, the FeatureBench
    counts, members task.SWEInstance does not know, non-ASCII and <>& characters. The patch
    is a git-style diff of a real module made with difflib. The canonical line is what
    SWEInstance must write: lists for the test lists, repo_settings as a string (an object
    compacted as Python's separators=(",", ":") writes it, keys in input order), version as
    its literal text, every SWE-bench schema member present (empty strings included), empty
    image_name and repo_settings omitted, keys sorted, no ASCII or HTML
    escaping: each value is json.dumps(v, separators=(",", ":"), ensure_ascii=False) and the
    members are joined in sorted key order. Members SWEInstance does not know are written
    back as they came (compacted, nested key order kept).

swe_dataset.jsonl
    The same instances in the Hugging Face dataset form (SWEInstance.AsDataset): FAIL_TO_PASS
    and PASS_TO_PASS as the strings json.dumps writes for the lists.

featurebench_ids.json
    FeatureBench instance ids computed as its case converter does (md5 of the test path).

pdb_input.jsonl / pdb_expected.json
    PDB examples: a real function-sized snippet with seeded single-line bugs; gt_diff is
    computed by the reference edit model (get_diff from ../edits/gen.py, which restates
    docs/pdb.md with difflib.ndiff) from the buggy code to the solution, bug_count by its
    get_blocks. Some lines store gt_diff as a JSON string, task_id as a number, and
    debug_results as one object or a list. pdb_expected.json records, per line, the
    decoded members the Go side must reproduce (task_id as a string, gt_diff keys in
    order, bug_count, solution) and the program apply(buggy, gt_diff) gives.
"""
import difflib
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "edits"))
from gen import apply, get_blocks, get_diff  # noqa: E402  (the reference edit model)

DIST = "/usr/lib/python3/dist-packages/"


def read(rel):
    with open(DIST + rel, encoding="utf-8", newline="") as f:
        return f.read()


def git_diff(path, old, new):
    a, b = old.splitlines(True), new.splitlines(True)
    body = "".join(difflib.unified_diff(a, b, "a/" + path, "b/" + path, n=3))
    return "diff --git a/%s b/%s\n%s" % (path, path, body)


def swe_cases(rng):
    src = read("simplejson/decoder.py")
    lines = src.splitlines(True)
    i = rng.randrange(50, len(lines) - 50)
    broken = "".join(lines[:i] + ["    raise NotImplementedError  # <masked> & removed\n"] + lines[i + 5:])
    patch = git_diff("simplejson/decoder.py", broken, src)
    test_src = read("simplejson/tests/test_decode.py")
    test_patch = git_diff("simplejson/tests/test_decode.py", "", test_src).replace(
        "--- a/simplejson/tests/test_decode.py", "new file mode 100644\n--- /dev/null")
    tests = ["simplejson/tests/test_decode.py::TestDecode::test_decimal",
             "simplejson/tests/test_decode.py::TestDecode::test_float",
             "simplejson/tests/test_decode.py::TestDecode::test_empty_objects"]
    p2p = ["simplejson/tests/test_dump.py::TestDump::test_dump", "simplejson/tests/test_fail.py::TestFail::test_failures"]
    settings = {"python": "3.11", "install": "pip install -e .", "test_cmd": "pytest -rA", "timeout_run": 600,
                "black_links": ["https://github.com/simplejson/simplejson"]}
    inputs = [
        # SWE-bench form: string-encoded lists, string version, hints.
        {"repo": "simplejson/simplejson", "instance_id": "simplejson__simplejson-301",
         "base_commit": "0123456789abcdef0123456789abcdef01234567", "patch": patch, "test_patch": "",
         "problem_statement": "JSONDecoder fails on «special» input <tag> & more\n",
         "hints_text": "", "created_at": "2023-05-01T12:00:00Z", "version": "3.19",
         "FAIL_TO_PASS": json.dumps(tests), "PASS_TO_PASS": json.dumps(p2p),
         "environment_setup_commit": "89abcdef0123456789abcdef0123456789abcdef"},
        # FeatureBench form: lists, repo_settings object, counts, unknown members.
        {"instance_id": "simplejson__simplejson.01234567.test_decode.5d41402a.lv1",
         "FAIL_TO_PASS": ["simplejson/tests/test_decode.py"], "PASS_TO_PASS": ["simplejson/tests/test_dump.py"],
         "image_name": "libercoders/featurebench-specs_simplejson-instance_0123",
         "repo": "simplejson/simplejson", "base_commit": "0123456789abcdef0123456789abcdef01234567",
         "repo_settings": settings, "lines": 42, "files": 1, "functions": 3,
         "f2p_test_points": 25, "p2p_test_points": 0, "upd_time": "2024-01-02", "create_time": None,
         "top_objects": ["simplejson/decoder.py::JSONDecoder.decode::360"],
         "patch": patch, "test_patch": test_patch, "problem_statement": "## Task\nImplement `decode`.\n"},
        # repo_settings already a string, numeric version, null lists.
        {"instance_id": "x__y-1", "repo": "x/y", "base_commit": "abc", "patch": patch, "test_patch": "",
         "problem_statement": "", "version": 3.10, "repo_settings": json.dumps(settings),
         "FAIL_TO_PASS": "[\"t1\"]", "PASS_TO_PASS": None, "extra_list": [1, 2.5, {"z": 1, "a": [True, None]}]},
    ]
    known = {"instance_id", "repo", "base_commit", "patch", "test_patch", "problem_statement", "hints_text",
             "created_at", "version", "environment_setup_commit", "FAIL_TO_PASS", "PASS_TO_PASS", "image_name",
             "repo_settings", "lines", "files", "functions", "f2p_test_points", "p2p_test_points"}
    canon = []
    dataset = []
    raw_lines = []
    for rec in inputs:
        raw = json.dumps(rec, ensure_ascii=(rec["instance_id"] == "x__y-1"))
        if rec["instance_id"] == "x__y-1":
            raw = raw.replace("3.1,", "3.10,")  # keep the literal as a dataset would write it
        raw_lines.append(raw)
        decoded = json.loads(raw)
        literal = json.loads(raw, parse_float=lambda s: s)  # version keeps its literal text
        out = {}
        for k, v in decoded.items():
            if k not in known:
                # unknown members are written back as they came (compacted, order kept)
                out[k] = json.dumps(v, separators=(",", ":"), ensure_ascii=False)
                continue
            if k in ("FAIL_TO_PASS", "PASS_TO_PASS"):
                if isinstance(v, str):
                    v = json.loads(v) if v.strip() else []
                v = v if v is not None else []
            elif k == "repo_settings" and not isinstance(v, str):
                v = json.dumps(v, separators=(",", ":"), ensure_ascii=False)
            elif k == "version" and not isinstance(v, str):
                v = str(literal[k])
            if k in ("image_name", "repo_settings") and v in ("", None):
                continue
            if v is None:
                v = ""
            out[k] = json.dumps(v, separators=(",", ":"), ensure_ascii=False)
        # every member of the SWE-bench dataset schema is written, empty strings included
        for k in ("instance_id", "repo", "base_commit", "patch", "test_patch", "problem_statement",
                  "hints_text", "created_at", "version", "environment_setup_commit"):
            out.setdefault(k, '""')
        for k in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            out.setdefault(k, "[]")
        canon.append("{" + ",".join(json.dumps(k) + ":" + out[k] for k in sorted(out)) + "}")
        # the Hugging Face dataset form: the test lists as the strings json.dumps writes
        ds = dict(out)
        for k in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            ds[k] = json.dumps(json.dumps(json.loads(out[k])), ensure_ascii=False)
        dataset.append("{" + ",".join(json.dumps(k) + ":" + ds[k] for k in sorted(ds)) + "}")
    return raw_lines, canon, dataset


SNIPPETS = [
    ("pyflakes/messages.py", 1, 60),
    ("simplejson/encoder.py", 30, 100),
    ("bs4/formatter.py", 1, 80),
    ("networkx/algorithms/cycles.py", 20, 90),
    ("simplejson/scanner.py", 1, 70),
]


def mutate_line(line, rng):
    swaps = [(" == ", " != "), (" < ", " <= "), (" + ", " - "), ("True", "False"), (" and ", " or "),
             ("(", "( "), ("return ", "return not ")]
    for a, b in rng.sample(swaps, len(swaps)):
        if a in line:
            return line.replace(a, b, 1)
    return line.rstrip() + "  # bug"


def pdb_cases(rng):
    inputs, expected = [], []
    for n, (rel, lo, hi) in enumerate(SNIPPETS):
        gt = "".join(read(rel).splitlines(True)[lo - 1:hi])
        lines = gt.split("\n")
        k = 1 + n % 3
        cand = [i for i, l in enumerate(lines) if l.strip() and not l.lstrip().startswith(("def ", "class ", "import ", "from ", "#"))]
        chosen = []
        for i in rng.sample(cand, len(cand)):
            if all(abs(i - c) > 3 for c in chosen):
                chosen.append(i)
            if len(chosen) == k:
                break
        buggy_lines = list(lines)
        for i in chosen:
            buggy_lines[i] = mutate_line(buggy_lines[i], rng)
        if n == 2:  # a deleted line and an inserted one too
            del buggy_lines[max(chosen) + 2]
            buggy_lines.insert(1, "    pass")
        buggy = "\n".join(buggy_lines)
        gt_diff, _ = get_diff(buggy, gt)
        blocks = get_blocks(gt_diff)
        rec = {"task_id": "%s/%d" % (rel.split("/")[0], n) if n % 2 == 0 else 1000 + n,
               "buggy_code": buggy, "gt_solution": gt, "gt_diff": gt_diff if n != 1 else json.dumps(gt_diff),
               "bug_count": len(blocks), "source": rel.split("/")[0], "category": ["Assignment", "Checking", "Algorithm"][n % 3],
               "meta": {"seed": 7, "stride": 3}}
        solution = gt if n % 2 == 0 else buggy
        if n == 3:
            rec["debug_results"] = {"solution": solution, "model": "m1", "tokens": 123}
        elif n in (0, 4):
            rec["debug_results"] = [{"solution": solution, "model": "m1"}, {"solution": buggy, "model": "m2"}]
        inputs.append(json.dumps(rec, ensure_ascii=(n % 2 == 1)))
        expected.append({"task_id": str(rec["task_id"]), "keys": list(gt_diff), "bug_count": len(blocks),
                         "applied": apply(buggy, gt_diff), "solution": solution if "debug_results" in rec else None,
                         "debug_results_form": type(rec.get("debug_results")).__name__})
    return inputs, expected


def featurebench_ids():
    """instance_id = {owner}__{repo}.{commit[:8]}.{test stem}.{md5(test path)[:8]}.lv{level},
    as FeatureBench's case converter builds it (Path.stem drops the last suffix only)."""
    import hashlib
    import pathlib
    out = []
    for repo, commit, test, level in [
        ("simplejson/simplejson", "0123456789abcdef0123456789abcdef01234567", "simplejson/tests/test_decode.py", 1),
        ("Lightning-AI/pytorch-lightning", "a1b2c3d4e5f6", "tests/tests_pytorch/test_cli.py", 2),
        ("networkx/networkx", "deadbeef", "networkx/algorithms/tests/test_cycles.py", 1),
        ("pyflakes/pyflakes", "cafebabe00", "pyflakes/test/test_api.tar.py", 2),
        ("a/b", "1234", "tests/.hidden", 1),
        ("a/b", "1234", "tests/trailing.", 1),
    ]:
        stem = pathlib.PurePosixPath(test).stem
        h = hashlib.md5(test.encode()).hexdigest()[:8]
        out.append({"repo": repo, "commit": commit, "test": test, "level": level,
                    "id": "%s.%s.%s.%s.lv%d" % (repo.replace("/", "__"), commit[:8], stem, h, level)})
    return out


def main():
    rng = random.Random(1122)
    raw, canon, dataset = swe_cases(rng)
    with open(os.path.join(HERE, "swe_input.jsonl"), "w", encoding="utf-8", newline="") as f:
        f.write("\n".join(raw) + "\n")
    with open(os.path.join(HERE, "swe_canonical.jsonl"), "w", encoding="utf-8", newline="") as f:
        f.write("\n".join(canon) + "\n")
    with open(os.path.join(HERE, "swe_dataset.jsonl"), "w", encoding="utf-8", newline="") as f:
        f.write("\n".join(dataset) + "\n")
    inputs, expected = pdb_cases(rng)
    with open(os.path.join(HERE, "pdb_input.jsonl"), "w", encoding="utf-8", newline="") as f:
        # a blank line and a CRLF line end, as hand-edited files have them
        f.write(inputs[0] + "\r\n\n" + "\n".join(inputs[1:]))  # no final newline
    with open(os.path.join(HERE, "pdb_expected.json"), "w", encoding="utf-8") as f:
        json.dump({"python": sys.version.split()[0], "examples": expected}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(HERE, "featurebench_ids.json"), "w", encoding="utf-8") as f:
        json.dump(featurebench_ids(), f, indent=1)
        f.write("\n")


main()
