"""Side work of `serve` in a forked child: the snapshot's writing, the training migration."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable


def in_child(work: Callable[[], object]) -> int:
    """Fork; the child runs `work` and exits, never returning here (status 0 when it returned,
    1 when it raised, with the traceback on stderr); the parent gets the child's pid. Buffered
    output is flushed first, so that the child does not write it a second time."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            work()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    return pid
