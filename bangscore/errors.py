"""The one tree of BangScore's own exceptions, kept in one module as httpx keeps its own in
``_exceptions.py``: a caller catches everything BangScore raises on purpose (and nothing else)
with :class:`BangScoreError`, and each family with its base. The modules that raise them
re-export them under their old names. (tests/test_errors.py: every exception class of ours
derives from the root.)

The tree (the module that raises each, in brackets)::

    BangScoreError
    ├── InvalidLocation (also ValueError)   a storage location or key no store can hold [storage]
    ├── SnapshotError                       a snapshot manifest or pointer is unusable [manifest]
    ├── ObjectStorageError                  object storage failed [storage]
    │   ├── ObjectNotFound (also KeyError)  no object under a key
    │   │   └── ObjectPending                 a game's page its snapshot writes after [shim]
    │   ├── ObjectStorageUnavailable        the store cannot be reached or written
    │   ├── PointerConflict                 another build moved ``current`` first
    │   └── CorruptObject                   a body does not match its digest [shim.source]
    ├── ExportError                         a Bulk export manifest is corrupt [contract.export]
    ├── CatalogError (also ValueError)      a catalog file or raw dump is unreadable [ingest]
    ├── RowError (also ValueError)          a broken dump field, skipped [ingest.dumps.files]
    ├── SourceError                         a live source answered an error [ingest.live.http]
    │   └── AnswerRefused                   too big, too slow, redirected [ingest.live.http]
    ├── SourceUnreachableError              a live source was unreachable [ingest.live.http]
    ├── UnscorableGame (also ValueError)    a record lacks an input the score needs [scoring]
    ├── CatalogRefused                      a catalogue a build must not publish [build.guard]
    ├── StoreError                          the key, account and watch store failed [stores]
    │   ├── StoreUnavailable                down, read-only or locked: answered 503
    │   ├── StoreMissing                    a configured store that does not exist
    │   ├── KeyStoreError                   a key or account record refused
    │   │   ├── KeyExists                   a new key's id or digest is taken
    │   │   ├── UnknownKey (also LookupError) no key with that id
    │   │   └── AccountExists               sign-up for an email already taken
    │   └── WatchStoreError                 a watch record refused
    │       ├── UnknownWatch (also LookupError) no watch with that id
    │       └── TooManyWatches              an address holds the most watches allowed
    ├── MailError                           a message the SMTP server did not take [mail]
    ├── EgressRefused                       a webhook URL that must not be posted to [mail.egress]
    ├── UnsafeMessage (also ValueError)     a message that cannot be written safely [mail]
    ├── AuthFailure                         a key that cannot be used: 401 [shim.quota]
    ├── BadRequest                          request parameters refused: 400 [shim.problems]
    ├── FilterValueRefused (also ValueError) a list filter's raw value refused [contract.filters]
    ├── BodyRefused                         a stalled or malformed request body [shim.protocol]
    ├── FormTooLarge                        an account form over its size [shim.account]
    ├── HashingBusy                         too many password checks waiting [shim.account]
    ├── Unsatisfiable                       a byte range past a file's end: 416 [shim.ranges]
    └── ProblemRefusal                      a resolver's refusal with a problem code [shim.answer]
        ├── ResourceNotFound                404 (game_not_found, game_not_rated, not_found)
        └── Forbidden                       403 (insufficient_scope)

The Python client's family (:class:`bangscore.client.ApiError` and its subclasses
InvalidParameter, AuthenticationFailed, PermissionDenied, NotFound, GameNotRated,
HistoryExpired, RateLimited, Unavailable, ServerError, ResponseTooLarge, DeadlineExceeded,
and for failures with no problem document ApiConnectionError and InvalidResponse) derives
from BangScoreError too, but is defined and imported in :mod:`bangscore.client`: it is the
client library's public surface.

One class per name (issue 47): the server's 404 refusal is :class:`ResourceNotFound`, and
``NotFound`` is only the client's 404 answer, :class:`bangscore.client.NotFound`. This module
has no ``NotFound``, so ``except bangscore.errors.NotFound`` fails at once (AttributeError)
instead of quietly missing the client's 404: catch ``bangscore.client.NotFound`` (an
ApiError), or every answer that is not a success with ``bangscore.client.ApiError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class BangScoreError(Exception):
    """Base class of every exception BangScore raises on purpose."""


class InvalidLocation(BangScoreError, ValueError):
    """Raised for a storage location or object key no store can hold (a bad ``--out``,
    ``--snapshot`` or ``--export``, an unknown option, a key that would leave its folder)."""


# -- snapshots and object storage --------------------------------------------------------------


class SnapshotError(BangScoreError):
    """Raised when a snapshot is missing, its manifest is corrupt, or it cannot be published."""


class ObjectStorageError(BangScoreError):
    """Base class of storage failures."""


class ObjectNotFound(ObjectStorageError, KeyError):
    """Raised when a key does not exist in the store."""


class ObjectPending(ObjectNotFound):
    """Raised when a snapshot has not written an object yet that it will hold: a game's page
    or badge while ``make run`` writes them after the first answer (503, Retry-After)."""


class ObjectStorageUnavailable(ObjectStorageError):
    """Raised when the store cannot be reached or answered with a fault (retry later)."""


class PointerConflict(ObjectStorageError):
    """Raised when the ``current`` pointer moved since it was read (another build won)."""


class CorruptObject(ObjectStorageError):
    """Raised when a fetched body does not match its manifest digest."""


class ExportError(BangScoreError):
    """Raised when an export manifest is corrupt."""


# -- catalogue, scoring and build --------------------------------------------------------------


class CatalogError(BangScoreError, ValueError):
    """A catalog file or the raw dumps are missing or unreadable."""


class RowError(BangScoreError, ValueError):
    """A row field is broken; the message is the counted skip reason."""


class SourceUnreachableError(BangScoreError):
    """The host could not be reached at all (DNS, refused connection, timeouts) after retries."""


class SourceError(BangScoreError):
    """The host answered, but with an error status that retries did not cure."""

    def __init__(self, url: str, status: int) -> None:
        super().__init__(f"{url} answered HTTP {status}")
        self.url = url
        self.status = status


class AnswerRefused(SourceError):
    """The host answered, but the answer is not one to read: too large, too slow as a whole,
    or a redirect to another host. Not retried."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(url, 200)
        self.args = (f"{url}: {reason}",)
        self.reason = reason


