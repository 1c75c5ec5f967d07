"""What every script that reads accsum reports and writes files shares (docs/input-output-rules.md):

* a report that is missing, empty, truncated, not JSON or not accsum-report/1 is one line on stderr
  and exit 2, never a traceback (load_report, and run_main for a key missing deep inside);
* a figure with nothing drawn is refused (exit 2), never written empty with exit 0;
* outputs are written atomically: a temporary file in the same directory, then renamed, so a
  failed run leaves the old file as it was (save_figure, write_text);
* a script's inputs are never its outputs (check_outputs: same file by device and inode).
"""
import json
import os
import sys
import tempfile

SCHEMA = "accsum-report/1"


class ScriptError(Exception):
    """A bad input or output: one line on stderr, exit 2."""


def prog():
    return os.path.basename(sys.argv[0]) or "script"


def die(message):
    print(f"{prog()}: error: {message}", file=sys.stderr)
    sys.exit(2)


def load_json(path, what="JSON document"):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ScriptError(f"{path}: cannot read: {e.strerror}")
    if not raw.strip():
        raise ScriptError(f"{path}: empty file (expected a {what})")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ScriptError(f"{path}: not a {what} (truncated or malformed: {e})")


def load_report(path):
    """An accsum-report/1 document, its runs checked to be a list of objects with results."""
    return check_report(load_json(path, SCHEMA + " document"), path)


def check_report(doc, path):
    """doc, when it is an accsum-report/1 document whose runs are a list of objects with results."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ScriptError(f"{path}: not an {SCHEMA} document (schema: {doc.get('schema') if isinstance(doc, dict) else type(doc).__name__})")
    runs = doc.get("runs", [doc])
    if not isinstance(runs, list) or not all(isinstance(r, dict) and isinstance(r.get("results"), list) for r in runs):
        raise ScriptError(f"{path}: {SCHEMA} document without a list of runs with results")
    return doc


class _Pyplot:
    """matplotlib.pyplot (Agg backend), imported on first use: a refused input costs no import."""

    def __getattr__(self, name):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
        return getattr(pyplot, name)


plt = _Pyplot()


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_outputs(inputs, outputs):
    """Refuses an output that is one of the inputs (symbolic links resolved)."""
    for out in outputs:
        if out:
            for inp in inputs:
                if inp and same_file(inp, out):
                    raise ScriptError(f"{out}: is also an input (refused: it would be overwritten)")


def _atomic(path, write):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


def write_text(path, text):
    try:
        _atomic(path, lambda f: f.write(text.encode("utf-8")))
    except OSError as e:
        raise ScriptError(f"cannot write {path}: {e.strerror}")


def save_figure(fig, path, **kwargs):
    """Writes a matplotlib figure atomically; a figure with nothing drawn is refused."""
    drawn = any(ax.lines or ax.collections or ax.patches or ax.images or ax.containers for ax in fig.axes)
    if not drawn:
        raise ScriptError(f"nothing to plot for {path} (no matching rows in the input)")
    ext = os.path.splitext(path)[1].lstrip(".") or "png"
    try:
        _atomic(path, lambda f: fig.savefig(f, format=ext, **kwargs))
    except OSError as e:
        raise ScriptError(f"cannot write {path}: {e.strerror}")



def reports_to_figure_args(doc, default_out):
    """The command line of a plot script that draws accsum reports into one image: JSON... -o IMAGE;
    refuses an image that is also an input (check_outputs)."""
    import argparse
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="accsum-report/1 files")
    ap.add_argument("-o", "--out", default=default_out, help="image to write")
    args = ap.parse_args()
    check_outputs(args.json, [args.out])
    return args

def run_main(main, *args):
    """Runs main(*args): a ScriptError, or a key or type missing from a report, is one line and exit 2."""
    try:
        rc = main(*args)
    except ScriptError as e:
        die(str(e))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        die(f"a report does not have the {SCHEMA} layout this script reads ({type(e).__name__}: {e})")
    sys.exit(rc or 0)
