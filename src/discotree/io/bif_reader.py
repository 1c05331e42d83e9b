"""Reading BIF and XMLBIF files: parsers for untrusted text.

:func:`read_bif_network` is a tokenizer and a recursive-descent parser, not a set of
backtracking patterns, so its time is linear in the file whatever the file holds; it
stops at the first thing that is not BIF and says what and where (line and column).
:func:`read_xmlbif_network` reads XMLBIF 0.3 with :mod:`defusedxml`, which refuses
entity declarations and external references (no "billion laughs", no file reads).

Both check every network before returning it: each variable declared once, its states
distinct, every parent declared, one table per variable of the shape its declared states
give, entries finite and non-negative, each row (one parent configuration) summing to
1 within ``tolerance`` (rows within it are renormalised, so a file written with a few
decimals reads as a distribution), and the size of each table estimated against the
``memory_limit`` configuration key before it is allocated.

Examples
--------
>>> import tempfile, pathlib
>>> text = '''network toy { }
... variable class { type discrete [ 2 ] { yes, no }; }
... variable x { type discrete [ 2 ] { a, b }; }
... probability ( class ) { table 0.4, 0.6; }
... probability ( x | class ) { (yes) 0.9, 0.1; (no) 0.2, 0.8; }
... '''
>>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.bif"
>>> _ = path.write_text(text)
>>> network = read_bif_network(path)
>>> [v.name for v in network.variables], network.variable("x").cpt.tolist()
(['class', 'x'], [[0.9, 0.1], [0.2, 0.8]])
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..config import format_bytes, get_config
from ..models.networks import Network, Variable, checked_conditional

__all__ = ["ROW_TOLERANCE", "read_bif_network", "read_xmlbif_network"]

#: Largest distance of a table row's sum from 1 that is read (and renormalised): files
#: written with three or four decimals read as distributions.
ROW_TOLERANCE = 1e-3

# One token at a time, each pattern anchored at the current position (re.match) and
# possessive (``*+``, ``++``): none can backtrack, so each scans its text once.
_SPACE = re.compile(r"(?:\s++|//[^\n]*+|/\*[^*]*+\*++(?:[^/*][^*]*+\*++)*+/)*+")
_TOKEN = re.compile(r'[{}()\[\]|,;]|"[^"\n]*+"|(?:[^\s{}()\[\]|,;"/]++|/(?![/*]))++')
_NUMBERS = re.compile(r"[^;{}]*+")


class _Tokens:
    """The tokens of a BIF text, read on demand; errors give the line and column."""

    def __init__(self, text: str, source: str) -> None:
        self.text, self.source, self.pos = text, source, 0

    def error(self, message: str, at: int | None = None) -> ValueError:
        at = self.pos if at is None else at
        line = self.text.count("\n", 0, at) + 1
        column = at - (self.text.rfind("\n", 0, at) + 1) + 1
        return ValueError(f"{self.source}, line {line}, column {column}: {message}")

    def _skip(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
        if self.text.startswith("/*", self.pos):
            raise self.error("a comment that is never closed")

    def mark(self) -> int:
        """The position of the next token."""
        self._skip()
        return self.pos

    def peek(self) -> str | None:
        self._skip()
        if self.pos >= len(self.text):
            return None
        match = _TOKEN.match(self.text, self.pos)
        if match is None:
            raise self.error(f"unexpected character {self.text[self.pos]!r}")
        return match.group()

    def next(self, what: str) -> str:
        token = self.peek()
        if token is None:
            raise self.error(f"the file ends where {what} was expected")
        self.pos += len(token)
        return token

    def expect(self, token: str) -> None:
        start = self.pos
        found = self.next(repr(token))
        if found != token:
            raise self.error(f"expected {token!r}, found {found!r}", start)

    def name(self, what: str) -> str:
        start = self.pos
        token = self.next(what)
        if token in "{}()[]|,;":
            raise self.error(f"expected {what}, found {token!r}", start)
        return token[1:-1] if token.startswith('"') else token

    def numbers(self, what: str) -> NDArray[np.float64]:
        """The numbers up to the next ``;`` (which is consumed)."""
        self._skip()
        start = self.pos
        match = _NUMBERS.match(self.text, start)
        assert match is not None  # the pattern matches the empty string
        self.pos = match.end()
        self.expect(";")
        words = match.group().replace(",", " ").split()
        try:
            values = np.array([float(w) for w in words], dtype=np.float64)
        except ValueError:
            bad = next(w for w in words if not _is_number(w))
            raise self.error(f"{what}: {bad!r} is not a number", start) from None
        return values

    def skip_statement(self) -> None:
        """Up to and including the next ``;`` (a ``property`` line)."""
        while (token := self.next("';'")) != ";":
            if token in "{}":
                raise self.error(f"unexpected {token!r} in a property")


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def _variable(tokens: _Tokens, variables: dict[str, Variable]) -> None:
    start = tokens.pos
    name = tokens.name("a variable name")
    if name in variables:
        raise tokens.error(f"the variable {name!r} is declared twice", start)
    tokens.expect("{")
    states: list[str] | None = None
    while (token := tokens.next("'type', 'property' or '}'")) != "}":
        if token == "property":
            tokens.skip_statement()
            continue
        if token != "type":
            raise tokens.error(f"expected 'type', 'property' or '}}' in {name!r}, found {token!r}")
        kind = tokens.next("'discrete'")
        if kind != "discrete":
            raise tokens.error(f"{name!r} is of type {kind!r}; only discrete variables are read")
        tokens.expect("[")
        count_at = tokens.pos
        count = tokens.next("the number of states")
        if not count.isdigit() or int(count) < 1:
            raise tokens.error(f"{count!r} is not a number of states", count_at)
        tokens.expect("]")
        tokens.expect("{")
        states = [tokens.name("a state")]
        while (separator := tokens.next("',' or '}'")) == ",":
            states.append(tokens.name("a state"))
        if separator != "}":
            raise tokens.error(f"expected ',' or '}}' between states, found {separator!r}")
        tokens.expect(";")
        if len(states) != int(count):
            raise tokens.error(f"{name!r} declares {count} states and lists {len(states)}")
        duplicate = next((s for k, s in enumerate(states) if s in states[:k]), None)
        if duplicate is not None:
            raise tokens.error(f"{name!r} lists the state {duplicate!r} twice")
    if states is None:
        raise tokens.error(f"the variable {name!r} has no type")
    variables[name] = Variable(name, states)


def _declared(tokens: _Tokens, variables: dict[str, Variable], name: str, at: int) -> Variable:
    if name not in variables:
        raise tokens.error(f"{name!r} is not a declared variable", at)
    return variables[name]


def _probability(tokens: _Tokens, variables: dict[str, Variable], tolerance: float) -> None:
    tokens.expect("(")
    at = tokens.pos
    head = _declared(tokens, variables, tokens.name("a variable name"), at)
    if head.table is not None:
        raise tokens.error(f"a second probability block for {head.name!r}", at)
    parents: list[Variable] = []
    token_at = tokens.mark()
    token = tokens.next("'|' or ')'")
    if token == "|":
        while True:
            at = tokens.pos
            parent = _declared(tokens, variables, tokens.name("a parent"), at)
            if parent is head or parent in parents:
                raise tokens.error(f"{parent.name!r} cannot be a parent of {head.name!r} here", at)
            parents.append(parent)
            token_at = tokens.mark()
            token = tokens.next("',' or ')'")
            if token != ",":
                break
    if token != ")":
        raise tokens.error(
            f"expected ')' after the variables of a probability, found {token!r}", token_at
        )
    shape = (*(len(p.states) for p in parents), len(head.states))
    _check_size(shape, head.name, tokens.source)
    table = np.full(shape, np.nan)
    tokens.expect("{")
    while (token := tokens.next("a table row or '}'")) != "}":
        if token == "property":
            tokens.skip_statement()
        elif token == "table":
            values = tokens.numbers(f"the table of {head.name!r}")
            if values.size != table.size:
                raise tokens.error(
                    f"the table of {head.name!r} has {values.size} entries; its states "
                    f"give {table.size}"
                )
            table = values.reshape(shape)
        elif token == "(":
            index = []
            for k, parent in enumerate(parents):
                at = tokens.pos
                state = tokens.name(f"a state of {parent.name!r}")
                if state not in parent.states:
                    raise tokens.error(f"{state!r} is not a state of {parent.name!r}", at)
                index.append(parent.states.index(state))
                tokens.expect("," if k + 1 < len(parents) else ")")
            if not parents:
                tokens.expect(")")
            values = tokens.numbers(f"a row of {head.name!r}")
            if values.size != len(head.states):
                raise tokens.error(
                    f"a row of {head.name!r} has {values.size} entries for "
                    f"{len(head.states)} states"
                )
            table[tuple(index)] = values
        elif token == "default":
            raise tokens.error("'default' rows are not read; write every row")
        else:
            raise tokens.error(f"expected '(', 'table' or '}}' in a probability, found {token!r}")
    head.parents = [p.name for p in parents]
    head.table = checked_conditional(table, head.name, tolerance, f"{tokens.source}: ")


def _check_size(shape: tuple[int, ...], name: str, source: str) -> None:
    """Refuse a table larger than ``memory_limit`` before allocating it."""
    size, limit = 8 * math.prod(shape), get_config()["memory_limit"]
    if size > limit:
        raise ValueError(
            f"{source}: the table of {name!r} ({' x '.join(map(str, shape))} entries) "
            f"would need {format_bytes(size)}, more than the memory limit of "
            f"{format_bytes(limit)} (discotree.set_config(memory_limit=...))"
        )


def read_bif_network(path: str | Path, tolerance: float = ROW_TOLERANCE) -> Network:
    """Parse a BIF file into a :class:`~discotree.models.networks.Network` (``table`` or
    one line per parent configuration; ``property`` lines skipped; ``default`` lines
    refused). Linear time in the file's length.

    Raises
    ------
    ValueError
        Naming the line and column of the first thing that is not BIF (an XMLBIF file
        is told to use :func:`read_xmlbif`), or the variable whose declaration or table
        is wrong (see the module notes).
    """
    path = Path(path)
    text = path.read_text(errors="replace")
    source = str(path)
    if text.lstrip().startswith("<"):
        raise ValueError(f"{source} is XML, not BIF: read XMLBIF with read_xmlbif")
    tokens = _Tokens(text, source)
    name = path.stem
    variables: dict[str, Variable] = {}
    blocks = 0
    while (token := tokens.peek()) is not None:
        start = tokens.pos
        tokens.next("a block")
        if token == "network":
            name = tokens.name("the network's name")
            tokens.expect("{")
            while (inner := tokens.next("'property' or '}'")) != "}":
                if inner != "property":
                    raise tokens.error(f"expected 'property' or '}}', found {inner!r}")
                tokens.skip_statement()
        elif token == "variable":
            _variable(tokens, variables)
        elif token == "probability":
            _probability(tokens, variables, tolerance)
        else:
            raise tokens.error(
                f"expected 'network', 'variable' or 'probability', found {token!r}", start
            )
        blocks += 1
    if not variables:
        raise ValueError(f"{source}: no variable is declared; is it a BIF file?")
    lacking = [v.name for v in variables.values() if v.table is None]
    if lacking:
        raise ValueError(f"{source}: no probability block for {', '.join(map(repr, lacking))}")
    return Network(name, list(variables.values()))


def read_xmlbif_network(path: str | Path, tolerance: float = ROW_TOLERANCE) -> Network:
    """Parse an XMLBIF 0.3 file (as :func:`~discotree.io.write_xmlbif`, pyAgrum, Weka
    and GeNIe write) with defusedxml; the checks of :func:`read_bif_network` apply.

    Raises
    ------
    ValueError
        If the XML is malformed or declares entities, or the network fails a check.
    """
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import ParseError, parse

    source = str(path)
    try:
        root = parse(str(path)).getroot()
    except (ParseError, DefusedXmlException) as err:
        raise ValueError(f"{source}: not a readable XMLBIF file ({err})") from None
    network = root.find("NETWORK") if root.tag == "BIF" else None
    if network is None:
        raise ValueError(f"{source}: no <BIF><NETWORK> element; is it an XMLBIF file?")
    variables: dict[str, Variable] = {}
    for element in network.findall("VARIABLE"):
        name = (element.findtext("NAME") or "").strip()
        states = [(s.text or "").strip() for s in element.findall("OUTCOME")]
        if not name or not states:
            raise ValueError(f"{source}: a VARIABLE without a NAME or an OUTCOME")
        if name in variables:
            raise ValueError(f"{source}: the variable {name!r} is declared twice")
        if len(set(states)) != len(states):
            raise ValueError(f"{source}: {name!r} lists a state twice")
        variables[name] = Variable(name, states)
    for element in network.findall("DEFINITION"):
        head_name = (element.findtext("FOR") or "").strip()
        given = [(g.text or "").strip() for g in element.findall("GIVEN")]
        for name in (head_name, *given):
            if name not in variables:
                raise ValueError(f"{source}: {name!r} is not a declared variable")
        head = variables[head_name]
        if head.table is not None:
            raise ValueError(f"{source}: a second DEFINITION for {head_name!r}")
        if head_name in given or len(set(given)) != len(given):
            raise ValueError(f"{source}: the parents of {head_name!r} repeat a variable")
        shape = (*(len(variables[g].states) for g in given), len(head.states))
        _check_size(shape, head_name, source)
        words = (element.findtext("TABLE") or "").split()
        try:
            values = np.array([float(w) for w in words], dtype=np.float64)
        except ValueError:
            raise ValueError(f"{source}: the table of {head_name!r} holds a non-number") from None
        if values.size != math.prod(shape):
            raise ValueError(
                f"{source}: the table of {head_name!r} has {values.size} entries; its "
                f"states give {math.prod(shape)}"
            )
        head.parents = given
        head.table = checked_conditional(values.reshape(shape), head_name, tolerance, f"{source}: ")
    if not variables:
        raise ValueError(f"{source}: no variable is declared")
    lacking = [v.name for v in variables.values() if v.table is None]
    if lacking:
        raise ValueError(f"{source}: no DEFINITION for {', '.join(map(repr, lacking))}")
    name = (network.findtext("NAME") or Path(path).stem).strip()
    return Network(name, list(variables.values()))
