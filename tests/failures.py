"""The ending the script tests share: each failure on its own line, then a summary line."""


def finish(failures, summary):
    """Prints every failure and the summary; returns the exit status (1 where anything failed)."""
    for f in failures:
        print("FAIL:", f)
    print(summary)
    return 1 if failures else 0
