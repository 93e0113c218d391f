"""Writing SPARQL results: Oxigraph's solutions, booleans and triples in the negotiated format.

SELECT rows as SPARQL JSON / XML / CSV / TSV, ASK as JSON / XML, CONSTRUCT and DESCRIBE triples as
Turtle, N-Triples, RDF/XML (Oxigraph's writers) or JSON-LD (rdflib's, compacted with a context),
with the declared prefixes. `render` reads a result lazily and refuses more than `max_results`
rows or triples (TooManyResults) rather than truncating it. The embedded store and an external
server's answers (parsed by Oxigraph) go through the same writers.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import traceback
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import pyoxigraph as ox
from rdflib import Graph
from rdflib.namespace import RDF, XSD

from kb.linked_data.sparql import ResultTooLarge, TooManyResults

GRAPH_WRITERS = {
    "turtle": ox.RdfFormat.TURTLE,
    "nt": ox.RdfFormat.N_TRIPLES,
    "xml": ox.RdfFormat.RDF_XML,
}
XSD_STRING = str(XSD.string)
RDF_LANG_STRING = str(RDF.langString)
RESULTS_NS = "http://www.w3.org/2005/sparql-results#"
# Prefixes written into graph results: the declared ones except `kb:` (node ids contain "/",
# which a prefixed name would have to escape), so resources stay readable full IRIs.
UNWRITTEN_PREFIXES = {"kb"}


Term = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple


def bounded(items: Iterable[Any], limit: int) -> list[Any]:
    """At most `limit` items, read lazily; one more is TooManyResults."""
    taken = list(itertools.islice(items, limit + 1))
    if len(taken) > limit:
        raise TooManyResults(limit)
    return taken


def render(
    form: str,
    result: Any,
    fmt: str,
    max_results: int,
    prefixes: Mapping[str, str],
    variables: Sequence[str] | None = None,
    *,
    max_bytes: int | None = None,
) -> str:
    """The body of a query result: solutions, a boolean or triples, written as `fmt`.

    `result` is what Oxigraph returns for the form (QuerySolutions, QueryBoolean, an iterable of
    Triples); SELECT takes its variables from `result.variables` unless given. A body longer than
    `max_bytes` (UTF-8) is ResultTooLarge. Oxigraph's result iterators may only be dropped by the
    thread that made them, so on an error neither this frame nor the ones below keep `result`
    alive in the traceback (it could be collected anywhere).
    """
    try:
        if form == "ASK":
            return write_boolean(bool(result), fmt)
        if form == "SELECT":
            names = variables or [v.value for v in result.variables]
            rows = [list(row) for row in bounded(result, max_results)]
            return within_bytes(write_solutions(names, rows, fmt), max_bytes)
        return within_bytes(write_graph(bounded(result, max_results), fmt, prefixes), max_bytes)
    except BaseException as exc:
        del result
        traceback.clear_frames(exc.__traceback__)
        raise


def within_bytes(body: str, limit: int | None) -> str:
    """`body` when its UTF-8 form is at most `limit` bytes (no limit: None), else ResultTooLarge
    naming both sizes."""
    if limit is None or len(body) * 4 <= limit:  # no character is more than 4 bytes
        return body
    size = len(body.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise ResultTooLarge(limit, size)
    return body


def write_boolean(value: bool, fmt: str) -> str:
    """An ASK result as SPARQL JSON or XML."""
    if fmt == "json":
        return json.dumps({"head": {}, "boolean": value})
    return (
        f'<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="{RESULTS_NS}">'
        f"<head/><boolean>{'true' if value else 'false'}</boolean></sparql>\n"
    )


def write_solutions(names: Sequence[str], rows: Sequence[Sequence[Term | None]], fmt: str) -> str:
    """SELECT rows (one term or None per variable) as SPARQL JSON, XML, CSV or TSV."""
    if fmt == "json":
        bindings = [
            {
                name: _json_term(term)
                for name, term in zip(names, row, strict=True)
                if term is not None
            }
            for row in rows
        ]
        head = {"vars": list(names)}
        return json.dumps({"head": head, "results": {"bindings": bindings}}, ensure_ascii=False)
    if fmt == "xml":
        return _xml_solutions(names, rows)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow(names)
        writer.writerows([_csv_value(term) for term in row] for row in rows)
        return out.getvalue()
    if fmt == "tsv":
        lines = ["\t".join(f"?{name}" for name in names)]
        lines += ["\t".join("" if term is None else str(term) for term in row) for row in rows]
        return "\n".join(lines) + "\n"
    raise ValueError(f"unknown results format {fmt!r}")


def _json_term(term: Term) -> dict[str, Any]:
    if isinstance(term, ox.NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, ox.BlankNode):
        return {"type": "bnode", "value": term.value}
    if isinstance(term, ox.Literal):
        out: dict[str, Any] = {"type": "literal", "value": term.value}
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype.value != XSD_STRING:
            out["datatype"] = term.datatype.value
        return out
    parts = {"subject": term.subject, "predicate": term.predicate, "object": term.object}
    return {"type": "triple", "value": {k: _json_term(v) for k, v in parts.items()}}


def _xml_term(term: Term) -> str:
    if isinstance(term, ox.NamedNode):
        return f"<uri>{escape(term.value)}</uri>"
    if isinstance(term, ox.BlankNode):
        return f"<bnode>{escape(term.value)}</bnode>"
    if isinstance(term, ox.Literal):
        if term.language:
            attribute = f" xml:lang={quoteattr(term.language)}"
        elif term.datatype.value not in (XSD_STRING, RDF_LANG_STRING):
            attribute = f" datatype={quoteattr(term.datatype.value)}"
        else:
            attribute = ""
        return f"<literal{attribute}>{escape(term.value)}</literal>"
    parts = (("subject", term.subject), ("predicate", term.predicate), ("object", term.object))
    return "<triple>" + "".join(f"<{k}>{_xml_term(v)}</{k}>" for k, v in parts) + "</triple>"


def _xml_solutions(names: Sequence[str], rows: Sequence[Sequence[Term | None]]) -> str:
    out = [f'<?xml version="1.0" encoding="utf-8"?>\n<sparql xmlns="{RESULTS_NS}">\n<head>']
    out += [f"<variable name={quoteattr(name)}/>" for name in names]
    out.append("</head>\n<results>")
    for row in rows:
        cells = "".join(
            f"<binding name={quoteattr(name)}>{_xml_term(term)}</binding>"
            for name, term in zip(names, row, strict=True)
            if term is not None
        )
        out.append(f"<result>{cells}</result>")
    out.append("</results>\n</sparql>\n")
    return "\n".join(out)


def _csv_value(term: Term | None) -> str:
    if term is None:
        return ""
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, ox.NamedNode | ox.Literal):
        return term.value
    return str(term)


def write_graph(triples: Sequence[ox.Triple], fmt: str, prefixes: Mapping[str, str]) -> str:
    """CONSTRUCT / DESCRIBE triples as Turtle, N-Triples or RDF/XML (Oxigraph's writers) or
    JSON-LD (rdflib's, compacted with a context of the prefixes), using the declared prefixes."""
    written = {p: ns for p, ns in prefixes.items() if p not in UNWRITTEN_PREFIXES}
    if fmt == "json-ld":
        graph = Graph()
        for prefix, ns in written.items():
            graph.bind(prefix, ns, override=True, replace=True)
        lines = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b""
        graph.parse(data=lines.decode("utf-8"), format="nt")
        return graph.serialize(format="json-ld", context=written, indent=1, sort_keys=True)
    data = ox.serialize(triples, format=GRAPH_WRITERS[fmt], prefixes=written) or b""
    return data.decode("utf-8")
