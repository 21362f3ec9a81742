"""gpubench report study: the source studies' tables and figures from recipes (reports/recipes)."""
import json
import os
import sys

from .errors import ReportError
from .files import write_atomic
from .records import read_json, short


def with_code(e, code):
    """e, exiting with the code of the command that failed inside the study (5: a full disk)."""
    e.code = code
    return e


def run_records(binary, commands, target):
    """Runs each gpubench command with --format json into one records file (their points merged)."""
    import subprocess
    merged = None
    for n, command in enumerate(commands):
        part = f"{target}.{n}.json"
        print(f"gpubench report: running gpubench {' '.join(command)}", file=sys.stderr)
        code = subprocess.call([binary] + command + ["--format", "json", "--out", part])
        if code not in (0, 1) or not os.path.exists(part):  # 1: a point failed, and its record says so
            raise ReportError(f"gpubench {' '.join(command)} exited {code}")
        records = read_json(part)
        os.remove(part)
        if merged is None:
            merged = records
        else:  # records (benchmarks, failed_benchmarks) or sweeps
            for key in ("benchmarks", "failed_benchmarks", "sweeps"):
                if key in records:
                    merged.setdefault(key, []).extend(records[key])
    write_atomic(target, json.dumps(merged, indent=1))


def study(args):
    """Runs a recipe (reports/recipes/NAME.json): its tables (.md, .tex, .csv) and figures (.png) into --out."""
    import glob
    import shutil
    from .report_cli import main  # (here: report_cli imports this module)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # reports/: its recipes and data
    path = args.name if args.name.endswith(".json") else os.path.join(here, "recipes", args.name + ".json")
    if not os.path.exists(path):
        names = sorted(f[:-5] for f in os.listdir(os.path.join(here, "recipes")) if f.endswith(".json"))
        raise ReportError(f"no recipe '{args.name}' (valid: {', '.join(names)})")
    recipe = read_json(path)
    try:
        for item in recipe["outputs"]:
            if not isinstance(item["name"], str) or not isinstance(item["records"], list) or not (
                    isinstance(item.get("table"), list) or isinstance(item.get("figure"), list)):
                raise TypeError(f"output {item.get('name')!r} needs a name, records and a table or figure argument list")
        for pattern, command in recipe.get("runs", {}).items():
            if not command or not isinstance(command, list):
                raise TypeError(f"the run for {pattern!r} is not a command (a list of words, or a list of them)")
    except (KeyError, TypeError, AttributeError) as e:
        raise ReportError(f"{path}: not a gpubench recipe ({e})")
    data = args.data or os.path.join(here, "data")
    out = args.out or f"gpubench-report-{args.name}"
    made = os.path.join(out, "data")  # records this command ran, when the data holds none
    os.makedirs(out, exist_ok=True)
    index = [f"# {recipe['title']}", "", recipe.get("source", ""), "",
             f"Made by `gpubench report study {args.name}` from the records in `{os.path.relpath(data, out)}`"
             f" (recipe `{os.path.relpath(path, os.path.dirname(here))}`).", ""]
    for item in recipe["outputs"]:
        files = []
        for pattern in item["records"]:
            matched = sorted(glob.glob(os.path.join(data, pattern))) or sorted(glob.glob(os.path.join(made, pattern)))
            if not matched:
                command = recipe.get("runs", {}).get(pattern)
                if command is None:
                    raise ReportError(f"recipe {args.name}: no records match '{pattern}' in {data}, and the recipe "
                                      "has no run that makes them")
                commands = command if isinstance(command[0], list) else [command]
                shown = "gpubench " + " ".join(commands[0]) + (f" (and {len(commands) - 1} more)" if len(commands) > 1 else "")
                if not args.run:
                    raise ReportError(f"recipe {args.name}: no records match '{pattern}' in {data}; --run makes them "
                                      f"on this machine's devices: {shown}")
                binary = os.environ.get("GPUBENCH_BINARY") or shutil.which("gpubench")
                if not binary:
                    raise ReportError("--run needs gpubench: run this as 'gpubench report study ...'")
                target = os.path.join(made, pattern.replace("*", "all"))  # a pattern's runs: one file
                os.makedirs(os.path.dirname(target), exist_ok=True)
                run_records(binary, commands, target)
                matched = [target]
            files += matched
        name = item["name"]
        if "table" in item:
            index += [f"## {item.get('title', name)}", ""]
            for fmt, ext in (("markdown", "md"), ("latex", "tex"), ("csv", "csv")):
                code = main(["table"] + item["table"] + files + ["--format", fmt, "--out", os.path.join(out, f"{name}.{ext}")])
                if code:
                    raise with_code(ReportError(f"recipe {args.name}: the table {name} failed"), code)
            with open(os.path.join(out, f"{name}.md")) as f:
                index += [f.read().rstrip(), "", f"([LaTeX]({name}.tex), [CSV]({name}.csv))", ""]
        else:
            target = os.path.join(out, f"{name}.png")
            code = main(["figure"] + item["figure"] + files + ["--out", target])
            if code:
                raise with_code(ReportError(f"recipe {args.name}: the figure {name} failed"), code)
            index += [f"## {item.get('title', name)}", "", f"![{name}]({name}.png)", ""]
        index += ["Records: " + ", ".join(f"`{short(f)}`" for f in files), ""]
    if os.path.isdir(made):
        index += ["Records that this command ran on this machine's devices, the data lacking them: `data/`.", ""]
    write_atomic(os.path.join(out, "README.md"), "\n".join(index))
    print(f"gpubench report: wrote {out}/README.md and its tables and figures", file=sys.stderr)
