#!/usr/bin/env python3
"""The docs' command blocks, run (issue 48): a doc example that stops working fails ctest.

Every fenced block of README.md and docs/*.md carries a marker on the line
before its opening fence, an HTML comment the rendered page does not show:

  <!-- doc-test: run CASE -->            its commands are run by CASE (tests/docs/cases/)
  <!-- doc-test: run CASE; real-machine: WORD (why) -->
                                         ... except its lines that start with WORD (after
                                         `moesweep ` / `scripts/`), which need a machine
                                         the tests lack
  <!-- doc-test: real-machine CASE -->   an example of a real machine (a 16-core table, a
                                         500 GB model); CASE runs the scaled block beside it
  <!-- doc-test: ci -->                  the suite itself (scripts/test): CI runs it
  <!-- doc-test: output -->              what a command printed, a measured transcript
  <!-- doc-test: file -->                a file's content (JSON, YAML, a layout)
  <!-- doc-test: synopsis -->            a syntax summary ([options], A|B): not copied as is

A case (tests/docs/cases/*.case) holds the doc's commands as written, and
what it takes to run them here:

  [CASE]                     a case; its commands run in order, in one scratch folder
  setup: ACTION ARGS         a harness action before the commands (setup_action says which)
  needs: THING               the case is skipped (and says so) where THING is missing:
                             llama-server, kernels-bench, valgrind
  with OLD => NEW            a substitution: the doc's placeholder (model.gguf, RUN) bound
  $ COMMAND                  a doc line, exactly (after the `with` substitutions)
  + FLAGS                    appended when it runs: the scaling (--dry-run, -r 1, ...)
  ? CODE[,CODE...]           its exit status (default 0; a list: any of them, e.g. compare's 0,4,5)
  > REGEX                    a line of its stdout or stderr matches
  ! REGEX                    no line matches
  = EXPR                     a Python expression, true: `out` its stdout, `j` that parsed as
                             JSON (None if not), `run(PATH)` the run directory a sweep made,
                             `load(PATH)` a JSON file, `lines(PATH)` a JSONL file
  width: any (REASON)        its output may be wider than 120 columns (default: checked)

Every command's stdout and stderr must fit 120 columns (JSON output aside):
what moesweep prints to a terminal fits one (issue 48, "Fits 120 columns").

  doc_examples.py --root SRC --bin BUILD/bin --work DIR (--markers | --fixture | --doc FILE)
"""
import argparse
import fcntl
import glob
import json
import os
import pty
import re
import shlex
import shutil
import sqlite3
import struct
import subprocess
import sys
import termios
import threading
import time

WIDTH = 120
MARKER = re.compile(r"^<!-- doc-test: (run|real-machine|ci|output|file|synopsis)\b(.*?)-->\s*$")
KINDS_NEEDING_CASE = ("run", "real-machine")


class Block:
    def __init__(self, doc, line, kind, case, skip_words, commands):
        self.doc, self.line, self.kind, self.case = doc, line, kind, case
        self.skip_words, self.commands = skip_words, commands

    def where(self):
        return f"{self.doc}:{self.line}"


# A line ending so continues on the next (a loop's body, a pipe).
CONTINUED = (" do", "|", "&&", "||", " then")


def command_lines(body):
    """The block's commands: continuation lines joined, comments and blank lines left out."""
    out, pending = [], ""
    for raw in body:
        line = strip_comment(raw.rstrip()).rstrip()
        if pending:
            line = pending + " " + line.strip()
            pending = ""
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        if line.endswith(CONTINUED):
            pending = line
            continue
        if line.strip():
            out.append(line.strip())
    return out


