"""What the Python e2e drivers (serve_page.py, serve_takeover.py) share: a failed check, the
check itself and a log line to stderr under the driver's name."""
import sys


class CheckFailed(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise CheckFailed(msg)


def logger(name):
    """A log(msg) that prints 'NAME: msg' to stderr at once."""
    def log(msg):
        print(f"{name}: {msg}", file=sys.stderr, flush=True)
    return log
