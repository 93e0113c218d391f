"""Names the KB does not know (kb/reading/scope.Vocabulary): sentence openers are no names."""

from __future__ import annotations

from kb.reading.scope import Vocabulary


def test_an_auxiliary_opening_a_sentence_is_no_name() -> None:
    vocab = Vocabulary(frozenset({"monsters"}))
    text = "I control no monsters at all. Am I still allowed to enter?"
    assert vocab.unknown_names(text, []) == []
    assert vocab.unknown_names("Can I chain Dark Nibiru Lord to it?", []) == ["Dark Nibiru Lord"]


def test_a_word_the_reader_gives_a_role_is_never_off_topic() -> None:
    from kb.reading.relevance import Relevance

    relevance = Relevance(frozenset({"flip", "damag", "step", "efeit"}), frozenset({"flip"}))
    reading = relevance.read("Should Flip effects be able to bake in the Damage Step?", [])
    assert "able" in reading.content and "able" not in reading.off_topic  # "able to": a modal
    assert "bake" in reading.off_topic  # a word no rule text uses stays off


def test_a_rule_word_in_another_inflection_or_in_english_is_known() -> None:
    from kb.reading.relevance import Relevance

    relevance = Relevance(frozenset({"us", "entr"}), frozenset({"usar", "entrar"}))
    assert relevance.known("usou")  # a past form of "usar": the lemma is a rule word
    assert relevance.known("entering")  # the language data bridges "enter" to "entrar"
    assert not relevance.known("baking")
    words = Relevance(frozenset({"reconhec", "mei"}), frozenset({"reconhecidos", "meio"}))
    assert words.known("recognized") and words.known("middle")  # however short "mei" is


def test_numbers_and_ordinals_are_understood() -> None:
    from kb.reading.relevance import Relevance

    relevance = Relevance(frozenset({"jog"}), frozenset({"jogar"}))
    reading = relevance.read("Sou o terceiro a jogar?", [])
    assert "terceiro" in reading.content and not reading.off_topic


def test_a_party_shared_with_a_statement_is_not_what_it_is_about() -> None:
    """A party ("my opponent" in the question, "seu adversário" in a rule) says who, not what: a
    statement sharing only a party with the question does not speak to it; a concept under the
    duelist's in the graph is a party, another concept is not."""
    from kb.graph import KnowledgeGraph
    from kb.model import Fact, Mention, Node
    from kb.reading.relevance import Relevance, party_concepts

    nodes = [
        Node("concept/duelist", "Concept", label_en="Duelist"),
        Node("concept/opponent", "Concept", label_en="Opponent"),
        Node("concept/owner", "Concept", label_en="Owner"),
        Node("concept/chain", "Concept", label_en="Chain"),
    ]
    facts = [
        Fact("concept/opponent", "broader", "concept/duelist", None, "curated"),
        Fact("concept/owner", "broader", "concept/opponent", None, "curated"),
    ]
    kg = KnowledgeGraph(nodes, facts)
    parties = party_concepts(kg)
    assert parties == {"concept/duelist", "concept/opponent", "concept/owner"}
    relevance = Relevance(frozenset({"chain"}), frozenset({"chain"}), party_concepts=parties)
    text = "Can my opponent build a chain?"
    mentions = [
        Mention("concept/opponent", text.index("opponent"), text.index(" build"), "opponent"),
        Mention("concept/chain", text.index("chain"), text.index("?"), "chain"),
    ]
    reading = relevance.read(text, mentions)
    assert reading.parties == {"concept/opponent"}
    rule = "Você deve perguntar ao seu adversário antes de resolver."
    assert not relevance.shares_predicate(reading, [rule], ["concept/opponent"])
    assert relevance.shares_predicate(reading, [rule], ["concept/opponent", "concept/chain"])