def strip_comment(line):
    """A shell line without its trailing `# comment` (a # inside quotes stays)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def parse_marker(text, where):
    m = MARKER.match(text)
    if not m:
        return None
    kind, rest = m.group(1), m.group(2).strip()
    case, skip_words = "", []
    head, _, tail = rest.partition(";")
    if kind in KINDS_NEEDING_CASE:
        case = head.strip()
        if not case:
            raise SystemExit(f"{where}: `doc-test: {kind}` needs a case name")
    if tail.strip():
        clause = tail.strip()
        if not clause.startswith("real-machine:"):
            raise SystemExit(f"{where}: after ';' only 'real-machine: WORDS (why), ...' is known")
        # Each skipped command's first words, then why in parentheses.
        skip_words = [w.strip(" ,") for w, _ in
                      re.findall(r"([^()]+?)\s*\(([^()]*)\)", clause[len("real-machine:"):])]
        if not skip_words:
            raise SystemExit(f"{where}: 'real-machine: WORDS (why)': each with its reason")
    return kind, case, skip_words


def doc_blocks(root, doc):
    """Every fenced block of one Markdown file, with its marker (None: unmarked)."""
    lines = open(os.path.join(root, doc), encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        marker = parse_marker(lines[i - 1], f"{doc}:{i}") if i > 0 else None
        body = lines[i + 1:end]
        if marker:
            blocks.append(Block(doc, i + 1, marker[0], marker[1], marker[2], command_lines(body)))
        else:
            blocks.append(Block(doc, i + 1, None, "", [], command_lines(body)))
        i = end + 1
    return blocks


def documents(root):
    return ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(f"{root}/docs/*.md"))


class Step:
    def __init__(self, command):
        self.command, self.append, self.codes = command, "", [0]
        self.matches, self.absent, self.checks, self.width_free = [], [], [], ""


class Case:
    def __init__(self, name, where):
        self.name, self.where = name, where
        self.setup, self.subst, self.steps, self.needs = [], [], [], []


def read_cases(root):
    cases = {}
    for path in sorted(glob.glob(f"{root}/tests/docs/cases/*.case")):
        case = None
        for n, raw in enumerate(open(path, encoding="utf-8"), 1):
            line = raw.rstrip("\n")
            where = f"{os.path.relpath(path, root)}:{n}"
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.startswith("["):
                name = line.strip("[] ")
                if name in cases:
                    raise SystemExit(f"{where}: case [{name}] is defined twice")
                case = cases[name] = Case(name, where)
                continue
            if case is None:
                raise SystemExit(f"{where}: a line before the first [CASE]")
            add_case_line(case, line, where)
    return cases


def add_case_line(case, line, where):
    key, _, value = line.partition(" ")
    step = case.steps[-1] if case.steps else None
    if key in ("+", "?", ">", "!", "=", "width:") and step is None:
        raise SystemExit(f"{where}: '{key}' before the first '$' line")
    if key == "setup:":
        case.setup.append(value.strip())
    elif key == "needs:":
        case.needs.append(value.strip())
    elif key == "with":
        old, sep, new = value.partition(" => ")
        if not sep:
            raise SystemExit(f"{where}: 'with OLD => NEW'")
        case.subst.append((old.strip(), new.strip()))
    elif key == "$":
        case.steps.append(Step(value.strip()))
    elif key == "+":
        step.append = (step.append + " " + value.strip()).strip()
    elif key == "?":
        step.codes = [int(c) for c in value.split(",")]
    elif key == ">":
        step.matches.append(value.strip())
    elif key == "!":
        step.absent.append(value.strip())
    elif key == "=":
        step.checks.append(value.strip())
    elif key == "width:":
        step.width_free = value.strip()
    else:
        raise SystemExit(f"{where}: unknown line '{line}'")


def substituted(text, subst):
    for old, new in subst:
        text = text.replace(old, new)
    return text


def skipped(command, words):
    bare = re.sub(r"^(moesweep|scripts/)\s*", "", command)
    return any(bare.startswith(w) or command.startswith(w) for w in words)


def check_markers(root, cases):
    """Every block marked; every run/real-machine marker names a case; every command
    of a run block is a `$` line of its case and every `$` line a command of a block."""
    problems, used = [], set()
    blocks = [b for doc in documents(root) for b in doc_blocks(root, doc)]
    runs = {b.case: b for b in blocks if b.kind == "run"}
    for b in blocks:
        if b.kind is None:
            problems.append(f"{b.where()}: a fenced block without a `<!-- doc-test: ... -->` marker "
                            "on the line before it (tests/docs/doc_examples.py says which)")
            continue
        if b.kind == "real-machine":
            scaled = runs.get(b.case)
            if not scaled or scaled.doc != b.doc:
                problems.append(f"{b.where()}: real-machine names [{b.case}], which is no run block "
                                "of the same doc (the scaled command beside it)")
            continue
        if b.kind != "run":
            continue
        case = cases.get(b.case)
        if case is None:
            problems.append(f"{b.where()}: no case [{b.case}] in tests/docs/cases/")
            continue
        used.add(b.case)
        doc_commands = [c for c in b.commands if not skipped(c, b.skip_words)]
        case_commands = [s.command for s in case.steps]
        bound = [substituted(c, case.subst) for c in doc_commands]
        for c, b_c in zip(doc_commands, bound):
            if b_c not in case_commands:
                problems.append(f"{b.where()}: `{c}` is not run by [{b.case}] ({case.where}): "
                                "change the case with the doc")
        for s in case.steps:
            if s.command not in bound:
                problems.append(f"{case.where}: `{s.command}` is no command of {b.where()} "
                                "(a doc line, after the `with` substitutions)")
    for name, case in cases.items():
        if name not in used:
            problems.append(f"{case.where}: case [{name}] is run by no doc block")
    return problems, blocks


class Runner:
    """Runs cases in a scratch folder with this build's moesweep first on PATH."""

    def __init__(self, args):
        self.root, self.bin = os.path.abspath(args.root), os.path.abspath(args.bin)
        self.work = os.path.abspath(args.work)
        self.fixture = os.path.join(self.work, "fixture")
        self.env = dict(os.environ)
        self.env["PATH"] = self.bin + os.pathsep + self.env.get("PATH", "")
        self.env.setdefault("MOESWEEP_CACHE_DIR", os.path.join(self.work, "cache"))
        self.env["ROOT"] = self.root
        self.env["BIN"] = self.bin
        self.env["FIXTURE"] = self.fixture
        self.env["COLUMNS"] = str(WIDTH)

    def shell(self, command, cwd, env):
        """Runs a command as a user's terminal would: stdout a pipe (what the cases read),
        stderr a terminal of WIDTH columns (moesweep wraps its messages there)."""
        start = time.monotonic()
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, WIDTH, 0, 0))
        p = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        chunks = []
        reader = threading.Thread(target=read_terminal, args=(master, chunks), daemon=True)
        reader.start()
        try:
            out, _ = p.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
        reader.join(timeout=30)
        os.close(master)
        err = b"".join(chunks).decode(errors="replace").replace("\r\n", "\n")
        result = subprocess.CompletedProcess(command, p.returncode, out.decode(errors="replace"), err)
        return result, time.monotonic() - start

    def missing(self, case):
        """What the case needs that this build or machine lacks ("" when nothing)."""
        for thing in case.needs:
            if thing == "llama-server":
                if not (os.environ.get("MOESWEEP_LLAMA_SERVER") or
                        os.path.exists(os.path.join(self.bin, "llama-server"))):
                    return "llama-server (scripts/setup --server builds it)"
            elif thing == "kernels-bench":
                if not os.path.exists(os.path.join(self.bin, "kernels-bench")):
                    return "kernels-bench (built with the engine from source: scripts/setup --engine source)"
            elif not shutil.which(thing):
                return thing
        return ""

    def run_case(self, case):
        cwd = os.path.join(self.work, "cases", case.name)
        shutil.rmtree(cwd, ignore_errors=True)
        os.makedirs(cwd)
        env = dict(self.env, TMP=cwd, HOME=cwd, MOESWEEP_ENGINES=os.path.join(cwd, "engines"))
        env.update(self.fixture_env())
        failures = []
        for action in case.setup:
            failures += setup_action(action, cwd, env, self)
        for step in case.steps:
            command = f"{step.command} {step.append}".strip()
            p, seconds = self.shell(command, cwd, env)
            failures += judge(step, command, p, cwd)
            print(f"  {seconds:5.1f} s  exit {p.returncode}  {command}")
        return failures

    def fixture_env(self):
        path = os.path.join(self.fixture, "fixture.json")
        if not os.path.exists(path):
            return {}
        return {k.upper(): v for k, v in json.load(open(path)).items()}