class UnscorableGame(BangScoreError, ValueError):
    """Raised when a record lacks an input the score needs (the catalog rules prevent it)."""


class CatalogRefused(BangScoreError):
    """Raised when a catalogue must not be published; the message says why."""


# -- stores and mail ---------------------------------------------------------------------------


class StoreError(BangScoreError):
    """Base class of the failures of the store of keys, accounts and watches (one SQLite file
    or one Redis: :mod:`bangscore.stores`)."""


class StoreUnavailable(StoreError):
    """Raised when the store cannot be reached; callers fail open on counts
    (docs/API.md#counting)."""


class StoreMissing(StoreError):
    """Raised when a store that must already exist (a command that only reads it) does not."""


class KeyStoreError(StoreError):
    """Base class of the key and account records' failures."""


class KeyExists(KeyStoreError):
    """Raised when a new key's id or digest is already stored."""


class UnknownKey(KeyStoreError, LookupError):
    """Raised when a key id names no key."""


class AccountExists(KeyStoreError):
    """Raised when an account with the same email is already stored."""


class WatchStoreError(StoreError):
    """Base class of the watch records' failures."""


class UnknownWatch(WatchStoreError, LookupError):
    """Raised when a watch id names no watch."""


class TooManyWatches(WatchStoreError):
    """Raised when an address already holds the most watches allowed
    (``bangscore.stores.watchstore.MAX_WATCHES_PER_ADDRESS``)."""


class EgressRefused(BangScoreError):
    """A webhook URL that must not be posted to (not https, or an address that is not globally
    routable once resolved); the message says why, naming no secret [mail.egress]."""


class MailError(BangScoreError):
    """Raised when a message could not be handed to the SMTP server (nothing was sent).

    ``lost`` is True when the connection is gone (unreachable, dropped, past its deadline):
    nothing more can be sent on it; False when the server refused this one message and is
    still there. ``bounced`` is True for a permanent refusal of the recipient (5xx on RCPT):
    the address is to be suppressed.
    """

    def __init__(self, message: str, *, lost: bool = True, bounced: bool = False) -> None:
        super().__init__(message)
        self.lost = lost
        self.bounced = bounced


class UnsafeMessage(BangScoreError, ValueError):
    """Raised when a message cannot be written safely: a header value that would not stay one
    header line, or an address that is not a plain ``local@domain``."""


# -- the server --------------------------------------------------------------------------------


class AuthFailure(BangScoreError):
    """Raised when a request's key cannot be used; ``code`` is the problem code."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


@dataclass(frozen=True, slots=True)
class ParamError:
    """One invalid parameter: its name and what it accepts (a :class:`BadRequest` holds them)."""

    parameter: str
    message: str


class BadRequest(BangScoreError):
    """Raised by request parsing with every invalid parameter found (answered as 400)."""

    def __init__(self, errors: Sequence[ParamError]) -> None:
        super().__init__("; ".join(f"{e.parameter}: {e.message}" for e in errors))
        self.errors = list(errors)


class FilterValueRefused(BangScoreError, ValueError):
    """Raised by a list filter's reader (:class:`bangscore.contract.list_filter.ListFilter`'s
    ``parse``) with one message per rule its raw value breaks, each saying what the parameter
    accepts; the parser names the parameter with each (a :class:`BadRequest`)."""

    def __init__(self, *messages: str) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


class BodyRefused(BangScoreError):
    """Raised to the app by ``receive`` when a request body stalls or is malformed: the app
    answers ``status``/``code`` as a problem, and the connection closes after it."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail


class FormTooLarge(BangScoreError):
    """Raised when a posted account form is larger than its bound or has a field larger than
    its bound (``shim.account.accounts.MAX_FORM_BYTES``, ``MAX_FIELD_BYTES``)."""


class HashingBusy(BangScoreError):
    """Raised when more password checks wait in this process than
    ``shim.account.passwords.HASHING_QUEUE``."""


class Unsatisfiable(BangScoreError):
    """Raised for the one byte range a download asks for when it lies wholly past the end of
    the file (answered 416 ``range_not_satisfiable``)."""


class ProblemRefusal(BangScoreError):
    """Raised by a resolver that refuses a request with a problem: ``code`` is the problem code
    (its status comes from the route table's error codes) and ``extra`` any members the problem
    document carries besides the standard ones."""

    def __init__(self, code: str, detail: str, extra: dict[str, object] | None = None) -> None:
        super().__init__(detail)
        self.code = code
        self.extra = extra


class ResourceNotFound(ProblemRefusal):
    """A 404: an unknown resource (``not_found``, ``game_not_found``, ``game_not_rated``)."""


class Forbidden(ProblemRefusal):
    """A 403: a key whose plan does not cover the resource (``insufficient_scope``)."""
