"""RDF export: Turtle and JSON-LD parse back to the same graph, and builds are deterministic."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from rdflib import RDF, Graph, Literal, URIRef, namespace
from rdflib.compare import isomorphic
from rdflib.namespace import DCTERMS, PROV, SKOS
from tests_support import jsonld_graph  # type: ignore[import-not-found]

from ingest.build import build_kb
from kb.config import Settings
from kb.graph import KnowledgeGraph
from kb.linked_data.rdf import namespaces, serialize, to_rdf
from kb.model import Fact, Node, Span
from kb.service import RulingsService
from kb.store import load_artifact

if TYPE_CHECKING:
    from conftest import Built

BASE = Settings().base_iri


# The dumps are compared on the KB without the card table (conftest `lite_*`): the same code,
# 174 cards instead of 14,000.
@pytest.fixture(scope="module")
def kg(lite_built: Built) -> KnowledgeGraph:
    return lite_built.kg


@pytest.fixture(scope="module")
def service(lite_service: RulingsService) -> RulingsService:
    return lite_service


@pytest.fixture(scope="module")
def corpus_dir(lite_corpus: Path) -> Path:
    return lite_corpus


@pytest.fixture(scope="module")
def expected(kg: KnowledgeGraph) -> Graph:
    return to_rdf(kg, BASE)


@pytest.fixture(scope="module")
def from_turtle(service: RulingsService) -> Graph:
    return Graph().parse(service.export("ttl"), format="turtle")


@pytest.fixture(scope="module")
def from_jsonld(service: RulingsService) -> Graph:
    return jsonld_graph(service.export("jsonld").read_text("utf-8"))


def test_turtle_export_is_isomorphic_to_the_graph(expected: Graph, from_turtle: Graph) -> None:
    assert len(from_turtle) == len(expected) > 10_000
    assert isomorphic(from_turtle, expected)


def test_jsonld_export_is_isomorphic_to_the_graph(expected: Graph, from_jsonld: Graph) -> None:
    assert isomorphic(from_jsonld, expected)


def test_turtle_and_jsonld_agree(from_turtle: Graph, from_jsonld: Graph) -> None:
    assert isomorphic(from_turtle, from_jsonld)


def test_every_node_and_fact_is_exported(kg: KnowledgeGraph, from_turtle: Graph) -> None:
    res, voc, _ = namespaces(BASE)
    for n in kg.nodes:
        assert (res[n.id], RDF.type, voc[n.type]) in from_turtle, n.id
    fact_resources = set(from_turtle.subjects(RDF.type, voc.Fact))
    stated = [f for f in kg.facts if f.predicate != "part_of"]
    distinct = {
        (f.subject, f.predicate, f.object, f.source, f.authority, str(sorted(f.props.items())))
        for f in stated
    }
    assert len(fact_resources) == len(distinct)
    derived = {(s, o) for s, o in from_turtle.subject_objects(PROV.wasDerivedFrom)}
    assert len({s for s, _ in derived}) == sum(1 for f in distinct if f[3] is not None)


def test_resources_carry_labels_spans_and_provenance(
    kg: KnowledgeGraph, from_turtle: Graph
) -> None:
    res, voc, _ = namespaces(BASE)
    dad = res["card/dark-armed-dragon"]
    assert (dad, SKOS.prefLabel, Literal("Dark Armed Dragon", lang="en")) in from_turtle
    assert (dad, SKOS.prefLabel, Literal("Dragão Negro Armado", lang="pt")) in from_turtle
    rule = res["edison/rule-05"]
    node = kg.node("edison/rule-05")
    assert node.span is not None
    assert (
        rule,
        voc.start,
        Literal(node.span.start, datatype=namespace.XSD.integer),
    ) in from_turtle
    assert (rule, voc.document, res["edison"]) in from_turtle
    assert (rule, DCTERMS.isPartOf, res["edison"]) in from_turtle
    assert (rule, DCTERMS.identifier, Literal("5")) in from_turtle
    cyber = res["card/cyber-dragon"]
    summoned_by = voc.summonedBy
    assert (cyber, summoned_by, res["concept/inherent-special-summon"]) in from_turtle
    sources = {
        src
        for fnode in from_turtle.subjects(voc.subject, cyber)
        if (fnode, voc.predicate, summoned_by) in from_turtle
        for src in from_turtle.objects(fnode, PROV.wasDerivedFrom)
    }
    assert res["rulings/special-summon/inherent/p-04/entry-01"] in sources


def test_small_graph_round_trips_through_both_formats() -> None:
    kg = KnowledgeGraph(
        [
            Node("d", "Document", label_pt="Doc", span=Span("d", 0, 20)),
            Node(
                "d/p-01", "Passage", text="Olá “mundo”", span=Span("d", 0, 11), parent="d", order=1
            ),
            Node(
                "card/x",
                "Card",
                label_pt="X pt",
                label_en="X",
                props={"card_type": "spell", "property": "field", "aliases": ["Xis"]},
            ),
            Node("concept/y", "Concept", label_en="Y", props={"definition_en": "a y"}),
        ],
        [
            Fact("d/p-01", "part_of", "d", "d/p-01", "document"),
            Fact("d/p-01", "mentions", "card/x", "d/p-01", "document", {"start": 5, "end": 10}),
            Fact(
                "card/x",
                "instance_of",
                "concept/y",
                None,
                "curated",
                {"file": "cards.yaml", "line": 3},
            ),
        ],
    )
    g = to_rdf(kg, "http://example.org/kb")
    base = "http://example.org/kb"
    assert isomorphic(Graph().parse(data=serialize(g, "ttl", base), format="turtle"), g)
    assert isomorphic(jsonld_graph(serialize(g, "jsonld", base), base), g)
    res = namespaces("http://example.org/kb")[0]
    assert str(res["card/x"]) == "http://example.org/kb/id/card/x"
    assert (res["card/x"], SKOS.altLabel, Literal("Xis")) in g
    assert (res["d/p-01"], DCTERMS.isPartOf, res["d"]) in g
    assert not any(p == URIRef("http://example.org/kb/vocab#partOf") for _, p, _ in g)


def test_unknown_serialization_is_rejected(expected: Graph) -> None:
    with pytest.raises(ValueError, match="unknown RDF format"):
        serialize(expected, "xml", BASE)


# --- determinism -------------------------------------------------------------------------------


def test_two_builds_are_identical(lite_built: Built, corpus_dir: Path, tmp_path: Path) -> None:
    built = lite_built
    second = tmp_path / "data"
    report = build_kb(corpus_dir, second)
    again = load_artifact(second)
    assert [n.id for n in again.graph.nodes] == [n.id for n in built.kg.nodes]
    assert again.manifest["build_id"] == built.artifact.manifest["build_id"]
    assert report.path.name == built.report.path.name
    assert (second / "current" / "graph.json").read_bytes() == (
        built.data_dir / "current" / "graph.json"
    ).read_bytes()
    # Identical graphs serialize identically; the Turtle bytes themselves are compared across
    # interpreters (another build, another hash seed) in the next test.


def test_export_does_not_depend_on_the_hash_seed(
    service: RulingsService, corpus_dir: Path, tmp_path: Path
) -> None:
    """A build and export in another interpreter with another PYTHONHASHSEED: same bytes."""
    out = tmp_path / "export.ttl"
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from ingest.build import build_kb
        from kb.config import Settings
        from kb.service import RulingsService
        from kb.store import load_artifact
        data = Path({str(tmp_path / "data")!r})
        build_kb(Path({str(corpus_dir)!r}), data)
        dump = RulingsService(load_artifact(data), Settings(data_dir=data)).export("ttl")
        Path({str(out)!r}).write_bytes(dump.read_bytes())
        """
    )
    seed = "4242" if os.environ.get("PYTHONHASHSEED") != "4242" else "2424"
    env = {**os.environ, "PYTHONHASHSEED": seed}
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == service.export("ttl").read_bytes()
