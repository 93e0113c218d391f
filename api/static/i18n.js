// Page text in Portuguese and English; the choice is kept in localStorage.
// Every string that goes into the page is set with textContent or setAttribute.

const STRINGS = {
  pt: {
    skip: "Pular para o conteúdo",
    "nav.label": "Seções",
    "nav.ask": "Perguntar",
    "nav.browse": "Regras",
    "nav.cards": "Cards",
    "nav.quiz": "Quiz",
    "lang.switch": "English",
    "lang.switchLabel": "Switch to English",
    "ask.title": "Pergunte sobre uma ruling",
    "ask.lede": "Respostas com veredito, o caminho do raciocínio e as frases exatas dos documentos de regras.",
    "ask.question": "Pergunta",
    "ask.placeholder": "Ex.: Julgamento Solene pode negar a Invocação do Dragão Cibernético?",
    "ask.format": "Formato",
    "ask.submit": "Perguntar",
    "ask.examples": "Exemplos:",
    "format.all": "Todos",
    "format.general": "Geral",
    "format.edison": "Edison",
    "format.tag": "Tag Duel",
    "answer.title": "Resposta",
    "answer.verdict": "Veredito",
    "answer.confidence": "Confiança",
    "answer.format": "Formato",
    "answer.detected": "detectado",
    "answer.reasoning": "Raciocínio",
    "answer.citations": "Citações",
    "answer.entities": "Entidades reconhecidas",
    "answer.related": "Trechos mais próximos",
    "answer.none": "Nenhuma ruling encontrada na base de conhecimento.",
    "answer.source": "fonte",
    "answer.openDoc": "Ver no documento",
    "answer.score": "relevância",
    "verdict.yes": "SIM",
    "verdict.no": "NÃO",
    "verdict.null": "—",
    "verdict.yesLong": "Sim",
    "verdict.noLong": "Não",
    "verdict.nullLong": "Sem veredito",
    "search.title": "Resultados da busca",
    "search.none": "Nenhum resultado.",
    loading: "Carregando…",
    error: "Erro",
    "error.network": "Sem resposta do servidor.",
    "doc.back": "← Voltar",
    "doc.loading": "Documento",
    "doc.outline": "Seções do documento",
    "doc.outlineTitle": "Seções",
    "doc.cited": "Trecho destacado",
    "doc.chars": "caracteres",
    "doc.jump": "Ir para o trecho",
    "doc.chars_total": "caracteres no total",
    "doc.noSpan": "Nenhum trecho a destacar.",
    "node.type": "Tipo",
    "node.labels": "Nomes",
    "node.text": "Texto",
    "node.inDoc": "Ver no documento",
    "node.definition": "Definição",
    "node.properties": "Propriedades",
    "node.out": "Fatos (saindo)",
    "node.in": "Fatos (chegando)",
    "node.children": "Partes",
    "node.mentionedIn": "Mencionado em",
    "node.wiki": "Página wiki",
    "node.authority": "autoridade",
    "browse.title": "Regras por documento e tema",
    "browse.topic": "Tema",
    "browse.allTopics": "Todos os temas",
    "browse.document": "Documento",
    "browse.allDocs": "Todos os documentos",
    "browse.apply": "Filtrar",
    "browse.wiki": "Página",
    "browse.inDoc": "No documento",
    "browse.data": "Dados",
    "browse.none": "Nenhuma seção trata deste tema.",
    "browse.wikiMissing": "As páginas wiki (/rules) ainda não estão disponíveis: os links abrem a visão dos dados do nó.",
    "browse.count": "seções",
    "cards.title": "Cards",
    "cards.filter": "Filtrar por nome (pt ou en)",
    "cards.count": "cards",
    "cards.wikiMissing": "As páginas de card (/cards) ainda não estão disponíveis: os links abrem a visão dos dados do card.",
    "cardtype.monster": "Monstro",
    "cardtype.spell": "Magia",
    "cardtype.trap": "Armadilha",
    "quiz.title": "Quiz de juízes",
    "quiz.lede": "Cinco perguntas tiradas da base, com gabarito e explicação.",
    "quiz.seed": "Semente",
    "quiz.topic": "Tema",
    "quiz.family.chain": "Corrente",
    "quiz.family.damage-step": "Etapa de Dano",
    "quiz.family.spell-speed": "Velocidade de Magia",
    "quiz.family.summon": "Invocações",
    "quiz.start": "Novo quiz",
    "quiz.check": "Corrigir",
    "quiz.missing": "O quiz (/quiz) ainda não está disponível neste servidor.",
    "quiz.empty": "O quiz não trouxe perguntas.",
    "quiz.score": "Você acertou {score} de {total}.",
    "quiz.correct": "Correto",
    "quiz.wrong": "Errado",
    "quiz.expected": "Resposta",
    "quiz.yours": "Sua resposta",
    "quiz.unanswered": "(sem resposta)",
    "quiz.answer": "Sua resposta",
    "quiz.localGrade": "Correção feita na página com o gabarito do quiz (/quiz/check indisponível).",
    "quiz.question": "Pergunta",
    "footer.api": "API JSON e documentação:",
  },
  en: {
    skip: "Skip to content",
    "nav.label": "Sections",
    "nav.ask": "Ask",
    "nav.browse": "Rules",
    "nav.cards": "Cards",
    "nav.quiz": "Quiz",
    "lang.switch": "Português",
    "lang.switchLabel": "Mudar para português",
    "ask.title": "Ask a ruling question",
    "ask.lede": "Answers with a verdict, the reasoning path and the exact sentences of the rule documents.",
    "ask.question": "Question",
    "ask.placeholder": "E.g. Can Solemn Judgment negate the Summon of Cyber Dragon?",
    "ask.format": "Format",
    "ask.submit": "Ask",
    "ask.examples": "Examples:",
    "format.all": "All",
    "format.general": "General",
    "format.edison": "Edison",
    "format.tag": "Tag Duel",
    "answer.title": "Answer",
    "answer.verdict": "Verdict",
    "answer.confidence": "Confidence",
    "answer.format": "Format",
    "answer.detected": "detected",
    "answer.reasoning": "Reasoning",
    "answer.citations": "Citations",
    "answer.entities": "Recognised entities",
    "answer.related": "Nearest passages",
    "answer.none": "No ruling found in the knowledge base.",
    "answer.source": "source",
    "answer.openDoc": "Open in document",
    "answer.score": "relevance",
    "verdict.yes": "YES",
    "verdict.no": "NO",
    "verdict.null": "—",
    "verdict.yesLong": "Yes",
    "verdict.noLong": "No",
    "verdict.nullLong": "No verdict",
    "search.title": "Search results",
    "search.none": "No results.",
    loading: "Loading…",
    error: "Error",
    "error.network": "No answer from the server.",
    "doc.back": "← Back",
    "doc.loading": "Document",
    "doc.outline": "Document sections",
    "doc.outlineTitle": "Sections",
    "doc.cited": "Highlighted passage",
    "doc.chars": "characters",
    "doc.jump": "Go to the passage",
    "doc.chars_total": "characters in total",
    "doc.noSpan": "No passage to highlight.",
    "node.type": "Type",
    "node.labels": "Names",
    "node.text": "Text",
    "node.inDoc": "Open in document",
    "node.definition": "Definition",
    "node.properties": "Properties",
    "node.out": "Facts (outgoing)",
    "node.in": "Facts (incoming)",
    "node.children": "Parts",
    "node.mentionedIn": "Mentioned in",
    "node.wiki": "Wiki page",
    "node.authority": "authority",
    "browse.title": "Rules by document and topic",
    "browse.topic": "Topic",
    "browse.allTopics": "All topics",
    "browse.document": "Document",
    "browse.allDocs": "All documents",
    "browse.apply": "Filter",
    "browse.wiki": "Page",
    "browse.inDoc": "In document",
    "browse.data": "Data",
    "browse.none": "No section covers this topic.",
    "browse.wikiMissing": "Wiki pages (/rules) are not available yet: links open the node's data view.",
    "browse.count": "sections",
    "cards.title": "Cards",
    "cards.filter": "Filter by name (pt or en)",
    "cards.count": "cards",
    "cards.wikiMissing": "Card pages (/cards) are not available yet: links open the card's data view.",
    "cardtype.monster": "Monster",
    "cardtype.spell": "Spell",
    "cardtype.trap": "Trap",
    "quiz.title": "Judge quiz",
    "quiz.lede": "Five questions drawn from the knowledge base, with answer key and explanation.",
    "quiz.seed": "Seed",
    "quiz.topic": "Topic",
    "quiz.family.chain": "Chain",
    "quiz.family.damage-step": "Damage Step",
    "quiz.family.spell-speed": "Spell Speed",
    "quiz.family.summon": "Summons",
    "quiz.start": "New quiz",
    "quiz.check": "Check answers",
    "quiz.missing": "The quiz (/quiz) is not available on this server yet.",
    "quiz.empty": "The quiz returned no questions.",
    "quiz.score": "You got {score} of {total} right.",
    "quiz.correct": "Correct",
    "quiz.wrong": "Wrong",
    "quiz.expected": "Answer",
    "quiz.yours": "Your answer",
    "quiz.unanswered": "(no answer)",
    "quiz.answer": "Your answer",
    "quiz.localGrade": "Graded in the page with the quiz's answer key (/quiz/check unavailable).",
    "quiz.question": "Question",
    "footer.api": "JSON API and docs:",
  },
};
const LANG_KEY = "ygo-rulings.lang";
export const EXAMPLES = {
  pt: [
    "Julgamento Solene pode negar a Invocação do Dragão Cibernético?",
    "No Edison, Armadilha Falsa pode salvar um Monstro de Armadilha de Tempestade Pesada?",
    "No Tag Duel, meu companheiro de equipe pode tributar meu monstro?",
  ],
  en: [
    "Can Solemn Judgment negate the Summon of Cyber Dragon?",
    "In Edison, can Fake Trap save a trap monster from Heavy Storm?",
    "In Tag Duel, can my teammate tribute my monster for a Tribute Summon?",
  ],
};

