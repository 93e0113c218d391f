"""The quiz's own words in each language: prompts, option labels and explanations' phrases.

Every question is built in Portuguese and English from these templates and the KB's pt/en labels
(cards, concepts, formats, rules). Quoted document text stays as the document wrote it.
"""

from __future__ import annotations

LANGS = ("pt", "en")

WORDS: dict[str, dict[str, str]] = {
    "pt": {
        "true": "Verdadeiro",
        "false": "Falso",
        "yes": "Sim",
        "no": "Não",
        "inherent": "Inerente",
        "non-inherent": "Não-inerente",
        "true_or_false": "Verdadeiro ou falso? ({where})",
        "statement_true": "Verdadeiro: é a frase do documento ({node}).",
        "statement_false_removed": "Falso: a afirmação tirou um «não»; o documento ({node}) diz: «{text}»",
        "statement_false_added": "Falso: a afirmação acrescentou um «não»; o documento ({node}) diz: «{text}»",
        "claim_explained": "{verdict}: o documento diz «{sentence}» ({node}).",
        "order_first": "{where}: qual destes vem primeiro?",
        "order_next": "{where}: o que vem logo depois de «{previous}»?",
        "order_first_why": "É o primeiro de {total} passos ({node}).",
        "order_next_why": "É o passo {number} de {total}, logo depois de «{previous}» ({node}).",
        "substep": "Sub-etapa {number} — {text}",
        "damage_step": "{where}: em qual sub-etapa da Etapa de Dano acontece isto?",
        "summon_made_by": "feita por {name}",
        "summon_of": "de {name}",
        "summon": "Segundo as regras, a Invocação-Especial {whose} é inerente ou não-inerente?",
        "summon_exception": " (listado entre as exceções)",
        "summon_explained": "{kind}: {name} aparece em «{listed}»{note}: «{text}» ({node}).",
        "according": "Segundo as regras, {text}",
        "negatable_by": "uma {s} pode ser negada por cards de {o}?",
        "starts_chain": "uma {s} inicia uma Corrente?",
        "can_respond_to": "um efeito de {s} pode ser ativado em resposta a um efeito de {o}?",
        "fact_explained": "{verdict}{via}: «{text}» ({node}).",
        "capability": "Segundo as regras, qual destes cards tem a capacidade «{capability}»?",
        "capability_explained": (
            "{name}: «{text}» ({node}). Os outros não têm essa capacidade nos dados de cards do KB."
        ),
        "speed": "Qual é a Velocidade de Magia de {what}?",
        "speed_explained": "{kind}: {speed}: «{text}» ({node}).",
        "rule_title": "Regra #{number} — {name}",
        "machine_translated": (
            "Atenção: o trecho citado vem de uma tradução automática; a redação pode não ser a "
            "oficial (o sentido da regra é o do documento)."
        ),
    },
    "en": {
        "true": "True",
        "false": "False",
        "yes": "Yes",
        "no": "No",
        "inherent": "Inherent",
        "non-inherent": "Non-inherent",
        "true_or_false": "True or false? ({where})",
        "statement_true": "True: it is the document's sentence ({node}).",
        "statement_false_removed": "False: the statement removed a negation; the document ({node}) says: «{text}»",
        "statement_false_added": "False: the statement added a negation; the document ({node}) says: «{text}»",
        "claim_explained": "{verdict}: the document says «{sentence}» ({node}).",
        "order_first": "{where}: which of these comes first?",
        "order_next": "{where}: what comes right after «{previous}»?",
        "order_first_why": "It is the first of {total} steps ({node}).",
        "order_next_why": "It is step {number} of {total}, right after «{previous}» ({node}).",
        "substep": "Sub-step {number} — {text}",
        "damage_step": "{where}: in which sub-step of the Damage Step does this happen?",
        "summon_made_by": "performed by {name}",
        "summon_of": "of {name}",
        "summon": "According to the rules, is the Special Summon {whose} inherent or non-inherent?",
        "summon_exception": " (listed among the exceptions)",
        "summon_explained": "{kind}: {name} appears in «{listed}»{note}: «{text}» ({node}).",
        "according": "According to the rules, {text}",
        "negatable_by": "can a {s} be negated by {o} cards?",
        "starts_chain": "does a {s} start a Chain?",
        "can_respond_to": "can an effect of {s} be activated in response to an effect of {o}?",
        "fact_explained": "{verdict}{via}: «{text}» ({node}).",
        "capability": "According to the rules, which of these cards has the capability «{capability}»?",
        "capability_explained": (
            "{name}: «{text}» ({node}). The others lack that capability in the KB's card data."
        ),
        "speed": "What is the Spell Speed of {what}?",
        "speed_explained": "{kind}: {speed}: «{text}» ({node}).",
        "rule_title": "Rule #{number} — {name}",
        "machine_translated": (
            "Note: the quoted passage comes from a machine translation; its wording may not be the "
            "official one (the rule's meaning is the document's)."
        ),
    },
}


def say(lang: str, key: str, **fields: object) -> str:
    """The template `key` in `lang`, filled with `fields`."""
    return WORDS[lang][key].format(**fields)


def both(key: str, **fields: object) -> dict[str, str]:
    """The template `key` in every language, filled with the same fields."""
    return {lang: say(lang, key, **fields) for lang in LANGS}
