"""A streaming, hardened JUnit reader built on expat.

It never builds a tree: each `<testcase>` is reported once its end tag is read, and
text (tracebacks, captured output) is never even copied into Python, but for the first
few lines of a failure that carries no `message` (`first_message`). Documents with a
DOCTYPE, entity declarations or external entities are refused before anything in them
could be expanded or fetched.

Which child elements mean what comes from junitparser's xunit2 model, so the reader and
the library agree on the vocabulary: failure/error and the four retry elements fail an
attempt, skipped skips it. Beyond that model the reader also honours the outcome some
producers write as an attribute (`status`, `result`), and reads a failure or error written
directly inside a `<testsuite>` (Ant, when a class cannot even load) as a failed case
with an empty classname and name, so a suite that crashed is never silently absent.

Expat decodes UTF-8, UTF-16, ISO-8859-1 and US-ASCII itself. A document that declares any
other encoding is decoded by Python's codec of that name and handed to expat as UTF-8; a
declared name that is not a text encoding is an input error.
"""

from __future__ import annotations

import codecs
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pyexpat import ExpatError, ParserCreate
from xml.parsers import expat

import junitparser
from junitparser import xunit2

from waiver.errors import InputError
from waiver.read.junit.started import Started
from waiver.read.junit.testid import CONTROL, id_problem

PASS, FAIL, SKIP = 1, 2, 4

RETRY_TAGS = frozenset(
    cls._tag
    for cls in (xunit2.FlakyFailure, xunit2.FlakyError, xunit2.RerunFailure, xunit2.RerunError)
)
FAIL_TAGS = frozenset({junitparser.Failure._tag, junitparser.Error._tag}) | RETRY_TAGS
SKIP_TAG = junitparser.Skipped._tag
# Outcomes written as a testcase attribute (GoogleTest, NUnit and TRX converters, C/C++
# runners), matched without regard to case. A child element can still fail the case.
STATUS_OUTCOMES = {
    "notrun": SKIP,
    "disabled": SKIP,
    "skipped": SKIP,
    "skip": SKIP,
    "ignored": SKIP,
    "notrunnable": SKIP,
    "inconclusive": SKIP,
    "failed": FAIL,
    "failure": FAIL,
    "fail": FAIL,
    "error": FAIL,
    "errored": FAIL,
}
SKIP_RESULT = frozenset({"skipped", "suppressed"})  # GoogleTest's `result` attribute
ROOTS = frozenset({"testsuites", "testsuite"})
MAX_DEPTH = 256  # elements open at once, inside a <testcase> too
# The longest test id a report may name: pytest ids with long parameters stay far below it,
# and every id is kept in memory and written into the report.
MAX_ID_CHARS = 16_384