def read_terminal(fd, chunks):
    """What a command wrote to its terminal, until the last writer closes it."""
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: every writer has closed the terminal
            return
        if not data:
            return
        chunks.append(data)


def setup_action(action, cwd, env, runner):
    """Harness actions: what a user would have done before the doc's commands."""
    words = shlex.split(action)
    if words[0] == "register-worker":
        # This build's worker under other names: an A/A pair of real workers, where the
        # doc's `engine add` would compile a checkout (tests/engine registers real builds).
        for name in words[1:]:
            folder = os.path.join(env["MOESWEEP_ENGINES"], name)
            os.makedirs(folder, exist_ok=True)
            engine = {"schema": 1, "name": name, "kind": "llama.cpp",
                      "source": "this build's worker, registered by tests/docs",
                      "build_flags": [], "release": "", "commit": "", "build": "",
                      "cpu_variant": "", "worker": os.path.join(runner.bin, "moesweep-worker")}
            json.dump(engine, open(os.path.join(folder, "engine.json"), "w"), indent=2)
        return []
    if words[0] == "own-cache":
        # A cache of its own: `hw --cache` and `hw --bandwidth` write the figures
        # other tests' sweeps read from the shared one.
        env["MOESWEEP_CACHE_DIR"] = os.path.join(cwd, "cache")
        return []
    if words[0] == "copy":
        src, dst = (os.path.expandvars(w) for w in words[1:3])
        dst = os.path.join(cwd, dst)
        os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
        (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, dst)
        return []
    if words[0] == "shell":
        p, _ = runner.shell(" ".join(words[1:]), cwd, env)
        return [] if p.returncode == 0 else [f"setup `{action}` exited {p.returncode}: {p.stderr[-800:]}"]
    return [f"unknown setup action '{action}'"]


