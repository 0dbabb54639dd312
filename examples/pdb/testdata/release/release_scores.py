#!/usr/bin/python3
"""Expected values for examples/pdb's release tests, computed by the PDB release's own code.

The PDB release (https://github.com/Bill1235813/PDB) is not part of this repository. Run
this script against a checkout of it (commit 22b21ed was used):

    git clone https://github.com/Bill1235813/PDB /tmp/PDB
    /usr/bin/python3 examples/pdb/testdata/release/release_scores.py /tmp/PDB [COMMIT]

(COMMIT names the release's commit when the checkout has no .git directory.)

It needs numpy (Debian: python3-numpy), which the release's src/utils.py imports.

What it does, from the files in this directory:

1. compose_single.json and compose_multi.json are `pdb compose` output on real code
   (TestPipelinePytest makes them and checks that compose still makes them byte for byte).
   handmade.json is written here: three records in the release's bug-data format built from
   that real code with the release's own file_diff (ties "L"/"L " among Add keys, Delete and
   Add fixes, two bugs).
2. For every record it derives a set of predictions (the ground truth, the buggy program, a
   partial fix, over-edits, a different fix, a fix whose tests hang, a rewrite, an added and
   a deleted line; seeded) and writes them as the release's debug-result records — the
   record plus "round" and "debug_results": {"model", "solution", "pred_diff"}, pred_diff
   made by the release's file_diff, as its bug_correct.py writes them — to
   debug_results_<set>.json.
3. It runs the release's Evaluator (src/evaluator.py) on each debug-result file. The
   dataset handler, which would run BigCodeBench or LiveCodeBench tests, is replaced by a
   stand-in whose unit test is a fixed function of the program text (verdict below): a
   program passes if it is one of the set's ground-truth solutions or if its CRC-32 is
   divisible by 3, "times out" if it contains the word hang, and fails otherwise; as in the
   release's handlers, only a pass counts. The evaluator's scores, the tasks it skipped and
   its summary line go to release_scores.json.

TestReleaseScores scores the same debug-result files with `pdb score`'s reader and
metrics.Score in Reference mode, with the same verdict function, and compares.
"""
import contextlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import types
import zlib
from argparse import Namespace

HERE = os.path.dirname(os.path.abspath(__file__))

GTS = set()  # the current set's ground-truth solutions, as the evaluator hands them over


def verdict(program):
    if not program.strip():
        return "fail"
    if "hang" in program:
        return "timeout"
    if program in GTS or zlib.crc32(program.encode("utf-8")) % 3 == 0:
        return "pass"
    return "fail"


class Handler:
    """The three handler methods the evaluator calls, with verdict() as the unit test."""

    def build_verify_unit_test(self, log_file_prefix, results, sol_field="solution"):
        return [(r["task_id"], r[sol_field]) for r in results]

    def save_formatted_gt(self, log_file_prefix, data):
        return None

    def verify_unit_test(self, verify_file, gt_file=None, timeout=1800):
        fail_ids, correct_ids, feedback = [], [], []
        for task_id, program in verify_file:
            v = verdict(program)
            if v == "pass":  # only a pass counts: a timeout is a failure
                correct_ids.append(task_id)
            else:
                fail_ids.append(task_id)
                feedback.append(v)
        return fail_ids, correct_ids, feedback


def load_release(pdb_dir):
    sys.path.insert(0, os.path.join(pdb_dir, "src"))
    # The evaluator imports the dataset registry (and through it the LLM stack and every
    # dataset's harness) only to get a handler: give it a registry with the stand-in.
    registry = types.ModuleType("dataset")
    registry.get_handler = lambda name: Handler()
    sys.modules["dataset"] = registry
    import evaluator
    import utils
    return evaluator, utils


def rstrip_lines(text):
    return "\n".join(line.rstrip() for line in text.splitlines())


def handmade(utils, base):
    """Three bug-data records in the release's format, built from real code."""
    g = base.split("\n")
    stmts = [i for i, l in enumerate(g) if l.strip() and l.startswith("        ") and not l.strip().startswith("#")]
    rng = random.Random(3)
    out = []

    def record(n, buggy_lines, note):
        buggy = "\n".join(buggy_lines)
        gt_diff = utils.file_diff(buggy, base, cleaned=True)[2]
        out.append({
            "task_id": "handmade/%d" % n,
            "gt_solution": base,
            "task_prompt": "Fix the bugs in prog.py (%s)." % note,
            "buggy_code": buggy,
            "bug_count": len(utils.parse_diff_to_blocks(gt_diff)),
            "gt_diff": gt_diff,
            "source_model": "handmade",
        })

    # Two consecutive statements removed: the fix is two Adds before one line ("L", "L ").
    i = next(i for i in stmts if i + 1 in stmts)
    record(0, g[:i] + g[i + 2:], "two lines missing")
    # A statement repeated: the fix is a Delete.
    j = rng.choice(stmts)
    record(1, g[:j + 1] + [g[j]] + g[j + 1:], "a repeated line")
    # Two bugs far apart: a changed operator and a missing line.
    a, b = stmts[1], stmts[-2]
    bl = list(g)
    bl[a] = bl[a].replace(" = ", " = not ", 1) if " = " in bl[a] else bl[a] + " + 1"
    del bl[b]
    record(2, bl, "two bugs")
    return out