# How a document starts -> the encoding expat is told, for documents that carry a byte
# order mark or are UTF-16 without one (XML 1.0 appendix F).
SIGNATURES = (
    (codecs.BOM_UTF8, "UTF-8"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
    (b"<\x00?\x00", "UTF-16LE"),
    (b"\x00<\x00?", "UTF-16BE"),
)
# An XML declaration is at the very start of a document; 1 KiB holds any real one.
HEAD_BYTES = 1024
DECLARATION = re.compile(rb"<\?xml\s[^>]*?\bencoding\s*=\s*[\"']([A-Za-z][A-Za-z0-9._-]*)[\"']")
# Python codec name -> the spelling expat decodes natively.
EXPAT_ENCODINGS = {"utf-8": "UTF-8", "iso8859-1": "ISO-8859-1", "ascii": "US-ASCII"}

# The longest failure message kept: a line a reviewer reads in the summary, kept for each
# failing test in memory and in the report. A report can carry megabytes of it.
MAX_MESSAGE_CHARS = 200
# The text of a failure read for its message, at most: enough for MAX_MESSAGE_CHARS once
# the indentation of a traceback is folded away.
MAX_TEXT_CHARS = 8 * MAX_MESSAGE_CHARS
ELLIPSIS = "…"

# (suite name, classname, name, PASS|FAIL|SKIP, retry elements seen, first failure message
# or "") for each testcase
CaseSink = Callable[[str, str, str, int, int, str], None]


def first_message(text: str, cut: bool) -> str:
    """A failure's message as the reader keeps it: white space folded to single spaces (so
    it is one line wherever it is shown), at most MAX_MESSAGE_CHARS characters, and ending
    in an ellipsis where the failure said more than that (`cut`: more than was read of it).
    """
    more = cut or len(text) > MAX_TEXT_CHARS
    folded = " ".join(text[:MAX_TEXT_CHARS].split())
    if len(folded) > MAX_MESSAGE_CHARS or (more and folded):
        return folded[: MAX_MESSAGE_CHARS - 1].rstrip() + ELLIPSIS
    return folded


@dataclass(slots=True)
class _OpenSuite:
    name: str
    depth: int
    failed: bool = False  # a failure or error written directly inside the suite
    message: str = ""  # the first such failure's message
    file: str = ""  # its `file` attribute, else the nearest enclosing suite's


@dataclass(slots=True)
class CaseFile:
    """The `file` a report gives the case being handed to the sink: the testcase's own
    attribute, else the nearest suite's (mocha-junit-reporter writes it on suites only);
    "" when there is none. `own` says it is the testcase's own: a runner whose reporters
    differ in where they write it knows from this which one wrote the case. Read by a sink
    that asks for it (`read_junit(files=…)`)."""

    path: str = ""
    own: bool = False


class RefusedReport(Exception):
    """Raised from a parser handler for a document the reader will not read."""


def _refuse(what: str) -> Callable[..., None]:
    def handler(*_args: object) -> None:
        raise RefusedReport(what)

    return handler


def _refuse_external(*_args: object) -> int:
    raise RefusedReport("external entities are not allowed in a report")


def hardened_parser(encoding: str) -> expat.XMLParserType:
    """An expat parser that refuses DOCTYPEs, entity declarations and external entities."""
    parser = ParserCreate(encoding)
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse("a DOCTYPE is not allowed in a report")
    parser.EntityDeclHandler = _refuse("entity declarations are not allowed in a report")
    parser.ExternalEntityRefHandler = _refuse_external
    return parser


def _declared_codec(head: bytes, source: str) -> str | None:
    """The Python codec named by the XML declaration, or None when there is none."""
    match = DECLARATION.match(head)
    if match is None:
        return None
    name = match.group(1).decode("ascii")
    try:
        codec = codecs.lookup(name)
        "<".encode(codec.name)  # refuses codecs that are not text encodings (base64, zlib)
    except (LookupError, UnicodeError):
        raise InputError(
            source, f"the declared encoding {name!r} is not one waiver can read"
        ) from None
    return codec.name


def _as_utf8(chunks: Iterable[bytes], encoding: str, source: str) -> Iterator[bytes]:
    """Re-encode a document in an encoding expat cannot decode itself."""
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        for chunk in chunks:
            yield decoder.decode(chunk).encode("utf-8")
        yield decoder.decode(b"", final=True).encode("utf-8")
    except (UnicodeDecodeError, UnicodeEncodeError) as error:
        raise InputError(source, f"not valid {encoding}: {error.reason}") from None


def expat_input(chunks: Iterable[bytes], source: str) -> tuple[str, Iterable[bytes]]:
    """The encoding to tell expat, and the bytes to feed it.

    Expat is always told the encoding, so it never looks one up by the declared name
    (which would end in an error that is not about the report).
    """
    stream = iter(chunks)
    head = b""
    for chunk in stream:
        head += chunk
        if len(head) >= HEAD_BYTES:
            break
    body = itertools.chain((head,), stream)
    for signature, encoding in SIGNATURES:
        if head.startswith(signature):
            return encoding, body
    codec = _declared_codec(head, source)
    if codec is None:
        return "UTF-8", body
    native = EXPAT_ENCODINGS.get(codec)
    if native is not None:
        return native, body
    return "UTF-8", _as_utf8(body, codec, source)


@dataclass(slots=True, eq=False)
class _Handlers:
    """The parse state of one document, and its expat handlers: `root` for the first
    element, which hands the parser on to `start` for every later one, and `end`.

    Character data has a handler only inside a failure that carries no `message`, until
    MAX_TEXT_CHARS of its text are read: other text is never copied into Python. `start`
    and `end` run once per element of a report that may hold millions, so the state lives
    in slots and the testcase path does no more than it must (bench/: the gate stays at the
    floor).
    """

    parser: expat.XMLParserType
    sink: CaseSink
    started: Started | None
    files: CaseFile | None = None
    depth: int = 0
    suites: list[_OpenSuite] = field(default_factory=list)
    case_depth: int = 0  # depth of the open <testcase>, 0 when none is open
    suite: str = ""
    classname: str = ""
    name: str = ""
    outcome: int = 0
    retries: int = 0
    message: str = ""  # the open testcase's first failure message
    count: int = 0
    text_depth: int = 0  # depth of the failure whose text is being read, 0 when none
    text: list[str] = field(default_factory=list)
    text_chars: int = 0

    def root(self, tag: str, attrs: dict[str, str]) -> None:
        """The document's first element, then `start` for every element after it."""
        if tag not in ROOTS:
            raise RefusedReport(f"not a JUnit report: the root element is <{tag}>")
        self.parser.StartElementHandler = self.start
        self.start(tag, attrs)

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        self.depth = depth = self.depth + 1
        if depth > MAX_DEPTH:
            raise RefusedReport(f"elements nested deeper than {MAX_DEPTH}")
        if self.case_depth:
            if depth == self.case_depth + 1:
                if tag in FAIL_TAGS:
                    self.outcome = FAIL
                    if tag in RETRY_TAGS:
                        self.retries += 1
                    if not self.message and not self.text_depth:
                        self.message = self._message_of(attrs, depth)
                elif tag == SKIP_TAG and self.outcome != FAIL:
                    self.outcome = SKIP
                elif tag == "testcase":
                    raise RefusedReport("a <testcase> inside a <testcase>")
            return
        if tag != "testcase":
            self._outside_case(tag, attrs, depth)
            return
        self.case_depth = depth
        try:  # subscripts, cheaper than .get, for what nearly every testcase carries
            classname = attrs["classname"]
            name = attrs["name"]
        except KeyError:
            classname = attrs.get("classname", "")
            name = attrs.get("name", "")
        self.classname = classname
        self.name = name
        files = self.files
        if files is not None:
            own = attrs.get("file")
            files.own = bool(own)
            files.path = own or (self.suites[-1].file if self.suites else "")
        if len(classname or self.suite) + len(name) > MAX_ID_CHARS:
            raise RefusedReport(f"a test id longer than {MAX_ID_CHARS} characters")
        # The id is made of these, and of the file for a runner that reads it. Nearly every
        # name is printable, which is a quicker question than a search for controls.
        made = name + (classname or self.suite) + (files.path if files is not None else "")
        if not made.isprintable() and CONTROL.search(made):
            raise RefusedReport(str(id_problem(made)))
        self.retries = 0
        self.message = ""
        outcome = PASS
        # `in` before a look-up: most testcases carry neither of these.
        if "status" in attrs:
            outcome = STATUS_OUTCOMES.get(attrs["status"].lower(), PASS)
        if "result" in attrs and outcome == PASS and attrs["result"] in SKIP_RESULT:
            outcome = SKIP
        self.outcome = outcome

    def _message_of(self, attrs: dict[str, str], depth: int) -> str:
        """A failure's `message`; without one, its text is read until the failure ends.

        Expat hands an attribute over whole, so only its first MAX_TEXT_CHARS are folded.
        """
        message = first_message(attrs.get("message", ""), False)
        if not message:
            self.text_depth = depth
            self.parser.CharacterDataHandler = self._text
        return message

    def _text(self, data: str) -> None:
        """Text of a failure without a `message`, kept up to MAX_TEXT_CHARS and then no more
        read: a report may carry megabytes of it."""
        room = MAX_TEXT_CHARS - self.text_chars
        self.text.append(data[:room])
        self.text_chars += len(data)
        if self.text_chars > MAX_TEXT_CHARS:
            self.parser.CharacterDataHandler = None

    def _text_read(self) -> None:
        """The failure whose text was being read has ended: its text is its message."""
        self.parser.CharacterDataHandler = None
        message = first_message("".join(self.text), self.text_chars > MAX_TEXT_CHARS)
        self.text_depth = self.text_chars = 0
        self.text.clear()
        if self.case_depth:
            self.message = message
        elif self.suites:
            self.suites[-1].message = message

    def _outside_case(self, tag: str, attrs: dict[str, str], depth: int) -> None:
        """An element that opens outside any testcase: a root, a suite, a suite's failure."""
        if self.started is not None and tag in ROOTS:
            timestamp = attrs.get("timestamp")
            if timestamp is not None:
                self.started.note(timestamp)
        suites = self.suites
        if tag == "testsuite":
            self.suite = suite = attrs.get("name", "")
            inherited = suites[-1].file if suites else ""
            suites.append(_OpenSuite(suite, depth, file=attrs.get("file") or inherited))
        elif tag in FAIL_TAGS and suites and depth == suites[-1].depth + 1:
            open_suite = suites[-1]
            open_suite.failed = True
            if not open_suite.message and not self.text_depth:
                open_suite.message = self._message_of(attrs, depth)

    def end(self, tag: str) -> None:
        depth = self.depth
        if depth == self.case_depth:
            self.case_depth = 0
            self.count += 1
            self.sink(
                self.suite, self.classname, self.name, self.outcome, self.retries, self.message
            )
        elif depth == self.text_depth:
            self._text_read()
        elif not self.case_depth and tag == "testsuite":
            suites = self.suites
            closed = suites.pop()
            if closed.failed:
                if CONTROL.search(closed.name):
                    raise RefusedReport(str(id_problem(closed.name)))
                if self.files is not None:
                    self.files.path = closed.file
                    self.files.own = False
                self.sink(closed.name, "", "", FAIL, 0, closed.message)
            self.suite = suites[-1].name if suites else ""
        self.depth = depth - 1


def read_junit(
    chunks: Iterable[bytes],
    source: str,
    sink: CaseSink,
    started: Started | None = None,
    files: CaseFile | None = None,
) -> int:
    """Stream one JUnit document into `sink`; returns the number of testcases read.

    `started`, when given, notes the `timestamp` of every suite; `files`, when given,
    holds the `file` of each case while the sink is called for it.
    """
    encoding, body = expat_input(chunks, source)
    parser = hardened_parser(encoding)
    handlers = _Handlers(parser, sink, started, files)
    parser.StartElementHandler = handlers.root
    parser.EndElementHandler = handlers.end
    try:
        for chunk in body:
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except ExpatError as error:
        message = expat.errors.messages[error.code] if error.code else str(error)
        raise InputError(
            source, f"not well-formed XML: {message} (line {error.lineno}, column {error.offset})"
        ) from None
    except RefusedReport as refusal:
        raise InputError(source, str(refusal)) from None
    except RecursionError:
        raise InputError(source, "nesting too deep to read") from None
    return handlers.count
