"""The wording patterns the mechanics inference reads, in English and in Portuguese.

Card texts follow a fixed grammar (Konami's "Problem-Solving Card Text"): a condition ends with a
colon, a cost or target ends with a semicolon, a Quick Effect says "(Quick Effect)", a summoning
procedure is a sentence with neither. A `Lexicon` names the phrases of one language; the clause
analysis (`effects.py`) and the mechanics (`mechanics.py`) only read its patterns. Quoted card
names are masked before matching: the card's own name becomes OWNCARD, any other NAMEDCARD.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OWN = "OWNCARD"
NAMED = "NAMEDCARD"
_I = re.IGNORECASE


def _re(pattern: str, flags: int = _I) -> re.Pattern[str]:
    return re.compile(pattern, flags)


@dataclass(frozen=True)
class Lexicon:
    """The patterns of one language (compiled regular expressions)."""

    language: str
    quick: re.Pattern[str]  # the Quick Effect marker
    flip: re.Pattern[str]  # a Flip effect's opening
    either_turn: re.Pattern[str]  # old wording of a Quick Effect
    meta: re.Pattern[str]  # once-per-turn notes that are not effects
    restriction: re.Pattern[str]  # summoning conditions and restrictions (not effects)
    no_special: re.Pattern[str]  # "Cannot be Special Summoned" (nothing else)
    must_special: re.Pattern[str]  # a Nomi/Semi-Nomi summoning condition
    by_other_card: re.Pattern[str]  # summoned only by another (named) card's effect
    contact: re.Pattern[str]  # a Fusion Monster summoned without a Fusion Spell
    inherent: re.Pattern[str]  # "you can Special Summon this card (from your hand)"
    self_summon: re.Pattern[str]  # an effect that Special Summons this card
    you_can: re.Pattern[str]
    once_per: re.Pattern[str]  # a leading "Once per turn," of a condition
    main_phase: re.Pattern[str]  # a Main Phase window (ignition, not a trigger)
    either_choice: re.Pattern[str]  # "you can either:" (a Union's ignition effect)
    event: re.Pattern[str]  # an event in a condition (a trigger)
    timing: re.Pattern[str]  # a phase or step start/end in a condition (a trigger)
    opens_condition: re.Pattern[str]  # old wording: "When/If …, <effect>"
    replacement: re.Pattern[str]  # "would … instead" (a continuous replacement effect)
    cost_first: re.Pattern[str]  # old wording of an ignition effect: "Send 1 card …, and …"
    action_first: re.Pattern[str]  # an imperative action: a Spell/Trap's activation, not lasting
    tied: re.Pattern[str]  # a sentence that qualifies the effect before it (not an effect)
    lasting: re.Pattern[str]  # a consequence that is a lasting state (continuous)
    negate_summon: re.Pattern[str]
    negate_special: re.Pattern[str]
    special_only: re.Pattern[str]  # a condition on Special Summons …
    any_summon: re.Pattern[str]  # … unless it names other Summons too
    negate_activation: re.Pattern[str]
    negate_effects: re.Pattern[str]
    drawback: re.Pattern[str]  # a summoned monster's effects negated (not a negation card)
    not_negating: re.Pattern[str]  # "cannot be negated", "If you negate …" (no negation)
    spell_trap: re.Pattern[str]
    spell: re.Pattern[str]
    trap: re.Pattern[str]
    monster: re.Pattern[str]
    any_card: re.Pattern[str]  # "a card or effect": all three kinds
    pay: re.Pattern[str]  # an LP cost with its amount (group 1)
    pay_activation: re.Pattern[str]
    maintenance: re.Pattern[str]
    stats: re.Pattern[str]  # an ATK/DEF change


ENGLISH = Lexicon(
    language="en",
    quick=_re(r"\(Quick Effect\)"),
    flip=_re(r"^FLIP\s*:", 0),
    either_turn=_re(r"\bduring either player's turn\b"),
    meta=_re(
        r"^(?:you|each player) can only (?:use|activate|special summon|control|have)\b"
        r"|^this card'?s? name becomes\b|^this card is (?:always )?treated as\b"
        r"|^\(?this card is also still a\b|^cannot be negated\b|^equip only to\b"
    ),
    restriction=_re(
        r"^(?:this card )?(?:cannot|can not) be (?:normal |special |flip |tribute )?summoned\b"
        r"|^(?:this card )?(?:cannot|can not) be (?:normal summoned|set)\b"
        r"|^(?:this card )?must (?:first )?be (?:either )?\w+ summoned\b"
        r"|^(?:this card )?(?:can )?only be special summoned\b"
        r"|^this card can only be \w+ summoned\b"
        r"|^you can ritual summon this card\b|^to tribute summon this card\b"
        r"|\bcan (?:be )?normal summon(?:ed)? (?:this card )?without tributing\b"
        r"|^cannot be used as (?:\w+ )?material\b"
    ),
    no_special=_re(r"^(?:this card )?cannot be special summoned\.?$"),
    must_special=_re(r"\bmust (?:first )?be special summoned\b"),
    by_other_card=_re(
        rf"\b(?:with|by|except (?:with|by)) (?:the effect of |an? )?{NAMED}"
        rf"|\bexcept (?:with|by) (?:the effect of )?(?:a |an )?{NAMED}"
    ),
    contact=_re(
        r"\bmust (?:first )?be special summoned\b|\(you do not use\b"
        r"|\bspecial summon(?:ed)? (?:from your extra deck )?by (?:sending|shuffling|banishing"
        r"|returning|tributing|removing)\b"
    ),
    inherent=_re(
        r"\byou can special summon this card\b|\bspecial summon this card \(from\b"
        r"|\bthen special summon this card\b"
    ),
    self_summon=_re(
        rf"\bspecial summon (?:(?:1|up to \d+) )?(?:this (?:[\w-]+ ){{0,2}}card|{OWN})\b"
        r"|\bthis card and special summon it\b|\bunequip (?:this card|it) (?:and|to) special summon\b"
    ),
    you_can=_re(r"\byou can\b"),
    once_per=_re(
        r"^(?:once per (?:turn|chain|duel)|once while (?:this card is )?face-up on the field)"
        r"\s*,?\s*"
    ),
    main_phase=_re(
        r"^(?:during|in) (?:your|the|each player's|either player's) main phase(?: \d)?$"
    ),
    either_choice=_re(r"\byou can either\b"),
    event=_re(
        r"\b(?:is|are|gets?|becomes?|would be)\s+(?:[\w/()'-]+[\s,]+){0,4}?"
        r"(?:summoned|set|sent|destroyed|banished|removed|flipped|added|discarded|returned|"
        r"targeted|attacked|detached|tributed|used|activated|drawn|shuffled|equipped|negated|"
        r"changed|revealed|excavated|placed|chosen|selected|inflicted|unequipped|moved|declared|"
        r"released|excavated|milled)\b"
        r"|\b(?:declares?|attacks?|battles?|inflicts?|takes?|activates?|leaves?|draws?|resolves?|"
        r"discards?|sends?|banishes?|adds?|receives?|gains?|pays?|loses?|would|flips?|detaches?|"
        r"tributes?|destroys?|equips?|(?:normal |special |tribute |flip |fusion |synchro |xyz |link |"
        r"ritual |pendulum )?summons|Sets)\b"
        r"|\beach time\b|\bis (?:flipped )?face-up\b"
    ),
    timing=_re(
        r"^(?:during|at the (?:start|end|beginning) of) (?:the |your |each |either player's |"
        r"your opponent's |the next |your next )*(?:standby|end|draw|battle) phase\b"
        r"|^at the (?:start|end|beginning) of the (?:damage step|battle phase|damage calculation)\b"
        r"|^(?:during|at the end of) the damage step\b|^each time\b"
    ),
    opens_condition=_re(r"^(?:when|if|each time|whenever|after)\b"),
    replacement=_re(r"\bwould\b.*\binstead\b"),
    cost_first=_re(r"^(?:send|discard|tribute|pay|banish|remove|offer|select|target) \S"),
    action_first=_re(
        r"^(?:send|discard|tribute|pay|banish|remove|offer|select|target|destroy|draw|add|"
        r"special summon|inflict|return|shuffle|excavate|look at|reveal|toss|roll|take control|"
        r"change|place|declare|choose|fusion summon|ritual summon|set|activate|apply|move) "
    ),
    tied=_re(
        r"^(?:it|its|they|their|that (?:monster|target|card)|those (?:monsters|targets|cards)) "
        r"|^(?:otherwise|then)\b|^(?:if|when) (?:you call it|the result|you do|you did|it is|it was|"
        r"they are|that card|that monster|the (?:revealed|excavated|drawn|sent|destroyed|banished|"
        r"selected|targeted|called|declared))\b"
        r"|\b(?:the turn you (?:activate|special summon|use)|during the turn you (?:activate|"
        r"special summon|use)|summoned this way|to activate and to resolve|(?:by|with|of) this "
        r"effect|these tokens|those tokens|cannot activate the following effects?|this effect can only|used as "
        r"(?:a )?(?:\w+ )?material)\b"
    ),
    lasting=_re(
        r"\b(?:cannot|can't|is unaffected|are unaffected|must|is treated|are treated|is also|"
        r"are also|gains? \d+ (?:ATK|DEF)|loses? \d+ (?:ATK|DEF)|can attack)\b"
    ),
    negate_summon=_re(r"\bnegate (?:the |that |its |their )?(?:normal |flip |tribute )?summon\b"),
    negate_special=_re(r"\bnegate (?:the |that |its |their )?special summon"),
    special_only=_re(r"\bspecial summon"),
    any_summon=_re(r"\b(?:normal|flip|tribute)\b|\bwould be summoned\b"),
    negate_activation=_re(
        r"\bnegate (?:the |that |its |their )?(?:[\w/-]+ ){0,2}activation|"
        r"\bactivations? (?:is|are) negated\b|\bnegate the summon or activation\b"
    ),
    negate_effects=_re(
        r"\bnegate (?:the |that |its |their |all |any |an? |that card's |the card's )?"
        r"(?:[\w/,'’\-]+ (?:and |or )?){0,6}?effects?\b"
        r"|\beffects? (?:is|are) negated\b|\b(?:has|have) (?:its|their) effects? negated\b"
        r"|\bnegate [^;.]*?\b(?:and/or|or) (?:an?|the) (?:card )?effects? that\b"
    ),
    drawback=_re(
        r"\bspecial summon\b.*\b(?:its|their) effects? (?:is|are) negated\b"
        r"|\bspecial summon\b.*\bwith (?:its|their) effects? negated\b"
        r"|\bspecial summon\b.*\b(?:has|have) (?:its|their) effects? negated\b"
    ),
    not_negating=_re(
        r"\bcannot be negated\b|\b(?:if|when|each time) (?:you|your opponent|a player|it|this card) "
        r"negates?\b"
    ),
    spell_trap=_re(r"\bspells?/traps?\b|\bspell (?:card|or|and) trap\b|\bspell, trap\b"),
    spell=_re(r"\bspells?\b"),
    trap=_re(r"\btraps?\b"),
    monster=_re(
        r"\bmonster(?:'s)? effects?\b|\beffect monster|\bmonsters? (?:activates?|on the field activates)"
    ),
    any_card=_re(r"\bcards? or effects?\b|\bcard effects?\b|\ban effect\b"),
    pay=_re(r"\bpay(?:s|ing)?\s+(\d+)\s+(?:LP|Life Points)\b"),
    pay_activation=_re(r"\bactivate this card by paying\s+\d+"),
    maintenance=_re(
        r"\b(?:or|otherwise) (?:destroy this card|this card is destroyed|send this card)\b"
        r"|\bnot optional\b|\bmaintain\b|\beach of (?:your|their) standby phases\b"
    ),
    stats=_re(
        r"\b(?:gain|gains|lose|loses)\s+(?:exactly\s+)?(?:\d+|X|that much|half (?:its|their) )?"
        r"\s*(?:ATK|DEF|original ATK)\b"
        r"|\b(?:ATK|DEF)(?:/DEF)?\s+(?:becomes?|is halved|are halved|is doubled|are doubled|"
        r"become halved|becomes halved|becomes doubled|is reduced|are reduced|is increased)\b"
        r"|\b(?:increase|decrease|reduce|halve|double|increases|decreases|reduces|halves|doubles)"
        r"\s+(?:the\s+|its\s+|their\s+)?(?:original\s+)?(?:ATK|DEF)\b"
        r"|\b(?:ATK|DEF) (?:of|for) [^.;:]{0,40}\b(?:become|becomes)\b"
        r"|\bchange (?:its|the|their) (?:original )?(?:ATK|DEF)\b"
    ),
)

PORTUGUESE = Lexicon(
    language="pt",
    quick=_re(r"\(Efeito R[áa]pido\)"),
    flip=_re(r"^VIRE\s*:", 0),
    either_turn=_re(r"\bdurante o turno de qualquer (?:duelista|jogador)\b"),
    meta=_re(
        r"^voc[êe] s[óo] pode (?:usar|ativar|invocar|controlar)\b|^este card (?:é|e) sempre tratado\b"
    ),
    restriction=_re(
        r"^(?:este card )?n[ãa]o pode ser invocad[oa]\b"
        r"|^(?:primeiro )?(?:este card )?deve (?:primeiro )?ser invocad[oa]\b"
        r"|^voc[êe] pode invocar este card por invoca[çc][ãa]o-ritual\b"
        r"|^n[ãa]o pode ser usad[oa] como mat[ée]ria\b"
    ),
    no_special=_re(r"^(?:este card )?n[ãa]o pode ser invocad[oa] por invoca[çc][ãa]o-especial\.?$"),
    must_special=_re(r"\bdeve (?:primeiro )?ser invocad[oa] por invoca[çc][ãa]o-especial\b"),
    by_other_card=_re(
        rf"\b(?:com|pelo efeito de|exceto (?:com|pelo efeito de)) (?:um |uma )?{NAMED}"
    ),
    contact=_re(
        r"\bdeve (?:primeiro )?ser invocad[oa] por invoca[çc][ãa]o-especial\b"
        r"|\(voc[êe] n[ãa]o usa\b"
    ),
    inherent=_re(
        r"\bvoc[êe] pode invocar este card por invoca[çc][ãa]o-especial\b"
        r"|\binvocar? este card por invoca[çc][ãa]o-especial \(d"
    ),
    self_summon=_re(
        rf"\b(?:invocar?|invoque) (?:este (?:[\w-]+ ){{0,2}}card|1? ?{OWN}) por invoca[çc][ãa]o-especial\b"
    ),
    you_can=_re(r"\bvoc[êe] pode\b"),
    once_per=_re(r"^uma vez por (?:turno|corrente|duelo)\s*,?\s*"),
    main_phase=_re(r"^durante (?:a sua|a|sua) fase principal(?: \d)?$"),
    either_choice=_re(r"\bvoc[êe] pode escolher entre\b"),
    event=_re(
        r"\b(?:for|forem|[ée]|s[ãa]o|seria|seriam)\s+(?:[\w/()'-]+[\s,]+){0,4}?"
        r"(?:invocad|enviad|destru[íi]d|banid|virad|adicionad|descartad|devolvid|escolhid|"
        r"atacad|ativad|baixad|oferecid|removid)\w*"
        r"|\b(?:declarar|atacar|batalhar|causar|sofrer|ativar|invocar|destruir|sair do campo|"
        r"deixar o campo|comprar|invocaria|invocariam)\b|\bcada vez que\b"
    ),
    timing=_re(
        r"^(?:durante|no in[íi]cio d[ao]|no final d[ao]) (?:a |sua |seu |cada |pr[óo]xima )*"
        r"(?:fase de apoio|fase final|fase de compra|fase de batalha|etapa de dano)\b"
        r"|^cada vez que\b"
    ),
    opens_condition=_re(r"^(?:quando|se|cada vez que|sempre que|depois)\b"),
    replacement=_re(r"\bseria\b.*\bem vez disso\b"),
    cost_first=_re(r"^(?:envie|descarte|ofere[çc]a|pague|bana|escolha|selecione) \S"),
    action_first=_re(
        r"^(?:envie|descarte|ofere[çc]a|pague|bana|escolha|selecione|destrua|compre|adicione|"
        r"invoque|cause|devolva|embaralhe|revele|jogue|tome o controle|mude|coloque|declare|ative|"
        r"aplique|baixe) "
    ),
    tied=_re(
        r"\b(?:no turno em que voc[êe] ativar|invocad[oa] desta forma|para ativar e resolver|"
        r"por este efeito|estas fichas|esses tokens|os seguintes efeitos)\b"
    ),
    lasting=_re(r"\b(?:n[ãa]o pode|n[ãa]o podem|n[ãa]o [ée] afetad|deve|ganha \d+|perde \d+)\b"),
    negate_summon=_re(r"\bnegue a invoca[çc][ãa]o\b(?!-especial)"),
    negate_special=_re(r"\bnegue a invoca[çc][ãa]o-especial\b"),
    special_only=_re(r"\binvoca[çc][ãa]o-especial\b|\binvocaria\b.*\bespecial\b"),
    any_summon=_re(r"\binvoca[çc][ãa]o-(?:normal|por-invers[ãa]o|tributo)\b|\bseriam? invocad"),
    negate_activation=_re(
        r"\bnegue (?:a |sua |essa )?(?:[\w/-]+ ){0,2}ativa[çc][ãa]o|\bativa[çc][ãa]o [ée] negada\b"
        r"|\bnegue a invoca[çc][ãa]o ou ativa[çc][ãa]o\b"
    ),
    negate_effects=_re(
        r"\bnegue (?:o |os |esse |seu |seus |todos os |quaisquer )?(?:[\w/,\-]+ ){0,6}?efeitos?\b"
        r"|\befeitos? (?:[ée]|s[ãa]o) negados?\b|\bt[êe]m (?:seus|os) efeitos negados\b"
    ),
    drawback=_re(r"\binvoca[çc][ãa]o-especial\b.*\b(?:seus|os) efeitos? (?:s[ãa]o|[ée]) negad"),
    not_negating=_re(r"\bn[ãa]o pode(?:m)? ser negad|\bse voc[êe] negar\b"),
    spell_trap=_re(r"\bmagia/armadilha\b|\bmagia ou armadilha\b"),
    spell=_re(r"\bmagias?\b"),
    trap=_re(r"\barmadilhas?\b"),
    monster=_re(r"\befeitos? de monstro\b|\bmonstro de efeito\b"),
    any_card=_re(r"\bcard ou efeito\b|\befeito de card\b|\bum efeito\b"),
    pay=_re(r"\bpag(?:ar|ue|a|am|ando)\s+(\d+)\s+(?:PV|Pontos de Vida)\b"),
    pay_activation=_re(r"\bative este card (?:ao|pagando) pag(?:ar)?\s*\d+"),
    maintenance=_re(
        r"\bn[ãa]o [ée] opcional\b|\bou (?:destrua este card|este card [ée] destru[íi]do)\b"
    ),
    stats=_re(
        r"\b(?:ganha|ganham|perde|perdem)\s+(?:\d+\s+de\s+)?(?:ATK|DEF)\b"
        r"|\b(?:ATK|DEF)(?:/DEF)?\s+(?:original\s+)?(?:se torna|se tornam|torna-se|[ée] reduzid|"
        r"[ée] dividid|[ée] dobrad)"
        r"|\b(?:aumente|diminua|reduza|dobre|divida)\s+(?:o\s+)?(?:ATK|DEF)\b"
    ),
)

LEXICONS = {"en": ENGLISH, "pt": PORTUGUESE}