def predictions(rng, utils, ex):
    """(kind, solution) pairs for one record; no solution ends with a line break."""
    gt, buggy = rstrip_lines(ex["gt_solution"]), rstrip_lines(ex["buggy_code"])
    G = gt.split("\n")
    blocks = utils.parse_diff_to_blocks(ex["gt_diff"])
    first = blocks[0]
    code = [i for i, l in enumerate(G) if l.strip()]
    out = [("gt", gt), ("buggy", buggy)]
    if len(blocks) > 1:
        out.append(("partial", utils.apply_diff(buggy, first["diff"])))
    # The ground truth with one more line changed near the first bug (gt coordinates
    # match the buggy ones above the first block).
    near = [i for i in code if abs(i - (first["block_start"] - 1)) in (1, 2)]
    if near:
        i = rng.choice(near)
        over = list(G)
        over[i] = over[i] + "  # touched"
        out.append(("over", "\n".join(over)))
    # The first bug fixed by different text: every Modify of its block rewritten.
    alt = dict(first["diff"])
    changed = False
    for k, e in alt.items():
        if e["type"] == "Modify":
            alt[k] = dict(e, modified=e["modified"] + "  # alt")
            changed = True
    if changed:
        rest = {}
        for b in blocks[1:]:
            rest.update(b["diff"])
        rest.update(alt)
        merged = dict(sorted(rest.items(), key=lambda kv: (int(kv[0]), kv[1]["type"], len(kv[0]))))
        out.append(("alt", utils.apply_diff(buggy, merged)))
        hang = {k: (dict(e, modified=e["modified"] + "  # hang") if e["type"] == "Modify" else e) for k, e in merged.items()}
        out.append(("hang", utils.apply_diff(buggy, hang)))
    out.append(("rewrite", "\n".join(l + "  # r" if l.strip() and rng.random() < 0.7 else l for l in G)))
    i = rng.choice(code)
    out.append(("added", "\n".join(G[:i + 1] + [G[i][:len(G[i]) - len(G[i].lstrip())] + "pass"] + G[i + 1:])))
    j = rng.choice(code[1:])
    out.append(("deleted", "\n".join(G[:j] + G[j + 1:])))
    mixed = [l + "  # m" if l.strip() and rng.random() < 0.15 else l for l in G]
    out.append(("mixed", "\n".join(mixed)))
    return out


def digest(task_id, scores, gt_diff, utils):
    sym = scores["Symbolic block scores"][task_id]
    gt_blocks = utils.parse_diff_to_blocks(gt_diff)
    matched = set()
    for m in sym["matched_blocks"].values():
        if m.get("success", True) and m.get("gt_match_count", 0) > 0:
            if "gt_blocks" in m:
                matched.update(b["block_id"] for b in m["gt_blocks"])
            else:
                matched.update(b["block_id"] for b in gt_blocks if b["block_start"] <= m["block_start"] <= b["block_end"])
    return {
        "precision": sym["precision"], "recall": sym["recall"], "f1": sym["f1"],
        "unit": scores["Unit score"][task_id],
        "matched_gt_blocks": sorted(matched),
        "unmatched_pred": list(sym["unmatched_pred"].keys()),
        "unmatched_gt": list(sym["unmatched_gt"].keys()),
    }


def evaluate(evaluator, utils, name, records, tolerance, stride):
    GTS.clear()
    GTS.update(rstrip_lines(r["gt_solution"]) for r in records)
    with tempfile.TemporaryDirectory() as d:
        args = Namespace(dataset_name="fixture", eval_result_dir=d, eval_model_name="fixture",
                         eval_set_name=name, stride=stride, tolerance=tolerance)
        ev = evaluator.Evaluator(args)
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            scores = ev.run_evaluation(results=records, round=1)
    summary = [l for l in printed.getvalue().splitlines() if l.startswith("[summary]")]
    accepted = set(ev.eval_ids)
    by_id = {r["task_id"]: r for r in records}
    return {
        "tolerance": tolerance, "stride": stride,
        "skipped": [r["task_id"] for r in records if r["task_id"] not in accepted],
        "summary": summary[-1].split(": ", 1)[1] if summary else "",
        "tasks": {tid: digest(tid, scores, by_id[tid]["gt_diff"], utils) for tid in ev.eval_ids},
    }


def main():
    pdb_dir = sys.argv[1]
    evaluator, utils = load_release(pdb_dir)
    try:
        commit = subprocess.run(["git", "-C", pdb_dir, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    if not commit and len(sys.argv) > 2:
        commit = sys.argv[2]  # a checkout without .git: the commit it was taken from
    single = json.load(open(os.path.join(HERE, "compose_single.json")))
    multi = json.load(open(os.path.join(HERE, "compose_multi.json")))
    hand = handmade(utils, rstrip_lines(single[0]["gt_solution"]))
    with open(os.path.join(HERE, "handmade.json"), "w") as f:
        json.dump(hand, f, indent=2)
    sets = {}
    rng = random.Random(20261124)
    for name, data, tolerance in (("single", single, 2), ("multi", multi, 1), ("handmade", hand, 1)):
        records = []
        for ex in data:
            for kind, sol in predictions(rng, utils, ex):
                # Our generation metadata stays out of the prediction records (the
                # evaluator ignores it either way).
                rec = {k: v for k, v in ex.items() if k not in ("bugs", "seed", "stride")}
                rec["task_id"] = "%s#%s" % (ex["task_id"], kind)
                rec["round"] = 1
                rec["debug_results"] = {"model": "fixture", "solution": sol,
                                        "pred_diff": utils.file_diff(rec["buggy_code"], sol, cleaned=True)[2]}
                records.append(rec)
        fname = "debug_results_%s.json" % name
        with open(os.path.join(HERE, fname), "w") as f:
            json.dump(records, f, indent=2)
        sets[name] = dict(file=fname, **evaluate(evaluator, utils, name, records, tolerance, 2))
    out = {
        "evaluator": {"repository": "https://github.com/Bill1235813/PDB", "commit": commit,
                      "entry": "src/evaluator.py Evaluator.run_evaluation"},
        "sets": sets,
    }
    with open(os.path.join(HERE, "release_scores.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