export let lang = readLang();

function readLang() {
  try {
    const saved = window.localStorage.getItem(LANG_KEY);
    return saved === "en" ? "en" : "pt";
  } catch (_) {
    return "pt";
  }
}

export function t(key, vars) {
  let s = (STRINGS[lang] && STRINGS[lang][key]) || STRINGS.pt[key] || key;
  if (vars) {
    for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
  }
  return s;
}

export function applyStaticText() {
  document.documentElement.lang = lang === "en" ? "en" : "pt-BR";
  for (const node of document.querySelectorAll("[data-i18n]")) {
    node.textContent = t(node.getAttribute("data-i18n"));
  }
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) {
    node.setAttribute("placeholder", t(node.getAttribute("data-i18n-placeholder")));
  }
  for (const node of document.querySelectorAll("[data-i18n-aria-label]")) {
    node.setAttribute("aria-label", t(node.getAttribute("data-i18n-aria-label")));
  }
  const toggle = document.getElementById("lang-toggle");
  toggle.textContent = t("lang.switch");
  toggle.setAttribute("lang", lang === "en" ? "pt-BR" : "en");
  toggle.setAttribute("aria-label", t("lang.switchLabel"));
}

/** Switch between Portuguese and English and remember the choice. */
export function toggleLang() {
  lang = lang === "pt" ? "en" : "pt";
  try {
    window.localStorage.setItem(LANG_KEY, lang);
  } catch (_) {
    // Private mode: the choice lasts for this page only.
  }
  applyStaticText();
}
