#!/usr/bin/env python3
"""Reads a JUnit XML file as CI systems do and checks it against the junit-10
schema's rules (Jenkins' junit-10.xsd, which GitLab's and GitHub's test
reporters follow): a <testsuites> root of <testsuite> elements; each suite
with name, tests, failures, errors, skipped and time, its <properties> before
its cases; each <testcase> with name, classname and time, holding at most one
<failure> or <skipped>, each with a message; the counts equal to the cases.
Prints what it read as JSON (suites' totals, properties, and every case's
classname, name, result and message), exit 1 and the reasons when a rule is
broken.

usage: junit_check.py FILE
"""
import json
import sys
import xml.etree.ElementTree as ET


def number(element, name, problems, kind=float):
    try:
        return kind(element.get(name))
    except (TypeError, ValueError):
        problems.append(f"<{element.tag}> has no numeric {name}: {element.get(name)!r}")
        return 0


def check_case(case, problems):
    for attr in ("name", "classname", "time"):
        if not case.get(attr):
            problems.append(f"a testcase lacks {attr}: {case.attrib}")
    number(case, "time", problems)
    children = list(case)
    if len(children) > 1 or any(c.tag not in ("failure", "skipped") for c in children):
        problems.append(f"testcase {case.get('name')!r} holds {[c.tag for c in children]}")
    result = children[0].tag if children else "pass"
    message = children[0].get("message", "") if children else ""
    if children and not message:
        problems.append(f"the {result} of {case.get('name')!r} has no message")
    return {"classname": case.get("classname"), "name": case.get("name"), "result": result,
            "message": message}


def check_suite(suite, problems):
    for attr in ("name", "tests", "failures", "errors", "skipped", "time"):
        if suite.get(attr) is None:
            problems.append(f"testsuite lacks {attr}")
    tags = [c.tag for c in suite]
    if "properties" in tags and tags.index("properties") != 0:
        problems.append("testsuite's properties come after its testcases")
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    cases = [check_case(c, problems) for c in suite.findall("testcase")]
    for attr, result in (("tests", None), ("failures", "failure"), ("skipped", "skipped")):
        want = len([c for c in cases if result is None or c["result"] == result])
        if number(suite, attr, problems, int) != want:
            problems.append(f"testsuite {attr}={suite.get(attr)} but {want} case(s)")
    number(suite, "time", problems)
    return props, cases


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    problems = []
    try:
        root = ET.parse(argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"not readable as XML: {e}", file=sys.stderr)
        return 1
    if root.tag != "testsuites":
        problems.append(f"root is <{root.tag}>, not <testsuites>")
    suites = root.findall("testsuite")
    if not suites:
        problems.append("no testsuite")
    out = {"tests": number(root, "tests", problems, int),
           "failures": number(root, "failures", problems, int), "properties": {}, "cases": []}
    for suite in suites:
        props, cases = check_suite(suite, problems)
        out["properties"].update(props)
        out["cases"] += cases
    if out["tests"] != len(out["cases"]):
        problems.append(f"testsuites tests={out['tests']} but {len(out['cases'])} case(s)")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