def display_width(line):
    return len(line)  # Python strings count code points: "±" is one column


def judge(step, command, p, cwd):
    out, err, both = p.stdout, p.stderr, p.stdout + p.stderr
    failures = []
    tail = f"\n--- stdout (end)\n{out[-1500:]}\n--- stderr (end)\n{err[-1500:]}"
    if p.returncode not in step.codes:
        wanted = " or ".join(str(c) for c in step.codes)
        failures.append(f"`{command}` exited {p.returncode}, not {wanted}{tail}")
    for pattern in step.matches:
        if not re.search(pattern, both, re.M):
            failures.append(f"`{command}`: no line matches /{pattern}/{tail}")
    for pattern in step.absent:
        if re.search(pattern, both, re.M):
            failures.append(f"`{command}`: a line matches /{pattern}/, which it should not{tail}")
    j = parsed_json(out)
    if not step.width_free:
        texts = [err] if j is not None else [out, err]
        for text in texts:
            for line in text.split("\n"):
                if display_width(line) > WIDTH:
                    failures.append(f"`{command}` printed a line of {display_width(line)} columns "
                                    f"(at most {WIDTH}):\n{line}")
                    break
    scope = {"out": out, "err": err, "j": j, "load": lambda f: json.load(open(os.path.join(cwd, f))),
             "lines": lambda f: [json.loads(l) for l in open(os.path.join(cwd, f)) if l.strip()],
             "run": lambda d="results/runs": only_run(os.path.join(cwd, d)), "os": os, "re": re,
             "glob": lambda pattern: glob.glob(os.path.join(cwd, pattern)), "sqlite3": sqlite3}
    here = os.getcwd()
    os.chdir(cwd)  # the checks' relative paths are the commands' own
    try:
        for expr in step.checks:
            try:
                ok = eval(expr, scope)
            except Exception as e:  # the check itself failed: say which and why
                ok, expr = False, f"{expr} (raised {type(e).__name__}: {e})"
            if not ok:
                failures.append(f"`{command}`: not true: {expr}{tail}")
    finally:
        os.chdir(here)
    return failures


