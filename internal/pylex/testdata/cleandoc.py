"""Reference vectors for pylex.Cleandoc: Python's inspect.cleandoc on docstring bodies.

Regenerate with:  /usr/bin/python3 cleandoc.py > cleandoc.json
The inputs are the docstrings of real modules (the standard library's json, inspect and
difflib) plus edge cases (tabs, blank lines, single lines).
"""
import ast
import difflib
import inspect
import json
import sys

inputs = [
    "", "one line", "   leading", "first\n    second\n      third\n", "\n\n  a\n\n  b\n\n",
    "x\n\tTabbed\n\t  more", "  a\n b\n   c", "trailing   \n  spaces  \n",
]
for mod in (json, inspect, difflib):
    tree = ast.parse(open(mod.__file__, encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef, ast.Module)):
            d = ast.get_docstring(node, clean=False)
            if d and "\\" not in d:
                inputs.append(d)
inputs = inputs[:400]
json.dump([{"In": s, "Out": inspect.cleandoc(s)} for s in inputs], sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
