"""The website renderer's jinja2 machinery (:mod:`bangscore.site.render`): an environment
that reads a plain dict's fields as items directly, and a process-wide cache of compiled
templates.
"""

from __future__ import annotations

import threading
from typing import Any

from jinja2 import Environment
from jinja2.bccache import Bucket, BytecodeCache

_DICT_ATTRIBUTES = frozenset(dir(dict))


class FastEnvironment(Environment):
    """jinja2's environment, reading ``record.field`` of a plain dict as its item directly
    and any other object's attribute without a second call.

    Same result as jinja2's own lookup (attribute first, then item), without raising and
    catching an AttributeError for each of the many wire-record fields a page prints, and
    without a call into jinja2's method for each of the many coordinates of a chart.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        try:
            return getattr(obj, attribute)
        except AttributeError:
            return super().getattr(obj, attribute)  # the item, else undefined


class ProcessBytecodeCache(BytecodeCache):
    """Compiled templates kept for the life of the process, keyed by template name and source
    checksum (jinja2's bucket key).

    Compiling the site's templates takes about 70 ms; every renderer after the first in a
    process (a shim restarted in place, each test's app) loads the compiled code instead.
    Every renderer uses the same environment options, so the compiled code is the same.
    """

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def load_bytecode(self, bucket: Bucket) -> None:
        with self._lock:
            code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        code = bucket.bytecode_to_string()
        with self._lock:
            self._code[bucket.key] = code