def parsed_json(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def only_run(folder):
    runs = [d for d in sorted(os.listdir(folder)) if os.path.isdir(os.path.join(folder, d))]
    if not runs:
        raise ValueError(f"no run directory in {folder}")
    return os.path.join(folder, runs[-1])


def make_fixture(runner):
    """Two small runs of the demo's sweep (its profile, scaled), the twin they used:
    what the cases' RUN, BASE and NEW stand for. Made once per build by ctest's fixture."""
    shutil.rmtree(runner.fixture, ignore_errors=True)
    os.makedirs(runner.fixture)
    env = dict(runner.env, HOME=runner.fixture, MOESWEEP_ENGINES=os.path.join(runner.fixture, "engines"))
    facts = {}
    for side in ("base", "new"):
        command = (f"moesweep sweep --profile default -t 1,2 --depths 0,256 -p 64 -n 8 -r 3 "
                   f"--no-db --out-dir {side} --name {side}")
        p, seconds = runner.shell(command, runner.fixture, env)
        print(f"  {seconds:5.1f} s  exit {p.returncode}  {command}")
        if p.returncode != 0:
            print(p.stdout[-2000:], p.stderr[-2000:])
            return 1
        facts[side] = only_run(os.path.join(runner.fixture, side))
    meta = json.load(open(os.path.join(facts["base"], "meta.json")))
    facts["run"] = facts["new"]
    facts["twin"] = meta["models"][0]["path"] if meta.get("models") else ""
    json.dump(facts, open(os.path.join(runner.fixture, "fixture.json"), "w"), indent=2)
    print(json.dumps(facts, indent=2))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--markers", action="store_true", help="check markers and cases, run nothing")
    mode.add_argument("--fixture", action="store_true", help="make the runs the cases compare")
    mode.add_argument("--doc", help="run the cases of this doc's blocks (README.md, docs/sweep.md)")
    args = ap.parse_args()
    cases = read_cases(args.root)
    problems, blocks = check_markers(args.root, cases)
    if args.markers:
        for p in problems:
            print("FAIL:", p)
        counts = {}
        for b in blocks:
            counts[b.kind] = counts.get(b.kind, 0) + 1
        print(f"{len(blocks)} blocks: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=str)))
        return 1 if problems else 0
    runner = Runner(args)
    if args.fixture:
        return make_fixture(runner)
    start, failures = time.monotonic(), []
    mine = [p for p in problems if f"{args.doc}:" in p]
    if mine:  # a case that no longer matches its doc runs nothing (docs.markers says the rest)
        for p in mine:
            print("FAIL:", p)
        return 1
    names = [b.case for b in blocks if b.kind == "run" and b.doc == args.doc]
    if not names:
        print(f"{args.doc}: no run block")
        return 0
    skipped_cases = []
    for name in names:
        print(f"[{name}] ({cases[name].where})")
        missing = runner.missing(cases[name])
        if missing:
            print(f"  SKIPPED: needs {missing}")
            skipped_cases.append(name)
            continue
        for f in runner.run_case(cases[name]):
            failures.append(f"[{name}] {f}")
    for f in failures:
        print("FAIL:", f)
    print(f"{args.doc}: {len(names)} case(s), {len(skipped_cases)} skipped, {len(failures)} failure(s), "
          f"{time.monotonic() - start:.1f} s")
    if failures:
        return 1
    return 77 if len(skipped_cases) == len(names) else 0  # ctest's SKIP_RETURN_CODE


if __name__ == "__main__":
    sys.exit(main())
