"""Checks for the curated card table ``corpus/cards.yaml``.

Two groups of tests:

* schema invariants of the table itself (always run);
* agreement with third-party card data (``shared/carddata/cards_en_pt.sqlite``,
  found beside the repository checkout).  The database is only *read* at test
  time; nothing from it is stored in the repository.  These tests are skipped
  when the folder is absent.
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata
from pathlib import Path

import pytest
import yaml

from ingest.curated import CARD_TYPES, MONSTER_TYPES

REPO_ROOT = Path(__file__).resolve().parents[1]
CARDS_YAML = REPO_ROOT / "corpus" / "cards.yaml"
CARDDATA_DIR = REPO_ROOT.parent / "shared" / "carddata"
CARDDATA_DB = CARDDATA_DIR / "cards_en_pt.sqlite"

# --------------------------------------------------------------------------- vocabulary

SPELL_PROPERTIES = {"normal", "quick-play", "continuous", "field", "equip", "ritual"}
TRAP_PROPERTIES = {"normal", "continuous", "counter"}
EXTRA_DECK_TYPES = {"fusion", "synchro", "xyz", "link"}
ATTRIBUTES = {"DARK", "LIGHT", "EARTH", "WATER", "FIRE", "WIND", "DIVINE"}
RACES = {
    "Aqua",
    "Beast",
    "Beast-Warrior",
    "Creator God",
    "Cyberse",
    "Dinosaur",
    "Divine-Beast",
    "Dragon",
    "Fairy",
    "Fiend",
    "Fish",
    "Illusion",
    "Insect",
    "Machine",
    "Plant",
    "Psychic",
    "Pyro",
    "Reptile",
    "Rock",
    "Sea Serpent",
    "Spellcaster",
    "Thunder",
    "Warrior",
    "Winged Beast",
    "Wyrm",
    "Zombie",
}
SPECIAL_SUMMON = {"inherent", "non-inherent"}
EFFECT_TYPES = {"ignition", "trigger", "quick", "continuous", "flip"}
NEGATES = {
    "summon",
    "special-summon",
    "spell-activation",
    "trap-activation",
    "monster-effect-activation",
    "effects",
    "spell-effects",
    "trap-effects",
    "monster-effects",
}

REQUIRED_KEYS = {"id", "en", "pt", "aliases", "card_type"}
MONSTER_KEYS = {"monster_types", "attribute", "race", "level", "special_summon", "effect_types"}
ALLOWED_KEYS = REQUIRED_KEYS | MONSTER_KEYS | {"property", "negates", "traits", "lp_cost"}

# Entries whose English name is (knowingly) not in the card database, with the reason.
NOT_IN_CARD_DB = {
    "fluff-token": "a Token made by Dandylion, not a card; the database lists cards only",
}

# The card database writes Monster types in its own vocabulary.
DB_PROPERTY = {
    "Normal": "normal",
    "Quick-Play": "quick-play",
    "Continuous": "continuous",
    "Field": "field",
    "Equip": "equip",
    "Ritual": "ritual",
    "Counter": "counter",
}
DB_MONSTER_TYPE = {
    "Normal": "normal",
    "Effect": "effect",
    "Fusion": "fusion",
    "Ritual": "ritual",
    "Synchro": "synchro",
    "Xyz": "xyz",
    "Link": "link",
    "Pendulum": "pendulum",
    "Tuner": "tuner",
    "Flip": "flip",
    "Union": "union",
    "Spirit": "spirit",
    "Toon": "toon",
    "Gemini": "gemini",
}
# "Normal"/"Effect" are sometimes missing from the database's list (e.g. Union or Normal
# Pendulum Monsters), so they are only compared when the database gives them.
NORMAL_OR_EFFECT = {"normal", "effect"}


# --------------------------------------------------------------------------- helpers


def slug(name: str) -> str:
    """lowercase ascii, accents removed, runs of non-alphanumerics -> '-'."""
    s = unicodedata.normalize("NFKD", name)
    s = "".join(c for c in s if not unicodedata.combining(c)).lower()
    s = s.encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-")


def fold(name: str) -> str:
    """Case- and accent-folding, as the linker does."""
    s = unicodedata.normalize("NFKD", name)
    s = "".join(c for c in s if not unicodedata.combining(c))
    return " ".join(s.casefold().split())


def load_table() -> dict:
    with CARDS_YAML.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


TABLE = load_table()
CARDS = TABLE["cards"]
BY_ID = {c["id"]: c for c in CARDS}


def card(card_id: str) -> dict:
    assert card_id in BY_ID, f"{card_id} missing from cards.yaml"
    return BY_ID[card_id]


# --------------------------------------------------------------------------- schema


def test_top_level():
    assert TABLE["version"] == 1
    assert isinstance(CARDS, list) and len(CARDS) > 0
    assert set(TABLE) == {"version", "cards"}


def test_file_is_utf8_and_header():
    text = CARDS_YAML.read_text(encoding="utf-8")
    assert text.startswith("# Curated card facts")
    assert "authority: curated" in text.splitlines()[0]


def test_ids_unique_and_sorted():
    ids = [c["id"] for c in CARDS]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    assert ids == sorted(ids)


@pytest.mark.parametrize("c", CARDS, ids=lambda c: c.get("id", "?"))
def test_entry_schema(c):
    keys = set(c)
    assert keys >= REQUIRED_KEYS, REQUIRED_KEYS - keys
    assert keys <= ALLOWED_KEYS, keys - ALLOWED_KEYS
    assert isinstance(c["en"], str) and c["en"].strip() == c["en"] and c["en"]
    assert c["id"] == slug(c["en"])
    assert c["pt"] is None or (isinstance(c["pt"], str) and c["pt"].strip() == c["pt"] and c["pt"])
    assert c["card_type"] in CARD_TYPES

    aliases = c["aliases"]
    assert isinstance(aliases, list)
    assert all(isinstance(a, str) and a.strip() == a and a for a in aliases)
    assert len({fold(a) for a in aliases}) == len(aliases), "duplicate aliases (after folding)"
    names = {fold(c["en"])} | ({fold(c["pt"])} if c["pt"] else set())
    redundant = [a for a in aliases if fold(a) in names]
    assert not redundant, f"aliases that only differ from en/pt by case/accents: {redundant}"

    mtypes = c.get("monster_types")
    if c["card_type"] == "monster":
        assert "property" not in c
        assert isinstance(mtypes, list) and mtypes, "monsters need monster_types"
        assert set(mtypes) <= MONSTER_TYPES - {"trap-monster"}, set(mtypes) - MONSTER_TYPES
        assert len(set(mtypes)) == len(mtypes)
        # every monster is exactly one of Normal or Effect
        assert len(set(mtypes) & NORMAL_OR_EFFECT) == 1, mtypes
        assert len(set(mtypes) & EXTRA_DECK_TYPES) <= 1, mtypes
        assert c.get("attribute") in ATTRIBUTES
        assert c.get("race") in RACES
        if "link" in mtypes:
            assert "level" not in c, "Link Monsters have no Level"
        else:
            assert isinstance(c.get("level"), int) and 1 <= c["level"] <= 13
        if "special_summon" in c:
            assert c["special_summon"] in SPECIAL_SUMMON
        if "effect_types" in c:
            et = c["effect_types"]
            assert isinstance(et, list) and et and set(et) <= EFFECT_TYPES, et
            assert len(set(et)) == len(et)
            assert "normal" not in mtypes, "Normal Monsters have no effects"
            if "flip" in et:
                assert "flip" in mtypes
    else:
        props = SPELL_PROPERTIES if c["card_type"] == "spell" else TRAP_PROPERTIES
        assert c.get("property") in props, c.get("property")
        assert "special_summon" not in c and "effect_types" not in c
        if mtypes is not None:
            # Trap Monsters: a Trap Card that Special Summons itself as a monster
            assert c["card_type"] == "trap" and mtypes == ["trap-monster"], mtypes
            assert c.get("attribute") in ATTRIBUTES
            assert c.get("race") in RACES
            assert isinstance(c.get("level"), int)
        else:
            assert not ({"attribute", "race", "level"} & keys)

    if "negates" in c:
        neg = c["negates"]
        assert isinstance(neg, list) and neg and set(neg) <= NEGATES, neg
        assert len(set(neg)) == len(neg)
        both = {"summon", "special-summon"} <= set(neg)
        assert not both, "summon already covers special-summon"


def test_names_link_to_one_entry():
    owner: dict[str, str] = {}
    clashes = []
    for c in CARDS:
        for name in [c["en"], c["pt"], *c["aliases"]]:
            if name is None:
                continue
            key = fold(name)
            if owner.setdefault(key, c["id"]) != c["id"]:
                clashes.append((name, owner[key], c["id"]))
    assert not clashes


def test_summon_classification_is_consistent_with_card_kind():
    for c in CARDS:
        mtypes = set(c.get("monster_types") or ())
        if c["card_type"] != "monster":
            continue
        if mtypes & {"synchro", "xyz", "link"}:
            assert c.get("special_summon") == "inherent", c["id"]
        if "ritual" in mtypes:
            assert c.get("special_summon") == "non-inherent", c["id"]
        if "fusion" in mtypes:
            # regular Fusions are non-inherent; Contact Fusions are inherent
            assert c.get("special_summon") in SPECIAL_SUMMON, c["id"]


# What the rulings document (001) says, as curated facts.
RULINGS_INHERENT = [
    "cyber-dragon",
    "dark-armed-dragon",
    "chaos-sorcerer",
    "spell-striker",
    "gladiator-beast-gyzarus",
    "chimeratech-fortress-dragon",
    "elemental-hero-dark-neos",
    "machina-fortress",
    "grapha-dragon-lord-of-dark-world",
]
RULINGS_NON_INHERENT = [
    "gorz-the-emissary-of-darkness",
    "tragoedia",
    "battle-fader",
    "green-baboon-defender-of-the-forest",
    "plaguespreader-zombie",
    "treeborn-frog",
    "fishborg-blaster",
    "d-d-survivor",
    "dark-simorgh",
]


@pytest.mark.parametrize("card_id", RULINGS_INHERENT)
def test_rulings_inherent(card_id):
    assert card(card_id).get("special_summon") == "inherent"


@pytest.mark.parametrize("card_id", RULINGS_NON_INHERENT)
def test_rulings_non_inherent(card_id):
    assert card(card_id).get("special_summon") == "non-inherent"


@pytest.mark.parametrize(
    "card_id",
    ["solemn-judgment", "saber-hole", "solemn-warning", "thunder-king-rai-oh", "royal-oppression"],
)
def test_rulings_negate_special_summons(card_id):
    assert {"summon", "special-summon"} & set(card(card_id).get("negates", ()))


@pytest.mark.parametrize(
    "card_id", ["divine-wrath", "herald-of-perfection", "light-and-darkness-dragon"]
)
def test_rulings_negate_effect_activations(card_id):
    neg = set(card(card_id).get("negates", ()))
    assert "monster-effect-activation" in neg
    assert not ({"summon", "special-summon"} & neg), "cannot negate inherent Special Summons"


@pytest.mark.parametrize("card_id", ["solemn-judgment", "dark-bribe"])
def test_rulings_negate_spell_trap_activations(card_id):
    assert {"spell-activation", "trap-activation"} <= set(card(card_id).get("negates", ()))


def test_document_spellings_are_aliases():
    # misspellings / half-translations used by the documents
    expected = {
        "solemn-judgment": "Solemn Judgmente",
        "mystic-tomato": "Tomates Místico",
        "magic-jammer": "Magia Jammer",
        "rush-recklessly": "Apresse Recklessly",
        "blue-eyes-white-dragon": "Blue-Eyes White dragão",
        "neo-spacian-glow-moss": "Neo-Spacian Brilho Moss",
        "gorz-the-emissary-of-darkness": "Gorz o emissário das Trevas",
        "giant-kozaky": "Gigante Kozaky",
        "ancient-gear-engineer": "Engenheiro Ancient Gear",
    }
    for card_id, alias in expected.items():
        assert alias in card(card_id)["aliases"], (card_id, alias)


# --------------------------------------------------------------------------- card database


@pytest.fixture(scope="module")
def carddb():
    if not CARDDATA_DB.is_file():
        pytest.skip(f"third-party card data not present at {CARDDATA_DIR}")
    con = sqlite3.connect(f"file:{CARDDATA_DB.as_posix()}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    yield con
    con.close()


def db_rows(con: sqlite3.Connection, name_en: str) -> list[sqlite3.Row]:
    return con.execute(
        "SELECT name_en, name_pt, card_type, property, race, monster_types, attribute, level, rank"
        " FROM cards WHERE name_en = ?",
        (name_en,),
    ).fetchall()


def one_value(rows, column):
    values = {r[column] for r in rows}
    assert len(values) == 1, f"database disagrees with itself on {column}: {values}"
    return values.pop()


def test_known_exceptions_are_still_needed(carddb):
    for card_id, reason in NOT_IN_CARD_DB.items():
        c = card(card_id)
        assert not db_rows(carddb, c["en"]), f"{card_id} is in the database now ({reason})"


def test_db_vocabulary_is_mapped(carddb):
    props = {
        r[0]
        for r in carddb.execute("SELECT DISTINCT property FROM cards WHERE card_type != 'Monster'")
    }
    assert props <= set(DB_PROPERTY), props - set(DB_PROPERTY)
    mts = set()
    query = "SELECT DISTINCT monster_types FROM cards WHERE card_type = 'Monster'"
    for (raw,) in carddb.execute(query):
        mts |= set(json.loads(raw or "[]"))
    assert mts <= set(DB_MONSTER_TYPE), mts - set(DB_MONSTER_TYPE)


@pytest.mark.parametrize(
    "c", [c for c in CARDS if c["id"] not in NOT_IN_CARD_DB], ids=lambda c: c["id"]
)
def test_card_agrees_with_card_db(carddb, c):
    rows = db_rows(carddb, c["en"])
    assert rows, f"English name {c['en']!r} not found in the card database"

    db_pt = one_value(rows, "name_pt")
    if db_pt is not None:
        assert c["pt"] == db_pt, f"pt {c['pt']!r} != database {db_pt!r}"
    else:
        assert c["pt"] is None, "no official pt-BR name in the database; use null"

    db_type = one_value(rows, "card_type").lower()
    assert c["card_type"] == db_type

    if db_type == "monster":
        db_mt = {DB_MONSTER_TYPE[t] for t in json.loads(one_value(rows, "monster_types") or "[]")}
        mine = set(c["monster_types"])
        assert mine - NORMAL_OR_EFFECT == db_mt - NORMAL_OR_EFFECT, (sorted(mine), sorted(db_mt))
        assert db_mt & NORMAL_OR_EFFECT <= mine, (sorted(mine), sorted(db_mt))
        assert c["attribute"] == one_value(rows, "attribute")
        assert c["race"] == one_value(rows, "race")
        level = one_value(rows, "level")
        rank = one_value(rows, "rank")
        if "xyz" in mine:
            assert c["level"] == rank, "xyz: level holds the Rank"
        elif "link" in mine:
            assert "level" not in c
        else:
            assert c["level"] == level
    else:
        assert c["property"] == DB_PROPERTY[one_value(rows, "property")]


# A card that "modifies ATK/DEF" (Edison rule 8) says so in its text.
_CHANGES_STATS = re.compile(
    r"(gains?|loses?|increase|decrease|halve|double|becomes?)[^.]{0,60}\b(ATK|DEF)\b"
    r"|\b(ATK|DEF)\b[^.]{0,40}(becomes|is halved|is doubled|gains|loses)",
    re.IGNORECASE,
)


@pytest.mark.parametrize(
    "c", [c for c in CARDS if "modifies-atk-def" in (c.get("traits") or [])], ids=lambda c: c["id"]
)
def test_atk_def_modifiers_change_stats_in_their_text(carddb, c):
    (text,) = {
        r[0] for r in carddb.execute("SELECT text_en FROM cards WHERE name_en = ?", (c["en"],))
    }
    assert _CHANGES_STATS.search(text or ""), text


@pytest.mark.parametrize("c", [c for c in CARDS if c.get("lp_cost")], ids=lambda c: c["id"])
def test_lp_costs_are_in_the_card_text(carddb, c):
    (text,) = {
        r[0] for r in carddb.execute("SELECT text_en FROM cards WHERE name_en = ?", (c["en"],))
    }
    amount = c["lp_cost"]["amount"]
    assert re.search(rf"\bpay(s|ing)? {amount} (LP|Life Points)\b", text or "", re.IGNORECASE), text
